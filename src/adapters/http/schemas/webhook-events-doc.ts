/**
 * The OpenAPI document's top-level `webhooks` section: one POST per event Rampart sends to a
 * webhook's URL (and, for the ends of a scan, to a scan's `callbackUrl`), with its body and its
 * headers, so SDK generators see the deliveries as well as the routes. Documentation only: the
 * bodies are written by adapters/queue/scan-moves.ts (scan events; a filtered webhook's
 * scan.completed adds data.findings, domain/webhooks/webhook-filters.ts) and
 * use-cases/webhooks/test-webhook.ts (webhook.test), the headers by domain/webhooks/delivery-headers.ts.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { SEVERITIES } from '../../../domain/findings/finding.js';
import { ENGINE_NAMES } from '../../../engines/engine.js';

const DateTime = Type.String({ format: 'date-time' });

const SeverityCounts = Type.Object(
  Object.fromEntries(SEVERITIES.map((severity) => [severity, Type.Integer({ minimum: 0 })])),
  { additionalProperties: false },
);

/**
 * `data.findings` of a scan.completed sent to a webhook with filters (an extension; the body
 * is written by domain/webhooks/webhook-filters.ts in the fan-out).
 */
const FindingsChanges = Type.Object(
  {
    new: Type.Integer({ minimum: 0, description: 'Untriaged issues this scan found first' }),
    reopened: Type.Integer({
      minimum: 0,
      description: 'Untriaged issues this scan found again after they were fixed',
    }),
    fixed: Type.Integer({
      minimum: 0,
      description: 'Untriaged issues of its engine on its target this scan no longer found',
    }),
    bySeverity: { ...SeverityCounts, description: 'The new and reopened ones by severity' },
  },
  {
    additionalProperties: false,
    description:
      'Extension: only in deliveries to a webhook with filters (never to a webhook without them, nor to a callbackUrl). Counts of issues (a finding across rescans, once however many engines reported it) whose triage is none',
  },
);

/** `data` of a scan event: the scan as it was when it moved. */
const ScanEventData = (event: string) =>
  Type.Object(
    {
      scanId: Type.String({ format: 'uuid' }),
      scanType: Type.String({ enum: [...ENGINE_NAMES] }),
      name: Type.String(),
      target: Type.String(),
      status: Type.String({ enum: ['running', 'completed', 'failed', 'cancelled'] }),
      progress: Type.Integer({ minimum: 0, maximum: 100 }),
      resultCount: Type.Integer({ minimum: 0 }),
      durationMs: Type.Integer({
        minimum: 0,
        description: '0 until the scan has both started and ended',
      }),
      createdAt: DateTime,
      completedAt: Type.Union([DateTime, Type.Null()], {
        description: 'null in scan.started (and when a queued scan ends without running)',
      }),
      ...(event === 'scan.completed' ? { findings: Type.Optional(FindingsChanges) } : {}),
      ...(event === 'scan.failed'
        ? {
            error: Type.Object(
              {
                code: Type.String({ description: 'Error code of the failure' }),
                message: Type.String(),
              },
              { additionalProperties: false },
            ),
          }
        : {}),
    },
    { additionalProperties: false },
  );

const eventBody = (event: string, data: TSchema) =>
  Type.Object(
    {
      event: Type.Literal(event),
      timestamp: Type.String({
        format: 'date-time',
        description: 'When the event happened; also sent as X-Webhook-Timestamp',
      }),
      tenantId: Type.String({ format: 'uuid' }),
      data,
    },
    { additionalProperties: false },
  );

const TestEventData = Type.Object(
  {
    webhookId: Type.String({ description: 'wh-<uuid>' }),
    message: Type.String(),
  },
  { additionalProperties: false },
);

/** The request headers of every delivery, as OpenAPI header parameters. */
const DELIVERY_HEADERS = [
  {
    name: 'X-Webhook-Signature',
    description:
      "`sha256=<hex>`: HMAC-SHA256 of the raw body keyed with the webhook's `whsec_…` secret (the scheme of GitHub's X-Hub-Signature-256). Compare in constant time on the raw body before parsing it.",
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
  {
    name: 'X-Webhook-Event',
    description: 'The event name, as in the body',
    schema: { type: 'string' },
  },
  {
    name: 'X-Webhook-Delivery',
    description: 'del-<uuid>: the same on every attempt of one delivery (deduplicate on it)',
    schema: { type: 'string' },
  },
  {
    name: 'X-Webhook-Timestamp',
    description: "The body's `timestamp` (ISO 8601, UTC)",
    schema: { type: 'string', format: 'date-time' },
  },
  {
    name: 'webhook-id',
    description:
      'Standard Webhooks: the message id, the same on every attempt of one delivery (deduplicate on it)',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    description:
      'Standard Webhooks: Unix epoch seconds, covered by webhook-signature; receivers refuse messages outside their replay window (the Standard Webhooks libraries allow 5 minutes)',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    description:
      "Standard Webhooks: `v1,<base64>`, HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`; the `standardwebhooks` npm library verifies it with the webhook's `whsec_…` secret",
    schema: { type: 'string', pattern: '^v1,' },
  },
].map((header) => ({ ...header, in: 'header' as const, required: true }));

const EVENTS: ReadonlyArray<{
  readonly event: string;
  readonly operationId: string;
  readonly summary: string;
  readonly data: TSchema;
}> = [
  {
    event: 'scan.started',
    operationId: 'scanStartedEvent',
    summary: 'A scan moved from queued to running',
    data: ScanEventData('scan.started'),
  },
  {
    event: 'scan.completed',
    operationId: 'scanCompletedEvent',
    summary:
      'A scan finished successfully; its results are ready (to a webhook with filters: only when they pass, with data.findings)',
    data: ScanEventData('scan.completed'),
  },
  {
    event: 'scan.failed',
    operationId: 'scanFailedEvent',
    summary: 'A scan hit a fatal error; `data.error` says which',
    data: ScanEventData('scan.failed'),
  },
  {
    event: 'scan.cancelled',
    operationId: 'scanCancelledEvent',
    summary: 'A scan was cancelled; partial results may exist',
    data: ScanEventData('scan.cancelled'),
  },
  {
    event: 'webhook.test',
    operationId: 'webhookTestEvent',
    summary: 'Sent by POST /api/v1/webhooks/{webhookId}/test',
    data: TestEventData,
  },
];

/** JSON of a TypeBox schema, without its symbol keys (the document is plain JSON). */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

export const WEBHOOK_EVENTS_DOC: Record<string, unknown> = Object.fromEntries(
  EVENTS.map(({ event, operationId, summary, data }) => [
    event,
    {
      post: {
        operationId,
        summary,
        description:
          'POSTed to the URL of every active webhook subscribed to the event (the ends of a scan also to its callbackUrl). A delivery fails on a non-2xx answer, a timeout (WEBHOOK_TIMEOUT_MS), a DNS or TLS failure, and is retried (4 attempts: at once, after 60, 120 and 240 s); the same event may arrive more than once.',
        tags: ['webhook-events'],
        // The receiver authenticates the delivery by its signatures (headers), not by a scheme.
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: plain(eventBody(event, data)) } },
        },
        responses: {
          '2XX': { description: 'Delivered' },
          '4XX': { description: 'Failed: retried while attempts remain' },
          '5XX': { description: 'Failed: retried while attempts remain' },
        },
      },
    },
  ]),
);
