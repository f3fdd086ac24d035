import { describe, expect, it } from 'vitest';
import { quotaPeriod, quotaRemaining } from './quota-period.js';

describe('quotaPeriod', () => {
  it.each([
    [
      '2026-11-23T12:00:00.000Z',
      '2026-11-01T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
      '2026-11-01',
    ],
    [
      '2026-12-31T23:59:59.999Z',
      '2026-12-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
      '2026-12-01',
    ],
    [
      '2027-01-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
      '2027-02-01T00:00:00.000Z',
      '2027-01-01',
    ],
    [
      '2028-02-29T10:00:00.000Z',
      '2028-02-01T00:00:00.000Z',
      '2028-03-01T00:00:00.000Z',
      '2028-02-01',
    ],
  ])('%s is in the month from %s to %s', (now, start, end, key) => {
    const period = quotaPeriod(new Date(now));
    expect(period.start.toISOString()).toBe(start);
    expect(period.end.toISOString()).toBe(end);
    expect(period.key).toBe(key);
  });

  it('never reports a negative remainder', () => {
    expect(quotaRemaining(5, 2)).toBe(3);
    expect(quotaRemaining(5, 7)).toBe(0);
  });
});
