/**
 * Sending deliveries again (a Rampart extension, issue 22): one delivery on request, or every
 * failed one since a time, for a receiver that missed them (an outage longer than the retry
 * ladder). Either way each is a NEW delivery: its own `del-<uuid>` (X-Webhook-Delivery, and the
 * id of its attempts in the delivery log), attempts 1..4 on the usual retry schedule, counted in
 * the webhook's health like any other, and the source's body bytes (so the body's `timestamp`
 * and X-Webhook-Timestamp are the event's). Its `webhook-id` is the first delivery's, so a
 * Standard Webhooks receiver that dedupes on it processes the message once.
 *
 * Refused: an unknown webhook or one of another tenant (404 WEBHOOK_NOT_FOUND), an unknown
 * delivery (404 DELIVERY_NOT_FOUND), then a disabled webhook (409 WEBHOOK_DISABLED, like its
 * test), a webhook.test delivery or a message still being delivered (409
 * DELIVERY_NOT_REDELIVERABLE).
 */
import { ApiError } from '../../domain/errors.js';
import type { WebhookRecord, WebhookStore } from '../ports/webhooks.js';
import { toQueuedDeliveryView } from './webhook-view.js';

/** Deliveries one recovery queues at most; `hasMore` says when more are left. */
export const RECOVER_MAX_DELIVERIES = 1000;

export interface RedeliveryDeps {
  readonly webhooks: WebhookStore;
  /** The first delay of WEBHOOK_RETRY_DELAYS_MS: a redelivery's first attempt is due then. */
  readonly firstDelayMs: number;
  /** Tells the dispatcher that deliveries are due. */
  wakeDispatcher(): void;
}

async function webhookOf(
  webhooks: WebhookStore,
  tenantId: string,
  id: string | null,
): Promise<WebhookRecord> {
  const webhook = id === null ? null : await webhooks.get(tenantId, id);
  if (webhook === null) {
    throw new ApiError('WEBHOOK_NOT_FOUND');
  }
  return webhook;
}

export async function redeliverWebhookDelivery(
  deps: RedeliveryDeps,
  tenantId: string,
  webhookId: string | null,
  deliveryId: string | null,
) {
  const webhook = await webhookOf(deps.webhooks, tenantId, webhookId);
  if (deliveryId === null) {
    throw new ApiError('DELIVERY_NOT_FOUND');
  }
  const result = await deps.webhooks.redeliver(webhook, deliveryId, deps.firstDelayMs);
  switch (result.outcome) {
    case 'not-found':
      throw new ApiError('DELIVERY_NOT_FOUND');
    case 'disabled':
      throw new ApiError('WEBHOOK_DISABLED');
    case 'test':
      throw new ApiError('DELIVERY_NOT_REDELIVERABLE', {
        reason: 'a webhook.test delivery is not sent again: send a new test',
      });
    case 'in-progress':
      throw new ApiError('DELIVERY_NOT_REDELIVERABLE', {
        reason: 'a delivery of this message is still pending',
      });
    case 'queued':
      deps.wakeDispatcher();
      return { delivery: toQueuedDeliveryView(result.delivery) };
  }
}

export async function recoverWebhookDeliveries(
  deps: RedeliveryDeps,
  tenantId: string,
  webhookId: string | null,
  input: { since: string; until?: string },
) {
  const since = new Date(input.since);
  const until = input.until === undefined ? null : new Date(input.until);
  if (until !== null && until.getTime() <= since.getTime()) {
    throw new ApiError('INVALID_FIELD_VALUE', { field: 'until', reason: 'must be after since' });
  }
  const webhook = await webhookOf(deps.webhooks, tenantId, webhookId);
  const result = await deps.webhooks.recover(
    webhook,
    { since, until },
    RECOVER_MAX_DELIVERIES,
    deps.firstDelayMs,
  );
  if (result.outcome === 'disabled') {
    throw new ApiError('WEBHOOK_DISABLED');
  }
  if (result.deliveries.length > 0) {
    deps.wakeDispatcher();
  }
  return {
    recovered: result.deliveries.length,
    hasMore: result.hasMore,
    deliveries: result.deliveries.map(toQueuedDeliveryView),
  };
}
