/** Schemas of the webhook routes: request validation, exact response shapes, documentation. */
import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENTS } from '../../../domain/webhooks/webhook-events.js';

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

export const CreateWebhookBody = Type.Object({
  name: Name,
  url: Url,
  events: Type.Optional(Events),
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
  },
  { additionalProperties: false },
);

export const WebhookIdParams = Type.Object({
  webhookId: Type.String({
    pattern: '^wh-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    'x-invalid-code': 'WEBHOOK_NOT_FOUND',
    description: 'The webhook id (wh-<uuid>)',
  }),
});
