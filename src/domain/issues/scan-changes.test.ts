import { describe, expect, it } from 'vitest';
import {
  addChanges,
  findingsSummaryOf,
  NO_CHANGES,
  parseScanIssueChanges,
  ZERO_COUNTS,
} from './scan-changes.js';

describe('scan issue changes', () => {
  const a = {
    new: { ...ZERO_COUNTS, high: 2 },
    reopened: { ...ZERO_COUNTS, low: 1 },
    fixed: 3,
    seen: { ...ZERO_COUNTS, high: 2, low: 1, info: 4 },
  };
  it('adds the passes of one upsert', () => {
    expect(addChanges(a, a)).toEqual({
      new: { ...ZERO_COUNTS, high: 4 },
      reopened: { ...ZERO_COUNTS, low: 2 },
      fixed: 6,
      seen: { ...ZERO_COUNTS, high: 4, low: 2, info: 8 },
    });
    expect(addChanges(NO_CHANGES, a)).toEqual(a);
  });
  it('summarizes new and reopened by severity for a body', () => {
    expect(findingsSummaryOf(a)).toEqual({
      new: 2,
      reopened: 1,
      fixed: 3,
      bySeverity: { critical: 0, high: 2, medium: 0, low: 1, info: 0 },
    });
  });
  it('reads stored JSON (text or parsed); anything malformed is no change', () => {
    expect(parseScanIssueChanges(JSON.stringify(a))).toEqual(a);
    expect(parseScanIssueChanges(a)).toEqual(a);
    expect(parseScanIssueChanges(null)).toEqual(NO_CHANGES);
    expect(parseScanIssueChanges('not json')).toEqual(NO_CHANGES);
    expect(parseScanIssueChanges({ new: { high: -1, low: 1.5, info: '2' }, fixed: 'x' })).toEqual(
      NO_CHANGES,
    );
  });
});
