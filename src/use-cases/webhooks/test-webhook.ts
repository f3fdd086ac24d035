/**
 * POST /api/v1/webhooks/:webhookId/test: one `webhook.test` delivery sent now and answered with
 * its outcome. Logged like any attempt, never retried, and it never changes consecutiveFailures,
 * isHealthy or isActive (decisions.md). An inactive webhook answers 409 WEBHOOK_DISABLED.
 */
import { ApiError } from '../../domain/errors.js';
import { deliveryHeaders } from '../../domain/webhooks/delivery-headers.js';
import { toWebhookId } from '../../domain/webhooks/prefixed-ids.js';
import { TEST_EVENT } from '../../domain/webhooks/webhook-events.js';
import type { Clock, IdSource } from '../ports/common.js';
import type { WebhookSender, WebhookStore } from '../ports/webhooks.js';

export async function testWebhook(
  deps: {
    readonly webhooks: WebhookStore;
    readonly sender: WebhookSender;
    readonly ids: IdSource;
    readonly clock: Clock;
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
  const outcome = await deps.sender.send({
    url: webhook.url,
    headers: deliveryHeaders({
      deliveryId,
      event: TEST_EVENT,
      eventTimestamp: timestamp,
      body,
      secret: webhook.secret,
    }),
    body,
  });
  await deps.webhooks.recordTest(
    webhook,
    { id: deliveryId, body, eventTimestamp: timestamp },
    outcome,
  );
  return {
    delivered: outcome.success,
    statusCode: outcome.statusCode,
    responseTime: Math.round(outcome.responseTimeMs),
    event: TEST_EVENT,
  };
}
