/** Schemas of the webhook routes: request validation, exact response shapes, documentation. */
import { Type } from '@sinclair/typebox';
import { SEVERITIES } from '../../../domain/findings/finding.js';
import { orNull } from '../../../domain/validation/or-null.js';
import { DELIVERY_LOG_EVENTS, WEBHOOK_EVENTS } from '../../../domain/webhooks/webhook-events.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

const EventName = Type.String({
  enum: [...WEBHOOK_EVENTS],
  'x-error-code': 'INVALID_WEBHOOK_EVENT',
});
const Events = Type.Array(EventName, {
  minItems: 1,
  maxItems: 4,
  description: 'Subscribed events; default scan.completed and scan.failed',
});
const Name = Type.String({ minLength: 1, maxLength: 255 });
const Url = Type.String({ description: 'HTTPS only, at most 2048 characters' });

const MIN_SEVERITY_DOC =
  'Only issues of this severity or above count (critical > high > medium > low > info); default info';
const ONLY_NEW_DOC =
  'true (default): sent when the scan opened or reopened an untriaged issue at or above minSeverity; ' +
  'false: when the scan saw any untriaged issue at or above minSeverity, new or not';
const FILTERS_DOC =
  'Extension: gates scan.completed only. With filters, a scan.completed delivery is sent only when ' +
  'the scan has untriaged (triage none) findings that pass them, and its data adds findings ' +
  '{ new, reopened, fixed, bySeverity }. Other events are delivered as without filters. ' +
  'Absent or null: every subscribed event with the contract body.';

/** Filters as a body gives them (an extension): both optional, unknown keys refused. */
const FiltersBody = Type.Object(
  {
    minSeverity: Type.Optional(
      Type.String({ enum: [...SEVERITIES], description: MIN_SEVERITY_DOC }),
    ),
    onlyNew: Type.Optional(Type.Boolean({ description: ONLY_NEW_DOC })),
  },
  { additionalProperties: false },
);

export const CreateWebhookBody = Type.Object({
  name: Name,
  url: Url,
  events: Type.Optional(Events),
  filters: Type.Optional(orNull(FiltersBody, { description: FILTERS_DOC })),
});

export const PatchWebhookBody = Type.Object({
  name: Type.Optional(Name),
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  isActive: Type.Optional(
    Type.Boolean({
      description: 'true re-enables a disabled webhook and resets consecutiveFailures',
    }),
  ),
  filters: Type.Optional(
    orNull(FiltersBody, { description: `${FILTERS_DOC} PATCH with null removes them.` }),
  ),
});

const webhookFields = {
  id: Type.String({ description: 'wh-<uuid>' }),
  name: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  isActive: Type.Boolean(),
  isHealthy: Type.Boolean({ description: 'false while consecutiveFailures is above 0' }),
  consecutiveFailures: Type.Integer(),
  lastTriggeredAt: NullableDateTime,
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: DateTime,
  filters: Type.Union(
    [
      Type.Object(
        {
          minSeverity: Type.String({ enum: [...SEVERITIES], description: MIN_SEVERITY_DOC }),
          onlyNew: Type.Boolean({ description: ONLY_NEW_DOC }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ],
    { description: `${FILTERS_DOC} Shown with the defaults filled in.` },
  ),
};

export const WebhookSchema = Type.Object(webhookFields, {
  $id: 'Webhook',
  additionalProperties: false,
});

export const CreatedWebhook = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({
      description: 'whsec_…; signs every delivery; shown only in this answer',
    }),
  },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'del-<uuid>, the same for every attempt of one delivery' }),
    event: Type.String(),
    statusCode: Type.Integer({ description: '0 when no HTTP answer came (network, timeout, TLS)' }),
    success: Type.Boolean(),
    responseTime: Type.Integer({ description: 'milliseconds' }),
    attempt: Type.Integer({ minimum: 1, maximum: 4 }),
    deliveredAt: DateTime,
    error: Type.Union([Type.String(), Type.Null()]),
    nextAttemptAt: NullableDateTime,
    redeliveryOf: Type.Optional(
      Type.String({
        description:
          'Extension: on the attempts of a redelivery only, the del-<uuid> of the delivery it sends again',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A delivery queued by redeliver or recover (an extension), before its first attempt. */
export const QueuedDeliverySchema = Type.Object(
  {
    id: Type.String({
      description: 'del-<uuid> of the new delivery: X-Webhook-Delivery and the id of its attempts',
    }),
    event: Type.String(),
    status: Type.Literal('pending'),
    redeliveryOf: Type.String({ description: 'del-<uuid> of the delivery sent again' }),
    messageId: Type.String({
      description:
        'Sent as the Standard Webhooks webhook-id: the del-<uuid> of the first delivery of this event to this webhook',
    }),
    createdAt: DateTime,
    nextAttemptAt: DateTime,
  },
  { additionalProperties: false },
);

export const RecoverDeliveriesBody = Type.Object({
  since: Type.String({
    format: 'date-time',
    description: 'Deliveries created at or after this time (ISO 8601 with a time zone)',
  }),
  until: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'and before this time (default: now); must be after since',
    }),
  ),
});

const UUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const WebhookIdParam = Type.String({
  pattern: `^wh-${UUID_PATTERN}$`,
  'x-invalid-code': 'WEBHOOK_NOT_FOUND',
  description: 'The webhook id (wh-<uuid>)',
});

export const WebhookIdParams = Type.Object({ webhookId: WebhookIdParam });

/**
 * The delivery id is not checked here: the webhook decides first (another tenant's webhook is
 * WEBHOOK_NOT_FOUND whatever the delivery id), then an id that is not `del-<uuid>` is
 * DELIVERY_NOT_FOUND like an unknown one (redeliver-webhook.ts).
 */
/**
 * The delivery log's filters (Rampart extensions): each narrows the list and its pagination's
 * totals; together they must all hold.
 */
export const DeliveriesFilterQuery = {
  success: Type.Optional(
    Type.Boolean({
      description:
        'Rampart extension: only attempts that succeeded (true) or failed (false; statusCode 0 included)',
    }),
  ),
  event: Type.Optional(
    Type.String({
      enum: [...DELIVERY_LOG_EVENTS],
      description: 'Rampart extension: only attempts of this event',
    }),
  ),
  deliveryId: Type.Optional(
    Type.String({
      description: 'Rampart extension: only the attempts of this delivery (del-<uuid>)',
    }),
  ),
};

export const DeliveryIdParams = Type.Object({
  webhookId: WebhookIdParam,
  deliveryId: Type.String({ description: 'del-<uuid>, as the delivery log shows it' }),
});
