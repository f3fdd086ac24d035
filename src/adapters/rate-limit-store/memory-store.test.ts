import { afterEach, describe, expect, it } from 'vitest';
import { perKeyWindows, type WindowSpec } from '../../domain/rate-limits/windows.js';
import { createMemoryRateLimitStore } from './memory-store.js';
import type { RateLimitStore } from './rate-limit-store.js';

/** 2026-11-23T10:00:00Z, the start of a UTC day, hour and minute. */
const DAY_START_MS = Date.UTC(2026, 10, 23, 10, 0, 0);

let store: RateLimitStore | null = null;
let clockMs = DAY_START_MS;

function open(): RateLimitStore {
  store = createMemoryRateLimitStore({ now: () => clockMs });
  return store;
}

afterEach(async () => {
  await store?.close();
  store = null;
  clockMs = DAY_START_MS;
});

const windows: WindowSpec[] = perKeyWindows({ perMinute: 2, perHour: 3, perDay: 100 });
const used = (decision: { windows: readonly { used: number }[] }) =>
  decision.windows.map((w) => w.used);

describe('memory rate-limit store', () => {
  it('admits in every window at once or in none: a denied request counts nowhere', async () => {
    const limits = open();
    expect((await limits.consume('k', windows)).allowed).toBe(true);
    expect((await limits.consume('k', windows)).allowed).toBe(true);
    const denied = await limits.consume('k', windows);
    expect(denied.allowed).toBe(false);
    expect(used(denied)).toEqual([2, 2, 2]);

    clockMs += 60_000;
    const nextMinute = await limits.consume('k', windows);
    expect(nextMinute.allowed).toBe(true);
    expect(used(nextMinute)).toEqual([1, 3, 3]);
    const hourFull = await limits.consume('k', windows);
    expect(hourFull.allowed).toBe(false);
    expect(used(hourFull)).toEqual([1, 3, 3]);
  });

  it('reports when each window resets, aligned to UTC boundaries', async () => {
    const limits = open();
    clockMs = DAY_START_MS + 90_500;
    const decision = await limits.consume('k', windows);
    expect(decision.nowMs).toBe(clockMs);
    expect(decision.windows.map((w) => w.resetAt * 1000)).toEqual([
      DAY_START_MS + 120_000,
      DAY_START_MS + 3_600_000,
      Date.UTC(2026, 10, 24),
    ]);
  });

  it('peeks without counting, also on a bucket it has never seen', async () => {
    const limits = open();
    expect(used(await limits.peek('fresh', windows))).toEqual([0, 0, 0]);
    await limits.consume('k', windows);
    const peeked = await limits.peek('k', windows);
    expect(peeked.allowed).toBe(true);
    expect(used(peeked)).toEqual([1, 1, 1]);
    expect(used(await limits.peek('k', windows))).toEqual([1, 1, 1]);
  });

  it('keeps buckets apart', async () => {
    const limits = open();
    await limits.consume('a', windows);
    await limits.consume('a', windows);
    expect((await limits.consume('a', windows)).allowed).toBe(false);
    expect((await limits.consume('b', windows)).allowed).toBe(true);
  });

  it('lets a full minute through on each side of a boundary (the documented fixed-window effect)', async () => {
    const limits = open();
    const perMinute = perKeyWindows({ perMinute: 60, perHour: 1000, perDay: 10000 });
    clockMs = DAY_START_MS + 59_900;
    for (let i = 0; i < 60; i++) {
      expect((await limits.consume('k', perMinute)).allowed).toBe(true);
    }
    expect((await limits.consume('k', perMinute)).allowed).toBe(false);
    clockMs = DAY_START_MS + 60_100;
    for (let i = 0; i < 60; i++) {
      expect((await limits.consume('k', perMinute)).allowed).toBe(true);
    }
    expect(used(await limits.peek('k', perMinute))).toEqual([60, 120, 120]);
  });

  // The sweep only frees memory; what a client can observe is that every window starts again.
  it('starts every window again from zero once all have ended, with the sweep running', async () => {
    store = createMemoryRateLimitStore({ now: () => clockMs, sweepIntervalMs: 5 });
    await store.consume('k', windows);
    clockMs += 86_400_000;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(used(await store.consume('k', windows))).toEqual([1, 1, 1]);
  });
});
