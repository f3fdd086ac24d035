/** Webhooks and delivery attempts as the API shows them; the secret only when asked (creation). */
import { isHealthy } from '../../domain/webhooks/delivery-policy.js';
import { toDeliveryId, toWebhookId } from '../../domain/webhooks/prefixed-ids.js';
import type { DeliveryAttemptRecord, WebhookRecord } from '../ports/webhooks.js';

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
  };
}
