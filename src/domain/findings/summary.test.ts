import { describe, expect, it } from 'vitest';
import type { FindingsSummary, Severity } from './finding.js';
import { emptySummary, riskScore, summarizeFindings } from './summary.js';

function summaryOf(counts: Partial<FindingsSummary>): FindingsSummary {
  return { ...emptySummary(), ...counts };
}

describe('emptySummary', () => {
  it('has all five keys at zero, most severe first', () => {
    const summary = emptySummary();
    expect(summary).toEqual({ critical: 0, high: 0, medium: 0, low: 0, info: 0 });
    expect(Object.keys(summary)).toEqual(['critical', 'high', 'medium', 'low', 'info']);
  });
  it('returns a fresh object every time', () => {
    const a = emptySummary();
    a.high = 3;
    expect(emptySummary().high).toBe(0);
  });
});

describe('summarizeFindings', () => {
  it('counts per severity and keeps the zeros', () => {
    const severities: Severity[] = ['high', 'info', 'high', 'critical', 'info', 'info'];
    expect(summarizeFindings(severities.map((severity) => ({ severity })))).toEqual({
      critical: 1,
      high: 2,
      medium: 0,
      low: 0,
      info: 3,
    });
  });
  it('gives the empty summary for no findings', () => {
    expect(summarizeFindings([])).toEqual(emptySummary());
  });
});

describe('riskScore', () => {
  it('is 0 with no findings', () => {
    expect(riskScore(emptySummary())).toBe(0);
  });
  it('is 0 with only info findings', () => {
    expect(riskScore(summaryOf({ info: 500 }))).toBe(0);
  });
  it('is 40 for one critical', () => {
    expect(riskScore(summaryOf({ critical: 1 }))).toBe(40);
  });
  it('matches the worked examples of its documentation', () => {
    expect(riskScore(summaryOf({ critical: 1, high: 1 }))).toBe(52);
    expect(riskScore(summaryOf({ high: 2, medium: 3 }))).toBe(45);
    expect(riskScore(summaryOf({ low: 1 }))).toBe(1);
    expect(riskScore(summaryOf({ low: 100 }))).toBe(63);
  });
  it('grows with each low finding, approaches 100 and never exceeds it', () => {
    let previous = 0;
    for (let low = 0; low <= 2000; low += 1) {
      const score = riskScore(summaryOf({ low }));
      expect(score).toBeGreaterThanOrEqual(previous);
      expect(score).toBeLessThanOrEqual(100);
      previous = score;
    }
    expect(riskScore(summaryOf({ low: 200 }))).toBeLessThan(100);
    expect(previous).toBe(100);
  });
  it('is an integer within 0..100 even for huge counts', () => {
    const score = riskScore(summaryOf({ critical: 1e9, high: 1e9, medium: 1e9, low: 1e9 }));
    expect(score).toBe(100);
    expect(Number.isInteger(riskScore(summaryOf({ medium: 7, low: 3 })))).toBe(true);
  });
  it('treats negative and NaN counts as zero', () => {
    expect(riskScore(summaryOf({ critical: -3, high: Number.NaN, medium: 1 }))).toBe(5);
  });
});
