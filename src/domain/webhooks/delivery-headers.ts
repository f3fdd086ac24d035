/**
 * The headers of a delivery (specification, Events): Content-Type, X-Webhook-Signature over the
 * exact body bytes, X-Webhook-Event, X-Webhook-Delivery (`del-<uuid>`, the same on every attempt)
 * and X-Webhook-Timestamp (the body's `timestamp`, decisions.md).
 */
import { toDeliveryId } from './prefixed-ids.js';
import { signWebhookBody } from './signature.js';

export function deliveryHeaders(delivery: {
  readonly deliveryId: string;
  readonly event: string;
  readonly eventTimestamp: string;
  readonly body: string;
  readonly secret: string;
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Rampart-Webhooks/1.0',
    'x-webhook-signature': signWebhookBody(delivery.secret, delivery.body),
    'x-webhook-event': delivery.event,
    'x-webhook-delivery': toDeliveryId(delivery.deliveryId),
    'x-webhook-timestamp': delivery.eventTimestamp,
  };
}
