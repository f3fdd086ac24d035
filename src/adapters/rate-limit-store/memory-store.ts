import {
  type RateLimitDecision,
  type WindowSpec,
  type WindowState,
  windowStart,
} from '../../domain/rate-limits/windows.js';
import type { RateLimitStore } from './rate-limit-store.js';

/** One window's counter: how many requests were admitted in the window that began at `start`. */
interface WindowCounter {
  readonly seconds: number;
  start: number;
  count: number;
}

/** A bucket's counters, one per window length, and when the last of them ends. */
interface BucketCounters {
  readonly windows: WindowCounter[];
  /** Epoch ms after which every counter belongs to a past window and the bucket may be dropped. */
  expiresAtMs: number;
}

/**
 * Counters in this process's memory (the default; one API node). Check and increment run
 * synchronously with no `await` in between, so concurrent requests cannot both take the last slot.
 *
 * One map entry per bucket, holding a counter per window length that restarts when its window
 * has moved on. An earlier version keyed the map by `bucket:seconds:windowStart` strings: building
 * and hashing three fresh strings per request was 2.5 % of the server's CPU in the issue 2
 * benchmark profile.
 */
export function createMemoryRateLimitStore(
  options: { now?: () => number; sweepIntervalMs?: number } = {},
): RateLimitStore {
  const now = options.now ?? Date.now;
  const buckets = new Map<string, BucketCounters>();
  const sweep = setInterval(() => {
    const at = now();
    for (const [bucket, counters] of buckets) {
      if (counters.expiresAtMs <= at) {
        buckets.delete(bucket);
      }
    }
  }, options.sweepIntervalMs ?? 60_000);
  sweep.unref();

  /** The bucket's counter for a window length, restarted when its window is no longer current. */
  function counterFor(counters: BucketCounters, seconds: number, start: number): WindowCounter {
    let counter = counters.windows.find((c) => c.seconds === seconds);
    if (counter === undefined) {
      counter = { seconds, start, count: 0 };
      counters.windows.push(counter);
    } else if (counter.start !== start) {
      counter.start = start;
      counter.count = 0;
    }
    return counter;
  }

  function evaluate(
    bucket: string,
    windows: readonly WindowSpec[],
    count: boolean,
  ): RateLimitDecision {
    const nowMs = now();
    let counters = buckets.get(bucket);
    if (counters === undefined) {
      counters = { windows: [], expiresAtMs: 0 };
      if (count) {
        buckets.set(bucket, counters);
      }
    }
    const current = windows.map((w) =>
      counterFor(counters, w.seconds, windowStart(nowMs, w.seconds)),
    );
    const allowed = windows.every((w, i) => (current[i]?.count ?? 0) < w.limit);
    if (allowed && count) {
      for (const counter of current) {
        counter.count += 1;
        counters.expiresAtMs = Math.max(
          counters.expiresAtMs,
          (counter.start + counter.seconds) * 1000,
        );
      }
    }
    const states: WindowState[] = windows.map((w, i) => {
      const counter = current[i];
      const start = counter?.start ?? windowStart(nowMs, w.seconds);
      return {
        name: w.name,
        seconds: w.seconds,
        limit: w.limit,
        used: counter?.count ?? 0,
        resetAt: start + w.seconds,
      };
    });
    return { allowed, nowMs, windows: states };
  }

  return {
    consume: async (bucket, windows) => evaluate(bucket, windows, true),
    peek: async (bucket, windows) => evaluate(bucket, windows, false),
    close: async () => clearInterval(sweep),
  };
}
