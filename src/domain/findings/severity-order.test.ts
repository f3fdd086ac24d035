import { describe, expect, it } from 'vitest';
import { SEVERITIES, type Severity } from './finding.js';
import { compareSeverity, maxSeverity, severityRank } from './severity-order.js';

describe('severityRank', () => {
  it('ranks critical 0 through info 4', () => {
    expect(SEVERITIES.map(severityRank)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('compareSeverity', () => {
  it('sorts the most severe first', () => {
    const shuffled: Severity[] = ['info', 'medium', 'critical', 'low', 'high', 'critical'];
    expect([...shuffled].sort(compareSeverity)).toEqual([
      'critical',
      'critical',
      'high',
      'medium',
      'low',
      'info',
    ]);
  });
  it('is zero for equal severities and antisymmetric', () => {
    for (const a of SEVERITIES) {
      expect(compareSeverity(a, a)).toBe(0);
      for (const b of SEVERITIES) {
        expect(compareSeverity(a, b) + compareSeverity(b, a)).toBe(0);
      }
    }
  });
});

describe('maxSeverity', () => {
  it('returns the more severe of the two, in either order', () => {
    expect(maxSeverity('low', 'high')).toBe('high');
    expect(maxSeverity('high', 'low')).toBe('high');
    expect(maxSeverity('info', 'info')).toBe('info');
    expect(maxSeverity('critical', 'medium')).toBe('critical');
  });
});
