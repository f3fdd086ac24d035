/**
 * When to try a delivery again, and when a webhook is switched off: pure, so the dispatcher only
 * stores and obeys the answers (decisions.md, "Webhooks and events").
 */

/** Consecutive failed attempts after which a webhook is disabled (specification, Limits). */
export const DISABLE_AFTER_FAILURES = 10;

/**
 * The time of the next attempt after attempt number `attemptsMade` failed at `endedAt`, or null
 * when that was the last one. `delays[i]` is the delay before attempt i + 1
 * (WEBHOOK_RETRY_DELAYS_MS), each counted from the end of the previous attempt.
 *
 * @example nextAttemptAt(1, [0, 60000, 120000, 240000], t) // t + 60 s
 */
export function nextAttemptAt(
  attemptsMade: number,
  delays: readonly number[],
  endedAt: Date,
): Date | null {
  if (attemptsMade >= delays.length) {
    return null;
  }
  return new Date(endedAt.getTime() + (delays[attemptsMade] ?? 0));
}

/** A webhook is healthy while its last attempts did not fail. */
export function isHealthy(consecutiveFailures: number): boolean {
  return consecutiveFailures === 0;
}

/** Whether the failure that brought the count to `consecutiveFailures` disables the webhook. */
export function disablesWebhook(consecutiveFailures: number): boolean {
  return consecutiveFailures >= DISABLE_AFTER_FAILURES;
}

/**
 * Milliseconds to wait after failed attempt number `attemptsMade` before the next one, or null when
 * that was the last (the database adds it to its own clock).
 */
export function retryDelayAfter(attemptsMade: number, delays: readonly number[]): number | null {
  return attemptsMade >= delays.length ? null : (delays[attemptsMade] ?? 0);
}
