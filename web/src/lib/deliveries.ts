/**
 * The delivery log as the API gives it (one record per attempt, newest first) read for a person:
 * the state of each attempt, and which rows offer Redeliver.
 */
import type { operations } from '../../../src/client/index.js';
import { parseDeliveryId } from '../../../src/domain/webhooks/prefixed-ids.js';
import { DELIVERY_LOG_EVENTS, TEST_EVENT } from '../../../src/domain/webhooks/webhook-events.js';
import { oneOf } from './issue-filters.js';

export type DeliveryAttempt =
  operations['listWebhookDeliveries']['responses'][200]['content']['application/json']['data']['deliveries'][number];
type DeliveryQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;
/** The delivery log's filters (the API's extensions), as the page's address holds them. */
export type DeliveryFilter = Pick<DeliveryQuery, 'success' | 'event' | 'deliveryId'>;

/** The address's `outcome` values and the `success` each asks the API for. */
export const OUTCOMES = { delivered: true, failed: false } as const;

/**
 * The log's filters from the page's query string (`outcome`, `event`, `delivery`); a value the
 * API would refuse is dropped rather than sent.
 */
export function deliveryFilterFrom(params: URLSearchParams): DeliveryFilter {
  const filter: DeliveryFilter = {};
  const outcome = params.get('outcome');
  if (outcome === 'delivered' || outcome === 'failed') {
    filter.success = OUTCOMES[outcome];
  }
  const event = oneOf(DELIVERY_LOG_EVENTS, params.get('event'));
  if (event !== undefined) {
    filter.event = event;
  }
  const delivery = params.get('delivery');
  if (delivery !== null && parseDeliveryId(delivery) !== null) {
    filter.deliveryId = delivery;
  }
  return filter;
}

/**
 * delivered: the receiver answered 2xx; retrying: failed, and its next attempt is still to come;
 * failed: failed, and either a later attempt followed (it is above it in the log) or none will.
 */
export type AttemptState = 'delivered' | 'retrying' | 'failed';

export interface LogRow {
  readonly attempt: DeliveryAttempt;
  readonly state: AttemptState;
  /** When the next attempt is due: on the newest attempt of a delivery still retrying only. */
  readonly nextAttemptAt: string | null;
  /**
   * Whether the row offers Redeliver: the newest attempt of its delivery on the page, once that
   * delivery has no attempt to come, for any event but the test event (which the API never sends
   * again). The API still refuses while another delivery of the same event is pending; the page
   * shows that answer.
   */
  readonly redeliverable: boolean;
}

/**
 * The log's rows (newest first, as the API gives them) with what each one means now. A log
 * filtered by outcome (`byOutcome`) may leave out a delivery's later attempts, so a failed
 * attempt there is retrying only while its next attempt is due after `now`, not because nothing
 * newer of its delivery is shown.
 */
export function readDeliveryLog(
  attempts: readonly DeliveryAttempt[],
  options: { byOutcome?: boolean; now?: number } = {},
): LogRow[] {
  const now = options.now ?? Date.now();
  const seen = new Set<string>();
  return attempts.map((attempt) => {
    const newest = !seen.has(attempt.id);
    seen.add(attempt.id);
    const pending =
      attempt.nextAttemptAt !== null &&
      (options.byOutcome ? Date.parse(attempt.nextAttemptAt) > now : newest);
    return {
      attempt,
      state: attempt.success ? 'delivered' : pending ? 'retrying' : 'failed',
      nextAttemptAt: pending ? attempt.nextAttemptAt : null,
      redeliverable: newest && attempt.nextAttemptAt === null && attempt.event !== TEST_EVENT,
    };
  });
}

/** "del-1234abcd…" → its first 8 characters after the prefix, for a narrow column. */
export function shortDeliveryId(id: string): string {
  return id.startsWith('del-') ? id.slice(4, 12) : id.slice(0, 8);
}

/** A Date as a datetime-local input's value (local time, to the minute). */
export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The recover call's window from two datetime-local values (until may be empty: now). */
export function recoverWindow(
  since: string,
  until: string,
): { ok: true; value: { since: string; until?: string } } | { ok: false; problem: string } {
  const start = new Date(since);
  if (since === '' || Number.isNaN(start.getTime())) {
    return { ok: false, problem: 'Give the time to recover from.' };
  }
  if (until === '') {
    return { ok: true, value: { since: start.toISOString() } };
  }
  const end = new Date(until);
  if (Number.isNaN(end.getTime()) || end.getTime() <= start.getTime()) {
    return { ok: false, problem: 'The end of the window must come after its start.' };
  }
  return { ok: true, value: { since: start.toISOString(), until: end.toISOString() } };
}
