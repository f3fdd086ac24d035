/** Webhooks and delivery attempts as the API shows them; the secret only when asked (creation). */
import { isHealthy } from '../../domain/webhooks/delivery-policy.js';
import { toDeliveryId, toWebhookId } from '../../domain/webhooks/prefixed-ids.js';
import type {
  DeliveryAttemptRecord,
  QueuedDeliveryRecord,
  WebhookRecord,
} from '../ports/webhooks.js';

export function toWebhookView(webhook: WebhookRecord, withSecret = false) {
  return {
    id: toWebhookId(webhook.id),
    name: webhook.name,
    url: webhook.url,
    ...(withSecret ? { secret: webhook.secret } : {}),
    events: [...webhook.events],
    isActive: webhook.isActive,
    isHealthy: isHealthy(webhook.consecutiveFailures),
    consecutiveFailures: webhook.consecutiveFailures,
    lastTriggeredAt: webhook.lastTriggeredAt?.toISOString() ?? null,
    lastStatusCode: webhook.lastStatusCode,
    createdAt: webhook.createdAt.toISOString(),
    // An extension: null for a webhook without filters (it gets every subscribed event).
    filters: webhook.filters === null ? null : { ...webhook.filters },
  };
}

export function toDeliveryView(attempt: DeliveryAttemptRecord) {
  return {
    id: toDeliveryId(attempt.deliveryId),
    event: attempt.event,
    statusCode: attempt.statusCode,
    success: attempt.success,
    responseTime: attempt.responseTimeMs,
    attempt: attempt.attempt,
    deliveredAt: attempt.attemptedAt.toISOString(),
    error: attempt.error,
    nextAttemptAt: attempt.nextAttemptAt?.toISOString() ?? null,
    // An extension: only the attempts of a redelivery name the delivery they send again.
    ...(attempt.redeliveryOf === null ? {} : { redeliveryOf: toDeliveryId(attempt.redeliveryOf) }),
  };
}

/** A delivery queued by a redelivery or a recovery (an extension), before its first attempt. */
export function toQueuedDeliveryView(delivery: QueuedDeliveryRecord) {
  return {
    id: toDeliveryId(delivery.id),
    event: delivery.event,
    status: 'pending' as const,
    redeliveryOf: toDeliveryId(delivery.redeliveryOf),
    messageId: toDeliveryId(delivery.messageId),
    createdAt: delivery.createdAt.toISOString(),
    nextAttemptAt: delivery.nextAttemptAt.toISOString(),
  };
}
