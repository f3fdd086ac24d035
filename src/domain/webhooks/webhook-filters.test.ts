import { describe, expect, it } from 'vitest';
import { NO_CHANGES, type ScanIssueChanges, ZERO_COUNTS } from '../issues/scan-changes.js';
import { bodyFor, parseWebhookFilters, passesFilters, withDefaults } from './webhook-filters.js';

const changes = (patch: Partial<ScanIssueChanges>): ScanIssueChanges => ({
  ...NO_CHANGES,
  ...patch,
});
const newHigh = changes({
  new: { ...ZERO_COUNTS, high: 1, info: 2 },
  seen: { ...ZERO_COUNTS, high: 1, info: 2 },
});
const reopenedCritical = changes({
  reopened: { ...ZERO_COUNTS, critical: 1 },
  seen: { ...ZERO_COUNTS, critical: 1 },
});
const stillOpenHigh = changes({ seen: { ...ZERO_COUNTS, high: 3 }, fixed: 1 });
const newLow = changes({ new: { ...ZERO_COUNTS, low: 1 }, seen: { ...ZERO_COUNTS, low: 1 } });

const CONTRACT =
  '{"event":"scan.completed","timestamp":"t","tenantId":"x","data":{"scanId":"s","completedAt":"c"}}';

describe('withDefaults', () => {
  it('fills minSeverity info and onlyNew true', () => {
    expect(withDefaults({})).toEqual({ minSeverity: 'info', onlyNew: true });
    expect(withDefaults({ minSeverity: 'high', onlyNew: false })).toEqual({
      minSeverity: 'high',
      onlyNew: false,
    });
  });
});

describe('passesFilters', () => {
  const high = withDefaults({ minSeverity: 'high' });
  it('onlyNew: a new or reopened untriaged issue at or above minSeverity', () => {
    expect(passesFilters(high, newHigh)).toBe(true);
    expect(passesFilters(high, reopenedCritical)).toBe(true);
    expect(passesFilters(high, newLow)).toBe(false);
    expect(passesFilters(high, stillOpenHigh)).toBe(false);
    expect(passesFilters(high, NO_CHANGES)).toBe(false);
    expect(passesFilters(withDefaults({ minSeverity: 'critical' }), newHigh)).toBe(false);
    expect(passesFilters(withDefaults({}), newLow)).toBe(true);
  });
  it('onlyNew false: any untriaged issue the scan saw at or above minSeverity', () => {
    const any = withDefaults({ minSeverity: 'high', onlyNew: false });
    expect(passesFilters(any, stillOpenHigh)).toBe(true);
    expect(passesFilters(any, newHigh)).toBe(true);
    expect(passesFilters(any, newLow)).toBe(false);
    expect(passesFilters(withDefaults({ onlyNew: false }), NO_CHANGES)).toBe(false);
  });
});

describe('bodyFor', () => {
  it('sends the contract body unchanged without filters and for events filters do not gate', () => {
    expect(bodyFor(null, 'scan.completed', CONTRACT, NO_CHANGES)).toBe(CONTRACT);
    const filters = withDefaults({ minSeverity: 'critical' });
    expect(bodyFor(filters, 'scan.failed', CONTRACT, NO_CHANGES)).toBe(CONTRACT);
    expect(bodyFor(filters, 'scan.started', CONTRACT, NO_CHANGES)).toBe(CONTRACT);
  });
  it('sends nothing when the filters do not pass, else adds data.findings last', () => {
    const filters = withDefaults({ minSeverity: 'high' });
    expect(bodyFor(filters, 'scan.completed', CONTRACT, newLow)).toBeNull();
    const sent = bodyFor(filters, 'scan.completed', CONTRACT, { ...newHigh, fixed: 4 });
    expect(sent).toBe(
      `${CONTRACT.slice(0, -2)},"findings":{"new":3,"reopened":0,"fixed":4,"bySeverity":{"critical":0,"high":1,"medium":0,"low":0,"info":2}}}}`,
    );
  });
});

describe('parseWebhookFilters', () => {
  it('reads stored filters, null as none, and fills what is missing or malformed', () => {
    expect(parseWebhookFilters(null)).toBeNull();
    expect(parseWebhookFilters({ minSeverity: 'low', onlyNew: false })).toEqual({
      minSeverity: 'low',
      onlyNew: false,
    });
    expect(parseWebhookFilters({ minSeverity: 'severe' })).toEqual(withDefaults({}));
  });
});
