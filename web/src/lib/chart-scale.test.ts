import { describe, expect, it } from 'vitest';
import { barsFrom, countAxis, linearScale, quotaShare } from './chart-scale.js';

describe('countAxis', () => {
  it('covers the maximum from zero on a 1-2-5 step', () => {
    expect(countAxis(7)).toEqual({ max: 8, ticks: [0, 2, 4, 6, 8] });
    expect(countAxis(10)).toEqual({ max: 10, ticks: [0, 5, 10] });
    expect(countAxis(130)).toEqual({ max: 150, ticks: [0, 50, 100, 150] });
    expect(countAxis(1999)).toEqual({ max: 2000, ticks: [0, 500, 1000, 1500, 2000] });
  });

  it('keeps counts whole: small maxima step by one', () => {
    expect(countAxis(1)).toEqual({ max: 1, ticks: [0, 1] });
    expect(countAxis(3)).toEqual({ max: 3, ticks: [0, 1, 2, 3] });
  });

  it('gives 0..1 for an empty, zero or broken series', () => {
    for (const value of [0, -4, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(countAxis(value)).toEqual({ max: 1, ticks: [0, 1] });
    }
  });

  it('honours the tick target', () => {
    expect(countAxis(100, 10).ticks).toHaveLength(11);
    expect(countAxis(100, 2)).toEqual({ max: 100, ticks: [0, 50, 100] });
  });
});

describe('linearScale', () => {
  it('maps the domain onto the length and clamps outside it', () => {
    const scale = linearScale(8, 200);
    expect(scale(0)).toBe(0);
    expect(scale(2)).toBe(50);
    expect(scale(8)).toBe(200);
    expect(scale(16)).toBe(200);
    expect(scale(-1)).toBe(0);
  });

  it('maps everything to 0 for an empty domain', () => {
    expect(linearScale(0, 200)(5)).toBe(0);
  });
});

describe('barsFrom', () => {
  it('lists non-zero counts, largest first, ties by label', () => {
    expect(barsFrom({ zap: 2, nmap: 5, trivy: 0, nikto: 2 })).toEqual([
      { label: 'nmap', value: 5 },
      { label: 'nikto', value: 2 },
      { label: 'zap', value: 2 },
    ]);
    expect(barsFrom({})).toEqual([]);
  });
});

describe('quotaShare', () => {
  it('is the used share, clamped to 0..1', () => {
    expect(quotaShare(25, 100)).toBe(0.25);
    expect(quotaShare(120, 100)).toBe(1);
    expect(quotaShare(0, 0)).toBe(0);
    expect(quotaShare(3, 0)).toBe(1);
  });
});
