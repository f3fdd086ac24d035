import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_FAILURES,
  disablesWebhook,
  isHealthy,
  nextAttemptAt,
} from './delivery-policy.js';

const delays = [0, 60_000, 120_000, 240_000];
const t = new Date('2026-01-01T00:00:00.000Z');

describe('nextAttemptAt', () => {
  it.each([
    [1, 60_000],
    [2, 120_000],
    [3, 240_000],
  ])('after failed attempt %i waits %i ms from its end', (made, wait) => {
    expect(nextAttemptAt(made, delays, t)?.getTime()).toBe(t.getTime() + wait);
  });

  it('never schedules a fifth attempt', () => {
    expect(nextAttemptAt(4, delays, t)).toBeNull();
  });

  it('follows shortened delays', () => {
    expect(nextAttemptAt(1, [0, 200, 400, 800], t)?.getTime()).toBe(t.getTime() + 200);
  });
});

describe('health', () => {
  it('is healthy only at zero failures', () => {
    expect(isHealthy(0)).toBe(true);
    expect(isHealthy(1)).toBe(false);
  });

  it('disables at the 10th consecutive failure', () => {
    expect(DISABLE_AFTER_FAILURES).toBe(10);
    expect(disablesWebhook(9)).toBe(false);
    expect(disablesWebhook(10)).toBe(true);
  });
});
