/**
 * POST /api/v1/webhooks/:webhookId/test: one `webhook.test` delivery sent now and answered with
 * its outcome. Logged like any attempt, never retried, and it never changes consecutiveFailures,
 * isHealthy or isActive (decisions.md). An inactive webhook answers 409 WEBHOOK_DISABLED.
 *
 * A test holds its caller's connection until the receiver answers or WEBHOOK_TIMEOUT_MS passes,
 * so a tenant has at most WEBHOOK_TEST_MAX_CONCURRENT in flight over every process (issue 20);
 * one more answers 429 RATE_LIMIT_EXCEEDED, with Retry-After the seconds until the oldest running
 * test reaches its deadline (when a place is free at the latest).
 */
import { ApiError } from '../../domain/errors.js';
import { deliveryHeaders } from '../../domain/webhooks/delivery-headers.js';
import { toWebhookId } from '../../domain/webhooks/prefixed-ids.js';
import { TEST_EVENT } from '../../domain/webhooks/webhook-events.js';
import type { Clock, IdSource } from '../ports/common.js';
import type { ServiceMetrics } from '../ports/metrics.js';
import type { TestLimits, WebhookSender, WebhookStore } from '../ports/webhooks.js';

export async function testWebhook(
  deps: {
    readonly webhooks: WebhookStore;
    readonly sender: WebhookSender;
    readonly ids: IdSource;
    readonly clock: Clock;
    readonly limits: TestLimits;
    readonly metrics: Pick<ServiceMetrics, 'rateLimited'>;
  },
  tenantId: string,
  id: string | null,
) {
  const webhook = id === null ? null : await deps.webhooks.get(tenantId, id);
  if (webhook === null) {
    throw new ApiError('WEBHOOK_NOT_FOUND');
  }
  if (!webhook.isActive) {
    throw new ApiError('WEBHOOK_DISABLED');
  }
  const deliveryId = deps.ids.uuid();
  const timestamp = deps.clock.now().toISOString();
  const body = JSON.stringify({
    event: TEST_EVENT,
    timestamp,
    tenantId,
    data: { webhookId: toWebhookId(webhook.id), message: 'Test delivery from Rampart' },
  });
  const delivery = { id: deliveryId, body, eventTimestamp: timestamp };
  const begun = await deps.webhooks.beginTest(webhook, delivery, deps.limits);
  if (!begun.started) {
    deps.metrics.rateLimited('webhook_test');
    const seconds = Math.max(1, Math.ceil(begun.retryAfterMs / 1000));
    throw new ApiError(
      'RATE_LIMIT_EXCEEDED',
      { seconds },
      { headers: { 'retry-after': String(seconds) } },
    );
  }
  const outcome = await deps.sender.send({
    url: webhook.url,
    headers: deliveryHeaders({
      deliveryId,
      messageId: deliveryId,
      event: TEST_EVENT,
      eventTimestamp: timestamp,
      body,
      secret: webhook.secret,
      attemptedAt: deps.clock.now(),
    }),
    body,
  });
  await deps.webhooks.recordTest(webhook, delivery, outcome);
  return {
    delivered: outcome.success,
    statusCode: outcome.statusCode,
    responseTime: Math.round(outcome.responseTimeMs),
    event: TEST_EVENT,
  };
}
