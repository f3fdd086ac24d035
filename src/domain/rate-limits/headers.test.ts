import { describe, expect, it } from 'vitest';
import { maskAddressForLimit, rateLimitHeaders, retryAfterSeconds } from './headers.js';
import type { RateLimitDecision } from './windows.js';

const nowMs = Date.UTC(2026, 10, 23, 12, 0, 30);
const minuteReset = Date.UTC(2026, 10, 23, 12, 1, 0) / 1000;
const hourReset = Date.UTC(2026, 10, 23, 13, 0, 0) / 1000;
const dayReset = Date.UTC(2026, 10, 24) / 1000;

function decision(
  used: [number, number, number],
  limits: [number, number, number] = [60, 1000, 10000],
): RateLimitDecision {
  return {
    allowed: used.every((u, i) => u <= (limits[i] ?? 0)),
    nowMs,
    windows: [
      { name: 'minute', seconds: 60, limit: limits[0], used: used[0], resetAt: minuteReset },
      { name: 'hour', seconds: 3600, limit: limits[1], used: used[1], resetAt: hourReset },
      { name: 'day', seconds: 86400, limit: limits[2], used: used[2], resetAt: dayReset },
    ],
  };
}

describe('rateLimitHeaders', () => {
  it('reports the window with the lowest remaining', () => {
    expect(rateLimitHeaders(decision([1, 995, 10]))).toEqual({
      limit: 1000,
      remaining: 5,
      reset: hourReset,
    });
  });
  it('breaks ties with the shortest window', () => {
    expect(rateLimitHeaders(decision([55, 995, 9995]))).toEqual({
      limit: 60,
      remaining: 5,
      reset: minuteReset,
    });
  });
  it('never reports a negative remaining', () => {
    expect(rateLimitHeaders(decision([61, 0, 0])).remaining).toBe(0);
  });
});

describe('retryAfterSeconds', () => {
  it('waits until the minute resets when only the minute is exhausted', () => {
    expect(retryAfterSeconds(decision([60, 100, 100]))).toBe(30);
  });
  it('waits until the last exhausted window resets', () => {
    expect(retryAfterSeconds(decision([60, 100, 10000]))).toBe(dayReset - nowMs / 1000);
  });
  it('is at least one second', () => {
    const d = decision([60, 0, 0]);
    expect(retryAfterSeconds({ ...d, nowMs: minuteReset * 1000 - 10 })).toBe(1);
  });
});

describe('maskAddressForLimit', () => {
  it('keeps IPv4 and unwraps IPv4-mapped IPv6', () => {
    expect(maskAddressForLimit('203.0.113.9')).toBe('203.0.113.9');
    expect(maskAddressForLimit('::ffff:203.0.113.9')).toBe('203.0.113.9');
    for (const address of ['0.0.0.0', '10.0.0.1', '255.255.255.255']) {
      expect(maskAddressForLimit(address)).toBe(address);
    }
  });
  it('groups IPv6 addresses by their /64', () => {
    expect(maskAddressForLimit('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(maskAddressForLimit('2001:db8:1:2:bbbb::9')).toBe('2001:db8:1:2::/64');
  });
  it('returns what it cannot parse unchanged', () => {
    expect(maskAddressForLimit('unknown')).toBe('unknown');
  });
});
