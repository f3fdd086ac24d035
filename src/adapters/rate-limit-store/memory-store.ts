import {
  type RateLimitDecision,
  type WindowSpec,
  type WindowState,
  windowStart,
} from '../../domain/rate-limits/windows.js';
import type { RateLimitStore } from './rate-limit-store.js';

interface Counter {
  count: number;
  /** Epoch ms after which the counter belongs to a past window and may be dropped. */
  expiresAtMs: number;
}

/**
 * Counters in this process's memory (the default; one API node). Check and increment run
 * synchronously with no `await` in between, so concurrent requests cannot both take the last slot.
 */
export function createMemoryRateLimitStore(
  options: { now?: () => number; sweepIntervalMs?: number } = {},
): RateLimitStore {
  const now = options.now ?? Date.now;
  const counters = new Map<string, Counter>();
  const sweep = setInterval(() => {
    const at = now();
    for (const [key, counter] of counters) {
      if (counter.expiresAtMs <= at) {
        counters.delete(key);
      }
    }
  }, options.sweepIntervalMs ?? 60_000);
  sweep.unref();

  function evaluate(
    bucket: string,
    windows: readonly WindowSpec[],
    count: boolean,
  ): RateLimitDecision {
    const nowMs = now();
    const keys = windows.map((w) => {
      const start = windowStart(nowMs, w.seconds);
      return { key: `${bucket}:${w.seconds}:${start}`, resetAt: start + w.seconds };
    });
    const used = keys.map(({ key }) => counters.get(key)?.count ?? 0);
    const allowed = windows.every((w, i) => (used[i] ?? 0) < w.limit);
    if (allowed && count) {
      keys.forEach(({ key, resetAt }, i) => {
        used[i] = (used[i] ?? 0) + 1;
        counters.set(key, { count: used[i] ?? 1, expiresAtMs: resetAt * 1000 });
      });
    }
    const states: WindowState[] = windows.map((w, i) => ({
      name: w.name,
      seconds: w.seconds,
      limit: w.limit,
      used: used[i] ?? 0,
      resetAt: keys[i]?.resetAt ?? 0,
    }));
    return { allowed, nowMs, windows: states };
  }

  return {
    consume: async (bucket, windows) => evaluate(bucket, windows, true),
    peek: async (bucket, windows) => evaluate(bucket, windows, false),
    close: async () => clearInterval(sweep),
  };
}
