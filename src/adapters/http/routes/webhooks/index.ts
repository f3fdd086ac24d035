/**
 * Webhooks (API-key context; each route declares its scope). One file would hold them all at about
 * 200 lines, so they sit together here: each handler reads its input, calls one use case and
 * returns the envelope.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError, type ErrorCode } from '../../../../domain/errors.js';
import { parseDeliveryId, parseWebhookId } from '../../../../domain/webhooks/prefixed-ids.js';
import {
  type CreateWebhookInput,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  type PatchWebhookInput,
  patchWebhook,
} from '../../../../use-cases/webhooks/manage-webhooks.js';
import {
  RECOVER_MAX_DELIVERIES,
  recoverWebhookDeliveries,
  redeliverWebhookDelivery,
} from '../../../../use-cases/webhooks/redeliver-webhook.js';
import { testWebhook } from '../../../../use-cases/webhooks/test-webhook.js';
import type { AppDeps } from '../../app-deps.js';
import { tenantCaller } from '../../request-auth.js';
import {
  BODY_CODES,
  tenantErrors as errors,
  tenantOk as ok,
  TENANT_SECURITY as security,
} from '../../schemas/envelope.js';
import { PageQuery, PaginationSchema } from '../../schemas/scan.js';
import {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveriesFilterQuery,
  DeliveryIdParams,
  DeliverySchema,
  PatchWebhookBody,
  QueuedDeliverySchema,
  RecoverDeliveriesBody,
  WebhookIdParams,
} from '../../schemas/webhook.js';

const WebhookRef = Type.Ref('Webhook');
const URL_CODES: ErrorCode[] = [
  'INVALID_WEBHOOK_URL',
  'WEBHOOK_URL_UNREACHABLE',
  'INVALID_WEBHOOK_EVENT',
];

type WithId = { Params: { webhookId: string } };

export function registerWebhookRoutes(app: FastifyInstance, deps: AppDeps): void {
  const manage = {
    webhooks: deps.webhooks,
    urls: deps.webhookUrls,
    ids: deps.ids,
    randomBytes: deps.randomBytes,
    maxWebhooks: deps.config.tenantLimits.maxWebhooks,
  };
  const idOf = (request: { params: { webhookId: string } }) =>
    parseWebhookId(request.params.webhookId);

  app.post<{ Body: CreateWebhookInput }>(
    '/api/v1/webhooks',
    {
      config: { scope: 'webhooks:create' },
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook (the secret is shown only in this answer)',
        description:
          'At most TENANT_MAX_WEBHOOKS webhooks per tenant, active or disabled (delete one to make room): 409 TENANT_LIMIT_REACHED. ' +
          'filters (an extension) make scan.completed deliveries depend on what the scan found (see the filters field).',
        tags: ['webhooks'],
        security,
        body: CreateWebhookBody,
        response: {
          201: ok(Type.Object({ webhook: CreatedWebhook })),
          ...errors(...BODY_CODES, ...URL_CODES, 'TENANT_LIMIT_REACHED'),
        },
      },
    },
    async (request, reply) => {
      const data = await createWebhook(manage, tenantCaller(request).tenantId, request.body);
      return reply.code(201).send({ success: true, data });
    },
  );

  app.get<{ Querystring: { page?: number; limit?: number } }>(
    '/api/v1/webhooks',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        operationId: 'listWebhooks',
        summary: "The tenant's webhooks, newest first",
        tags: ['webhooks'],
        security,
        querystring: Type.Object(PageQuery),
        response: {
          200: ok(Type.Object({ webhooks: Type.Array(WebhookRef), pagination: PaginationSchema })),
          ...errors('INVALID_PAGE', 'INVALID_LIMIT'),
        },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      const data = await listWebhooks(deps.webhooks, tenantCaller(request).tenantId, {
        page,
        limit,
      });
      return { success: true, data };
    },
  );

  app.get<WithId>(
    '/api/v1/webhooks/:webhookId',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        operationId: 'getWebhook',
        summary: 'One webhook with its health',
        tags: ['webhooks'],
        security,
        params: WebhookIdParams,
        response: { 200: ok(Type.Object({ webhook: WebhookRef })), ...errors('WEBHOOK_NOT_FOUND') },
      },
    },
    async (request) => ({
      success: true,
      data: await getWebhook(deps.webhooks, tenantCaller(request).tenantId, idOf(request)),
    }),
  );

  app.patch<WithId & { Body: PatchWebhookInput }>(
    '/api/v1/webhooks/:webhookId',
    {
      config: { scope: 'webhooks:update' },
      schema: {
        operationId: 'updateWebhook',
        summary:
          'Change name, url, events, isActive (true re-enables and resets the failure count) or filters',
        tags: ['webhooks'],
        security,
        params: WebhookIdParams,
        body: PatchWebhookBody,
        response: {
          200: ok(Type.Object({ webhook: WebhookRef })),
          ...errors(...BODY_CODES, ...URL_CODES, 'WEBHOOK_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await patchWebhook(manage, tenantCaller(request).tenantId, idOf(request), request.body),
    }),
  );

  app.delete<WithId>(
    '/api/v1/webhooks/:webhookId',
    {
      config: { scope: 'webhooks:delete' },
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook (its pending deliveries are dropped)',
        tags: ['webhooks'],
        security,
        params: WebhookIdParams,
        response: {
          200: ok(
            Type.Object(
              { id: Type.String(), deleted: Type.Literal(true) },
              { additionalProperties: false },
            ),
          ),
          ...errors('WEBHOOK_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await deleteWebhook(deps.webhooks, tenantCaller(request).tenantId, idOf(request)),
    }),
  );

  app.post<WithId>(
    '/api/v1/webhooks/:webhookId/test',
    {
      config: { scope: 'webhooks:create' },
      schema: {
        operationId: 'testWebhook',
        summary: 'Send a webhook.test event now (logged, never retried, never counted)',
        description:
          'Answers once the receiver has answered or WEBHOOK_TIMEOUT_MS has passed. At most ' +
          'WEBHOOK_TEST_MAX_CONCURRENT tests of one tenant are in flight at once, over every ' +
          'process: one more answers 429 RATE_LIMIT_EXCEEDED, with Retry-After the seconds until ' +
          'the oldest of them reaches its deadline.',
        tags: ['webhooks'],
        security,
        params: WebhookIdParams,
        response: {
          200: ok(
            Type.Object(
              {
                delivered: Type.Boolean(),
                statusCode: Type.Integer(),
                responseTime: Type.Integer(),
                event: Type.Literal('webhook.test'),
              },
              { additionalProperties: false },
            ),
          ),
          ...errors('WEBHOOK_NOT_FOUND', 'WEBHOOK_DISABLED'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await testWebhook(
        {
          webhooks: deps.webhooks,
          sender: deps.webhookSender,
          ids: deps.ids,
          clock: deps.clock,
          metrics: deps.metrics,
          limits: {
            maxConcurrent: deps.config.webhookTestMaxConcurrent,
            // The send's deadline plus the dispatcher's margin for recording an attempt.
            leaseMs: deps.config.webhookTimeoutMs + 5_000,
          },
        },
        tenantCaller(request).tenantId,
        idOf(request),
      ),
    }),
  );

  app.get<
    WithId & {
      Querystring: {
        page?: number;
        limit?: number;
        success?: boolean;
        event?: string;
        deliveryId?: string;
      };
    }
  >(
    '/api/v1/webhooks/:webhookId/deliveries',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'Delivery log: one record per attempt, newest first',
        tags: ['webhooks'],
        security,
        params: WebhookIdParams,
        querystring: Type.Object({ ...DeliveriesFilterQuery, ...PageQuery }),
        response: {
          200: ok(
            Type.Object({ deliveries: Type.Array(DeliverySchema), pagination: PaginationSchema }),
          ),
          ...errors(
            'WEBHOOK_NOT_FOUND',
            'INVALID_PAGE',
            'INVALID_LIMIT',
            'INVALID_FIELD_TYPE',
            'INVALID_FIELD_VALUE',
          ),
        },
      },
    },
    async (request) => {
      const { page = 1, limit = 20, success, event, deliveryId } = request.query;
      const data = await listDeliveries(
        deps.webhooks,
        tenantCaller(request).tenantId,
        idOf(request),
        { page, limit },
        {
          ...(success === undefined ? {} : { success }),
          ...(event === undefined ? {} : { event }),
          ...(deliveryId === undefined ? {} : { deliveryId: deliveryUuid(deliveryId) }),
        },
      );
      return { success: true, data };
    },
  );
  const redelivery = {
    webhooks: deps.webhooks,
    firstDelayMs: deps.config.webhookRetryDelaysMs[0] ?? 0,
    wakeDispatcher: () => deps.wakeDispatcher(),
  };

  app.post<{ Params: { webhookId: string; deliveryId: string } }>(
    '/api/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      config: { scope: 'webhooks:update' },
      schema: {
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again as a new delivery (extension)',
        description:
          'Queues a new delivery with the same body bytes: its own del-<uuid> (X-Webhook-Delivery ' +
          'and the id of its attempts in the delivery log, which marks them with redeliveryOf), ' +
          'attempts 1..4 on the usual retry schedule, counted in the webhook health like any ' +
          'other. Its Standard Webhooks webhook-id is that of the first delivery of the event ' +
          '(messageId). Any event delivery can be sent again, delivered or not; 409 ' +
          'DELIVERY_NOT_REDELIVERABLE for a webhook.test delivery or while a delivery of the ' +
          'same event is still pending; 409 WEBHOOK_DISABLED when the webhook is inactive.',
        tags: ['webhooks'],
        security,
        params: DeliveryIdParams,
        response: {
          202: ok(Type.Object({ delivery: QueuedDeliverySchema }, { additionalProperties: false })),
          ...errors(
            'WEBHOOK_NOT_FOUND',
            'DELIVERY_NOT_FOUND',
            'WEBHOOK_DISABLED',
            'DELIVERY_NOT_REDELIVERABLE',
          ),
        },
      },
    },
    async (request, reply) => {
      const data = await redeliverWebhookDelivery(
        redelivery,
        tenantCaller(request).tenantId,
        idOf(request),
        parseDeliveryId(request.params.deliveryId),
      );
      return reply.code(202).send({ success: true, data });
    },
  );

  app.post<WithId & { Body: { since: string; until?: string } }>(
    '/api/v1/webhooks/:webhookId/deliveries/recover',
    {
      config: { scope: 'webhooks:update' },
      schema: {
        operationId: 'recoverWebhookDeliveries',
        summary: 'Send again every failed delivery since a time (extension)',
        description:
          'For a receiver that missed deliveries (an outage longer than the retry schedule): ' +
          'queues again, as new deliveries like redeliver, every event delivery of the webhook ' +
          'created in [since, until) whose last attempt failed or that was cancelled when the ' +
          'webhook was disabled; only the newest delivery of each event counts, so a repeated ' +
          `call does not send an event twice. At most ${RECOVER_MAX_DELIVERIES} per call, oldest ` +
          'first: hasMore true says to call again with the same window. webhook.test deliveries ' +
          'are not recovered. 409 WEBHOOK_DISABLED when the webhook is inactive (re-enable it first).',
        tags: ['webhooks'],
        security,
        params: WebhookIdParams,
        body: RecoverDeliveriesBody,
        response: {
          202: ok(
            Type.Object(
              {
                recovered: Type.Integer({ description: 'deliveries queued by this call' }),
                hasMore: Type.Boolean({
                  description: `more than ${RECOVER_MAX_DELIVERIES} matched: call again`,
                }),
                deliveries: Type.Array(QueuedDeliverySchema),
              },
              { additionalProperties: false },
            ),
          ),
          ...errors(...BODY_CODES, 'WEBHOOK_NOT_FOUND', 'WEBHOOK_DISABLED'),
        },
      },
    },
    async (request, reply) => {
      const data = await recoverWebhookDeliveries(
        redelivery,
        tenantCaller(request).tenantId,
        idOf(request),
        request.body,
      );
      return reply.code(202).send({ success: true, data });
    },
  );
}

/** The uuid of the delivery log's `deliveryId` filter; not a del-<uuid>: INVALID_FIELD_VALUE. */
function deliveryUuid(deliveryId: string): string {
  const uuid = parseDeliveryId(deliveryId);
  if (uuid === null) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: 'deliveryId',
      reason: 'must be a delivery id, del-<uuid>',
    });
  }
  return uuid;
}
