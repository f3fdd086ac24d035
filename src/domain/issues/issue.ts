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
