/**
 * Webhooks: their records, the store, the URL check made when one is given and the sender of a
 * signed delivery.
 */
import type { WebhookFilters } from '../../domain/webhooks/webhook-filters.js';
import type { Page } from './common.js';

/** Which attempts of a delivery log to list (an extension; every field optional). */
export interface AttemptFilter {
  /** Only succeeded (true) or only failed (false) attempts. */
  readonly success?: boolean;
  /** Only attempts of this event (`scan.completed`, …, `webhook.test`). */
  readonly event?: string;
  /** Only the attempts of this delivery (its del-<uuid> without the prefix). */
  readonly deliveryId?: string;
}

export type WebhookUrlCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: 'INVALID_WEBHOOK_URL' | 'WEBHOOK_URL_UNREACHABLE';
      readonly reason: string;
    };

/** Checks a webhook or callback URL when it is given (creation, PATCH, a scan's callbackUrl). */
export interface WebhookUrlChecker {
  check(url: string): Promise<WebhookUrlCheck>;
}

export interface WebhookRecord {
  /** The stored UUID; the API shows `wh-<uuid>`. */
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly url: string;
  readonly secret: string;
  readonly events: readonly string[];
  readonly isActive: boolean;
  readonly consecutiveFailures: number;
  readonly lastTriggeredAt: Date | null;
  readonly lastStatusCode: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** An extension: which scan.completed events it gets (webhook-filters.ts); null: all. */
  readonly filters: WebhookFilters | null;
}

export interface WebhookPatch {
  readonly name?: string;
  readonly url?: string;
  readonly events?: readonly string[];
  readonly isActive?: boolean;
  /** null removes the filters. */
  readonly filters?: WebhookFilters | null;
}

export interface DeliveryAttemptRecord {
  readonly deliveryId: string;
  /** The delivery the attempt's delivery sends again (a redelivery), else null. */
  readonly redeliveryOf: string | null;
  readonly event: string;
  readonly attempt: number;
  readonly statusCode: number;
  readonly success: boolean;
  readonly responseTimeMs: number;
  readonly error: string | null;
  readonly nextAttemptAt: Date | null;
  readonly attemptedAt: Date;
}

export interface WebhookStore {
  /**
   * Inserts the webhook unless its tenant already has `maxWebhooks` (active or disabled): then
   * 'limit-reached'. Concurrent inserts of one tenant are counted one after the other.
   */
  insert(
    webhook: {
      id: string;
      tenantId: string;
      name: string;
      url: string;
      secret: string;
      events: readonly string[];
      filters: WebhookFilters | null;
    },
    maxWebhooks: number,
  ): Promise<WebhookRecord | 'limit-reached'>;
  list(tenantId: string, page: Page): Promise<{ webhooks: WebhookRecord[]; total: number }>;
  get(tenantId: string, id: string): Promise<WebhookRecord | null>;
  /** `isActive: true` also resets consecutiveFailures (decisions.md). */
  update(tenantId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null>;
  /** Deletes the webhook with its pending deliveries and their log. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /** One page of the webhook's delivery log, newest first, of the attempts `filter` keeps. */
  listAttempts(
    tenantId: string,
    webhookId: string,
    page: Page,
    filter?: AttemptFilter,
  ): Promise<{ attempts: DeliveryAttemptRecord[]; total: number }>;
  /**
   * Queues the delivery `deliveryId` of the webhook again: a new delivery with the same body,
   * attempts 1..4, first due `firstDelayMs` from now; refused for a disabled webhook (checked
   * after the delivery was found), a test delivery and a message still pending. Redeliveries and recoveries of one webhook
   * are taken one at a time (over every process).
   */
  redeliver(
    webhook: WebhookRecord,
    deliveryId: string,
    firstDelayMs: number,
  ): Promise<RedeliveryOutcome>;
  /**
   * Queues again, oldest first and at most `limit`, every event delivery of the webhook created in
   * [since, until) that is the newest delivery of its message and ended failed or cancelled.
   * `hasMore`: more such deliveries were left for another call. Nothing is queued for a disabled
   * webhook.
   */
  recover(
    webhook: WebhookRecord,
    window: { readonly since: Date; readonly until: Date | null },
    limit: number,
    firstDelayMs: number,
  ): Promise<
    | { readonly outcome: 'disabled' }
    | {
        readonly outcome: 'queued';
        readonly deliveries: QueuedDeliveryRecord[];
        readonly hasMore: boolean;
      }
  >;
  /**
   * Starts a test delivery (its record, in flight until `leaseMs` from now) unless the tenant
   * already has `maxConcurrent` tests in flight, over every process; then `retryAfterMs` is how
   * long until the oldest of them reaches its deadline.
   */
  beginTest(
    webhook: WebhookRecord,
    delivery: { id: string; body: string; eventTimestamp: string },
    limits: TestLimits,
  ): Promise<
    { readonly started: true } | { readonly started: false; readonly retryAfterMs: number }
  >;
  /**
   * Ends a test delivery begun with beginTest and logs its one attempt; touches only
   * lastTriggeredAt and lastStatusCode. Nothing is logged if the webhook was deleted meanwhile.
   */
  recordTest(
    webhook: WebhookRecord,
    delivery: { id: string },
    outcome: WebhookSendOutcome,
  ): Promise<void>;
}

/** A delivery queued by a redelivery or a recovery, before its first attempt. */
export interface QueuedDeliveryRecord {
  readonly id: string;
  readonly event: string;
  readonly redeliveryOf: string;
  /** Sent as `webhook-id`: the first delivery of the chain. */
  readonly messageId: string;
  readonly createdAt: Date;
  readonly nextAttemptAt: Date;
}

/** What a redelivery request found. */
export type RedeliveryOutcome =
  | { readonly outcome: 'queued'; readonly delivery: QueuedDeliveryRecord }
  | { readonly outcome: 'not-found' }
  /** The webhook is disabled (isActive false). */
  | { readonly outcome: 'disabled' }
  /** A webhook.test delivery: tests are sent by POST …/test, never queued. */
  | { readonly outcome: 'test' }
  /** A delivery of the same message is still pending (its retries, or an earlier redelivery). */
  | { readonly outcome: 'in-progress' };

/** How many test deliveries one tenant may have in flight, and how long one counts at most. */
export interface TestLimits {
  /** WEBHOOK_TEST_MAX_CONCURRENT. */
  readonly maxConcurrent: number;
  /** The send's deadline (WEBHOOK_TIMEOUT_MS) plus a margin for recording it. */
  readonly leaseMs: number;
}

export interface WebhookSendOutcome {
  readonly statusCode: number;
  readonly success: boolean;
  readonly responseTimeMs: number;
  readonly error: string | null;
}

/** Sends one signed delivery (the undici client in production). */
export interface WebhookSender {
  send(request: {
    url: string;
    headers: Record<string, string>;
    body: string;
  }): Promise<WebhookSendOutcome>;
}
