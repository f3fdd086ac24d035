/**
 * Issues: a finding's life across rescans of one target (issue 23). An issue is one record per
 * (tenant, target, fingerprint); each scan that ends updates the issues of what it saw, and a
 * completed scan moves the issues its engines could have found but did not to `fixed`. The rules
 * of those moves are here, pure; the adapter (adapters/db/issues.repository.ts) applies the same
 * rules set-based, in SQL, in the transaction that stores a scan's end.
 */

export const ISSUE_STATUSES = ['open', 'fixed', 'reopened'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

/** What a scan's end does to the issues of its target. */
export type ScanEndForIssues =
  /** Completed: what it saw is updated, what its engines did not see moves to fixed. */
  | 'completed'
  /** Failed or cancelled: its partial findings update what they saw; nothing moves to fixed. */
  | 'partial';

/**
 * The status of an issue a scan saw: a new issue (null) is `open`, a `fixed` one `reopened`,
 * any other keeps its status.
 */
export function statusWhenSeen(current: IssueStatus | null): IssueStatus {
  if (current === null) {
    return 'open';
  }
  return current === 'fixed' ? 'reopened' : current;
}

/**
 * The status of an issue a scan did not see: `fixed` when the scan completed and one of its
 * engines is the issue's (an engine that could have found it), else unchanged.
 */
export function statusWhenMissed(
  current: IssueStatus,
  issueEngine: string,
  scan: { readonly end: ScanEndForIssues; readonly engines: readonly string[] },
): IssueStatus {
  return scan.end === 'completed' && scan.engines.includes(issueEngine) ? 'fixed' : current;
}

/**
 * The engines whose findings a scan's end can move to fixed: a scan's own type; for a sentinel
 * scan, the engines of its children that completed (a failed or cancelled child could not have
 * found everything, so its engine's issues are left as they are).
 */
export function enginesThatLooked(
  scanType: string,
  children: readonly { readonly engine: string; readonly completed: boolean }[] | null,
): string[] {
  if (children === null) {
    return [scanType];
  }
  return [...new Set(children.filter((child) => child.completed).map((child) => child.engine))];
}

/**
 * A finding against its issue as the issue stood before the finding's scan (SARIF's
 * `result.baselineState`, without `absent`: a finding is always present in its own scan):
 * - `new`: the scan created the issue, or the issue was `fixed` (the scan reopens it);
 * - `updated`: the issue was open or reopened, and one of BASELINE_FIELDS differs from its
 *   latest finding's;
 * - `unchanged`: otherwise.
 */
export const BASELINE_STATES = ['new', 'unchanged', 'updated'] as const;
export type BaselineState = (typeof BASELINE_STATES)[number];

/**
 * The fields whose change makes a finding `updated`: how it is rated and named. Not the
 * description, evidence, remediation or references: engines reword those between two runs that
 * found the same thing (an OS-guess accuracy, the DBMS a payload revealed). Identifiers compare as
 * sets. The location is the fingerprint's, so it cannot differ.
 */
export interface BaselineFields {
  readonly severity: string;
  readonly title: string;
  readonly category: string;
  readonly cve: readonly string[];
  readonly cwe: readonly string[];
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((value) => right.has(value));
}

/** The baseline state of a finding; `issue` is null when the finding's scan created it. */
export function baselineStateOf(
  finding: BaselineFields,
  issue: (BaselineFields & { readonly status: IssueStatus }) | null,
): BaselineState {
  if (issue === null || issue.status === 'fixed') {
    return 'new';
  }
  const same =
    finding.severity === issue.severity &&
    finding.title === issue.title &&
    finding.category === issue.category &&
    sameSet(finding.cve, issue.cve) &&
    sameSet(finding.cwe, issue.cwe);
  return same ? 'unchanged' : 'updated';
}
