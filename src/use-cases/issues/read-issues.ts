/**
 * Reading issues (results:read, issue 23): GET /api/v1/issues (filtered, paged) and
 * GET /api/v1/issues/:issueId (with its history). Triage is shown as it is in effect now: an
 * accepted risk whose expiry passed reads `none` even before housekeeping has stored that.
 */
import { ApiError } from '../../domain/errors.js';
import { triageInEffect } from '../../domain/issues/triage.js';
import type { Clock, Page } from '../ports/common.js';
import type { IssueEventRecord, IssueFilter, IssueRecord, IssueStore } from '../ports/issues.js';
import { type Pagination, pagination } from '../scans/scan-view.js';

export function toIssueView(issue: IssueRecord, now: Date) {
  const triage = triageInEffect(issue.triage, now);
  return {
    id: issue.id,
    target: issue.target,
    fingerprint: issue.fingerprint,
    engine: issue.engine,
    ruleId: issue.ruleId,
    title: issue.title,
    severity: issue.severity,
    toolSeverity: issue.toolSeverity,
    category: issue.category,
    location: { ...issue.location },
    identifiers: { cve: [...issue.identifiers.cve], cwe: [...issue.identifiers.cwe] },
    description: issue.description,
    remediation: issue.remediation,
    references: [...issue.references],
    status: issue.status,
    statusChangedAt: issue.statusChangedAt.toISOString(),
    firstSeenAt: issue.firstSeenAt.toISOString(),
    lastSeenAt: issue.lastSeenAt.toISOString(),
    firstScanId: issue.firstScanId,
    lastScanId: issue.lastScanId,
    occurrences: issue.occurrences,
    triage: triage.state,
    triageReason: triage.reason,
    triagedBy: triage.by,
    triagedAt: triage.at?.toISOString() ?? null,
    triageExpiresAt: triage.expiresAt?.toISOString() ?? null,
  };
}

export type IssueView = ReturnType<typeof toIssueView>;

export function toIssueEventView(event: IssueEventRecord) {
  return {
    at: event.at.toISOString(),
    kind: event.kind,
    from: event.from,
    to: event.to,
    scanId: event.scanId,
    actor: event.actor,
    reason: event.reason,
  };
}

export async function listIssues(
  deps: { readonly issues: IssueStore; readonly clock: Clock },
  tenantId: string,
  filter: IssueFilter,
  page: Page,
): Promise<{ issues: IssueView[]; pagination: Pagination }> {
  const now = deps.clock.now();
  const found = await deps.issues.list(tenantId, filter, page, now);
  return {
    issues: found.issues.map((issue) => toIssueView(issue, now)),
    pagination: pagination(page.page, page.limit, found.total),
  };
}

/** One issue with its history, oldest move first; 404 ISSUE_NOT_FOUND otherwise. */
export async function getIssue(
  deps: { readonly issues: IssueStore; readonly clock: Clock },
  tenantId: string,
  id: string,
) {
  const issue = await deps.issues.get(tenantId, id);
  if (issue === null) {
    throw new ApiError('ISSUE_NOT_FOUND');
  }
  const history = await deps.issues.history(tenantId, id);
  return { ...toIssueView(issue, deps.clock.now()), history: history.map(toIssueEventView) };
}
