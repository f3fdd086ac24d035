/**
 * Waiting between tries of a database call that found the database away: the delay arithmetic is
 * pure (backoffDelay), the wait itself (pause) ends early when the caller gives up.
 */

export interface Backoff {
  /** The delay before the first retry. */
  readonly initialMs: number;
  /** No delay is longer than this. */
  readonly maxMs: number;
}

/** How a worker retries storing the end of a scan: 250 ms, doubling up to 5 s. */
export const STORE_END_BACKOFF: Backoff = { initialMs: 250, maxMs: 5_000 };

/** The delay before retry number `retry` (0 for the first): `initialMs` doubled each time, capped. */
export function backoffDelay(retry: number, backoff: Backoff): number {
  const doublings = Math.max(0, Math.floor(retry));
  // 2 ** 1024 is Infinity, which the cap turns back into maxMs.
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** doublings);
}

/**
 * Resolves after `ms`, or as soon as `signal` aborts (at once when it already has). The timer does
 * not keep the process alive: a process that must stay up holds its own keep-alive.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
  });
}
