/**
 * Records the end of one attempt, in one transaction: the attempt's log row, the delivery's next
 * state (delivered; or the next attempt scheduled from now, WEBHOOK_RETRY_DELAYS_MS; or failed after
 * the last), and the webhook's health. A success sets consecutiveFailures to 0; a failure adds one,
 * and the failure that reaches 10 disables the webhook and cancels its pending deliveries, this one
 * included (a test delivery in flight is left to its test). The attempt's lease ends, which frees
 * its place under the tenant's cap. The webhook row's lock orders concurrent attempts of one
 * webhook by completion time.
 */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { DISABLE_AFTER_FAILURES, retryDelayAfter } from '../../domain/webhooks/delivery-policy.js';
import type { WebhookSendOutcome } from '../../use-cases/ports/webhooks.js';
import type { Database } from '../db/database.js';
import type { ClaimedDelivery } from './claim-deliveries.js';

export async function recordAttempt(
  db: Kysely<Database>,
  delivery: ClaimedDelivery,
  outcome: WebhookSendOutcome,
  retryDelaysMs: readonly number[],
): Promise<AttemptRecorded> {
  return db.transaction().execute(async (trx) => {
    // The webhook may have been deleted (with its deliveries) while the attempt was in flight.
    // No row lock here: locks are taken webhook first, then deliveries (as below), so that two
    // attempts of one webhook ending together cannot deadlock.
    const exists = await trx
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('id', '=', delivery.id)
      .executeTakeFirst();
    if (exists === undefined) {
      return { disabledWebhook: false, ended: null, cancelledEvents: [] };
    }
    let disabled = false;
    let disabledNow = false;
    let cancelledEvents: string[] = [];
    if (delivery.kind === 'webhook' && delivery.webhookId !== null) {
      const health = await trx
        .updateTable('webhooks')
        .set({
          consecutive_failures: outcome.success ? 0 : sql`consecutive_failures + 1`,
          is_active: outcome.success
            ? sql`is_active`
            : sql`case when consecutive_failures + 1 >= ${DISABLE_AFTER_FAILURES} then false else is_active end`,
          last_triggered_at: sql`now()`,
          last_status_code: outcome.statusCode,
        })
        .where('id', '=', delivery.webhookId)
        .returning(['consecutive_failures', 'is_active'])
        .executeTakeFirst();
      disabled = health !== undefined && !health.is_active;
      // This attempt's failure was the one that disabled it (later ones in flight find it so).
      disabledNow = disabled && health?.consecutive_failures === DISABLE_AFTER_FAILURES;
      if (disabled) {
        const cancelled = await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'cancelled', next_attempt_at: null })
          .where('webhook_id', '=', delivery.webhookId)
          .where('status', '=', 'pending')
          .where('kind', '=', 'webhook')
          .where('id', '<>', delivery.id)
          .returning('event')
          .execute();
        cancelledEvents = cancelled.map((row) => row.event);
      }
    }
    const delay =
      outcome.success || disabled ? null : retryDelayAfter(delivery.attempt, retryDelaysMs);
    const status = outcome.success
      ? 'delivered'
      : disabled
        ? 'cancelled'
        : delay === null
          ? 'failed'
          : 'pending';
    const next = delay === null ? null : sql<Date>`now() + ${delay} * interval '1 millisecond'`;
    // The lease ends whatever the delivery's state: a delivery cancelled while its attempt was in
    // flight stayed leased, and so counted against its tenant's cap, until now. Only a pending
    // delivery gets this attempt's state (`updated` undefined: it had ended before, and keeps
    // its state and next_attempt_at).
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({ status, next_attempt_at: next, leased_until: null })
      .where('id', '=', delivery.id)
      .where('status', '=', 'pending')
      .returning('next_attempt_at')
      .executeTakeFirst();
    const afterAttempt = await (updated === undefined
      ? trx
          .updateTable('webhook_deliveries')
          .set({ leased_until: null })
          .where('id', '=', delivery.id)
          .returning('next_attempt_at')
          .executeTakeFirst()
      : Promise.resolve(updated));
    await trx
      .insertInto('webhook_attempts')
      .values({
        id: randomUUID(),
        delivery_id: delivery.id,
        webhook_id: delivery.webhookId,
        tenant_id: delivery.tenantId,
        event: delivery.event,
        attempt: delivery.attempt,
        status_code: outcome.statusCode,
        success: outcome.success,
        response_time_ms: Math.round(outcome.responseTimeMs),
        error: outcome.error,
        next_attempt_at: afterAttempt?.next_attempt_at ?? null,
      })
      .execute();
    return {
      disabledWebhook: disabledNow,
      ended: updated === undefined || status === 'pending' ? null : status,
      cancelledEvents,
    };
  });
}

/** What recording an attempt did, for the log and the metrics. */
export interface AttemptRecorded {
  /** This attempt's failure disabled the webhook (its DISABLE_AFTER_FAILURES-th in a row). */
  readonly disabledWebhook: boolean;
  /** The delivery's final state when this attempt gave it one; null: pending, or ended before. */
  readonly ended: 'delivered' | 'failed' | 'cancelled' | null;
  /** The events of the other pending deliveries cancelled because the webhook was disabled. */
  readonly cancelledEvents: readonly string[];
}
