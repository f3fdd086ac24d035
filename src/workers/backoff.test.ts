import { describe, expect, it } from 'vitest';
import { backoffDelay, pause, STORE_END_BACKOFF } from './backoff.js';

describe('backoffDelay', () => {
  it('starts at the initial delay and doubles up to the cap', () => {
    const delays = Array.from({ length: 8 }, (_, retry) => backoffDelay(retry, STORE_END_BACKOFF));
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('stays at the cap however long the outage lasts', () => {
    expect(backoffDelay(1_000, STORE_END_BACKOFF)).toBe(5_000);
    expect(backoffDelay(Number.MAX_SAFE_INTEGER, STORE_END_BACKOFF)).toBe(5_000);
  });

  it('treats a negative or fractional retry as the nearest whole one below, never below zero', () => {
    expect(backoffDelay(-3, { initialMs: 100, maxMs: 1_000 })).toBe(100);
    expect(backoffDelay(2.9, { initialMs: 100, maxMs: 1_000 })).toBe(400);
  });

  it('never exceeds a cap below the initial delay', () => {
    expect(backoffDelay(0, { initialMs: 500, maxMs: 200 })).toBe(200);
  });
});

describe('pause', () => {
  it('resolves after the delay', async () => {
    const started = performance.now();
    await pause(50, new AbortController().signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('ends early when its signal aborts', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const paused = pause(60_000, controller.signal);
    setTimeout(() => controller.abort(), 20);
    await paused;
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('resolves at once when its signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const started = performance.now();
    await pause(60_000, controller.signal);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
