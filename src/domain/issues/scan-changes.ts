/**
 * What one scan's end changed in its target's issues, counting untriaged issues only (triage in
 * effect `none` when the scan ended): a triaged issue (false positive, accepted risk, out of
 * scope) is a decision already taken, so it never makes a notification nor counts in one. Issue
 * counts, not finding counts: two findings of one issue (several engines of a sentinel scan)
 * count once. Computed by the issue upsert of the scan's end (adapters/db/issues.repository.ts)
 * and carried by its scan.completed event to the webhooks' filters (domain/webhooks/
 * webhook-filters.ts).
 */
import { SEVERITIES, type Severity } from '../findings/finding.js';

export type SeverityCounts = Readonly<Record<Severity, number>>;

export interface ScanIssueChanges {
  /** Issues this scan created (first seen), by severity. */
  readonly new: SeverityCounts;
  /** Issues this scan saw again after they had been fixed, by severity. */
  readonly reopened: SeverityCounts;
  /** Issues this completed scan moved to fixed. */
  readonly fixed: number;
  /** Every issue this scan saw (new, reopened or still open), by severity. */
  readonly seen: SeverityCounts;
}

export const ZERO_COUNTS: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };

export const NO_CHANGES: ScanIssueChanges = {
  new: ZERO_COUNTS,
  reopened: ZERO_COUNTS,
  fixed: 0,
  seen: ZERO_COUNTS,
};

/** Two sets of counts added severity by severity. */
export const addCounts = (a: SeverityCounts, b: SeverityCounts): SeverityCounts =>
  Object.fromEntries(SEVERITIES.map((s) => [s, a[s] + b[s]])) as Record<Severity, number>;

const total = (counts: SeverityCounts): number => SEVERITIES.reduce((n, s) => n + counts[s], 0);

/** The changes of two passes of one scan's upsert together. */
export function addChanges(a: ScanIssueChanges, b: ScanIssueChanges): ScanIssueChanges {
  return {
    new: addCounts(a.new, b.new),
    reopened: addCounts(a.reopened, b.reopened),
    fixed: a.fixed + b.fixed,
    seen: addCounts(a.seen, b.seen),
  };
}

/**
 * The `findings` a filtered webhook's scan.completed body adds to `data`: how many untriaged
 * issues the scan opened, reopened and fixed, and the opened and reopened ones by severity.
 *
 * @example findingsSummaryOf({ ...NO_CHANGES, new: { ...ZERO_COUNTS, high: 1 } })
 * // { new: 1, reopened: 0, fixed: 0, bySeverity: { critical: 0, high: 1, medium: 0, low: 0, info: 0 } }
 */
export function findingsSummaryOf(changes: ScanIssueChanges) {
  return {
    new: total(changes.new),
    reopened: total(changes.reopened),
    fixed: changes.fixed,
    bySeverity: addCounts(changes.new, changes.reopened),
  };
}

/** Reads stored changes (JSON of the outbox); anything malformed counts as no change. */
export function parseScanIssueChanges(value: unknown): ScanIssueChanges {
  const record = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  const count = (v: unknown): number =>
    Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : 0;
  const counts = (v: unknown): SeverityCounts => {
    const r = record(v);
    return Object.fromEntries(SEVERITIES.map((s) => [s, count(r[s])])) as Record<Severity, number>;
  };
  const r = record(typeof value === 'string' ? safeParse(value) : value);
  return {
    new: counts(r.new),
    reopened: counts(r.reopened),
    fixed: count(r.fixed),
    seen: counts(r.seen),
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
