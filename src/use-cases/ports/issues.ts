/**
 * Issues as the API reads and triages them (issue 23). The store applies what the domain decides
 * (domain/issues/triage.ts); a tenant never reads or changes another tenant's issue.
 */
import type { Severity } from '../../domain/findings/finding.js';
import type { IssueStatus } from '../../domain/issues/issue.js';
import type { Triage, TriageEvent, TriageState } from '../../domain/issues/triage.js';
import type { Page } from './common.js';

/** An issue as stored: the latest finding's fields, its life over rescans and its triage. */
export interface IssueRecord {
  readonly id: string;
  readonly target: string;
  readonly fingerprint: string;
  readonly engine: string;
  readonly ruleId: string;
  readonly title: string;
  readonly severity: Severity;
  readonly toolSeverity: string | null;
  readonly category: string;
  readonly location: {
    readonly host: string | null;
    readonly port: number | null;
    readonly protocol: string | null;
    readonly url: string | null;
  };
  readonly identifiers: { readonly cve: readonly string[]; readonly cwe: readonly string[] };
  readonly description: string | null;
  readonly remediation: string | null;
  readonly references: readonly string[];
  readonly firstSeenAt: Date;
  readonly lastSeenAt: Date;
  readonly firstScanId: string;
  readonly lastScanId: string;
  readonly occurrences: number;
  readonly status: IssueStatus;
  readonly statusChangedAt: Date;
  readonly triage: Triage;
}

/** A row of an issue's history: a status move (by a scan) or a triage move (by someone). */
export interface IssueEventRecord {
  readonly at: Date;
  readonly kind: 'status' | 'triage';
  readonly from: string | null;
  readonly to: string;
  readonly scanId: string | null;
  readonly actor: string | null;
  readonly reason: string | null;
}

/** The list's filters; null: any. `triage` is the triage in effect at `now`. */
export interface IssueFilter {
  /** Only these issues (bulk triage by selection; lower-case uuids). */
  readonly ids: readonly string[] | null;
  readonly target: string | null;
  readonly engine: string | null;
  readonly severity: Severity | null;
  readonly status: IssueStatus | null;
  readonly triage: TriageState | null;
  /** Only issues last seen at or after this instant. */
  readonly since: Date | null;
}

export interface IssueStore {
  /** The tenant's issues matching `filter`, most severe first, then last seen newest first. */
  list(
    tenantId: string,
    filter: IssueFilter,
    page: Page,
    now: Date,
  ): Promise<{ readonly issues: IssueRecord[]; readonly total: number }>;
  /** One of the tenant's issues, or null (unknown or another tenant's). */
  get(tenantId: string, id: string): Promise<IssueRecord | null>;
  /**
   * Changes one issue's triage: `decide` gets the stored triage (the row locked) and answers the
   * next one with the history rows to record, or a problem, which changes nothing and is
   * returned. Null when the tenant has no such issue.
   */
  setTriage(
    tenantId: string,
    id: string,
    decide: (stored: Triage) => TriageChange,
  ): Promise<{ readonly problem: string } | { readonly issue: IssueRecord } | null>;
  /**
   * Sets `next` on every issue of the tenant `filter` matches (the triage in effect at `next.at`)
   * whose triage differs, with a history row each; returns how many changed. One transaction.
   */
  triageMatching(tenantId: string, filter: IssueFilter, next: Triage): Promise<number>;
  /**
   * The tenant's latest completed scan of `target` by `scanType` created before `before` (not a
   * sentinel child): the default base of a scan's diff. Null when there is none.
   */
  previousCompletedScan(
    tenantId: string,
    target: string,
    scanType: string,
    before: Date,
  ): Promise<string | null>;
  /**
   * The issues of `scan`'s findings against those of `base`'s (null: none): in both
   * (unchanged), only in the base (fixed), only in the scan and first seen by a scan that ended
   * no later than the base (reopened), or after it (new).
   */
  diff(
    tenantId: string,
    scan: { readonly id: string; readonly target: string },
    base: { readonly id: string; readonly completedAt: Date } | null,
  ): Promise<Record<'new' | 'fixed' | 'reopened' | 'unchanged', IssueRecord[]>>;
  /** An issue's history, oldest first. */
  history(tenantId: string, id: string): Promise<IssueEventRecord[]>;
}

/** What a triage change stores: the next triage and its history rows (none: no change). */
export type TriageChange =
  | { readonly ok: true; readonly next: Triage; readonly events: readonly TriageEvent[] }
  | { readonly ok: false; readonly problem: string };
