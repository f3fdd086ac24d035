/**
 * The headers of a delivery. The contract's (specification, Events): Content-Type,
 * X-Webhook-Signature over the exact body bytes, X-Webhook-Event, X-Webhook-Delivery (`del-<uuid>`,
 * the same on every attempt) and X-Webhook-Timestamp (the body's `timestamp`, decisions.md): these
 * are the same on every attempt of a delivery.
 *
 * Beside them, the Standard Webhooks headers (standard-signature.ts):
 * - `webhook-id`: the message id, `del-<uuid>` of the delivery that first carried this event to
 *   this webhook; the same on its retries and on its redeliveries (a receiver's idempotency key);
 * - `webhook-timestamp`: the attempt's send time in unix seconds. The Standard Webhooks
 *   specification has this timestamp updated on every retry ("the timestamp of the attempt"), and
 *   its receivers refuse one older than 5 minutes: an attempt 4 minutes after the first, or a
 *   redelivery a day later, must carry its own time to be accepted. The body and its `timestamp`
 *   (and X-Webhook-Timestamp) stay the event's;
 * - `webhook-signature`: `v1,<base64>` over `webhook-id.webhook-timestamp.body`, so it is computed
 *   for each attempt.
 */
import { toDeliveryId } from './prefixed-ids.js';
import { signWebhookBody } from './signature.js';
import { signStandardWebhook } from './standard-signature.js';

export function deliveryHeaders(delivery: {
  readonly deliveryId: string;
  /** The UUID sent as `webhook-id`: the delivery's own, or for a redelivery the first one's. */
  readonly messageId: string;
  readonly event: string;
  readonly eventTimestamp: string;
  readonly body: string;
  readonly secret: string;
  /** When this attempt is sent: `webhook-timestamp`, in whole unix seconds. */
  readonly attemptedAt: Date;
}): Record<string, string> {
  const messageId = toDeliveryId(delivery.messageId);
  const seconds = Math.floor(delivery.attemptedAt.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Rampart-Webhooks/1.0',
    'x-webhook-signature': signWebhookBody(delivery.secret, delivery.body),
    'x-webhook-event': delivery.event,
    'x-webhook-delivery': toDeliveryId(delivery.deliveryId),
    'x-webhook-timestamp': delivery.eventTimestamp,
    'webhook-id': messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signStandardWebhook(delivery.secret, messageId, seconds, delivery.body),
  };
}
