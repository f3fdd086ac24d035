/**
 * Changing an issue's triage (results:triage, issue 23): PATCH /api/v1/issues/:issueId with
 * `{ triage, reason?, expiresAt? }`. The rules are domain/issues/triage.ts's; a refused change is
 * 400 INVALID_FIELD_VALUE naming the field, and changes nothing. An accepted risk whose expiry
 * passed but that housekeeping has not stored yet is recorded as expired first, so the history
 * reads in order. Who changed it (the API key id or the dashboard JWT subject) and why are in the
 * issue's history.
 */
import { ApiError } from '../../domain/errors.js';
import {
  decideTriage,
  expireTriage,
  requestedTriage,
  type TriageRequest,
} from '../../domain/issues/triage.js';
import type { Clock } from '../ports/common.js';
import type { IssueFilter, IssueStore } from '../ports/issues.js';
import { getIssue } from './read-issues.js';

/** The field a refused triage change is about. */
function fieldOf(problem: string): string {
  return problem.startsWith('expiresAt') ? 'expiresAt' : 'reason';
}

export async function triageIssue(
  deps: { readonly issues: IssueStore; readonly clock: Clock },
  tenantId: string,
  id: string,
  request: TriageRequest,
  actor: string,
) {
  const now = deps.clock.now();
  const result = await deps.issues.setTriage(tenantId, id, (stored) => {
    const decision = decideTriage(stored, request, actor, now);
    if (!decision.ok) {
      return decision;
    }
    const expiry = expireTriage(stored, now);
    const events = [expiry?.event, decision.event].filter((event) => event != null);
    return { ok: true, next: decision.next, events };
  });
  if (result === null) {
    throw new ApiError('ISSUE_NOT_FOUND');
  }
  if ('problem' in result) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: fieldOf(result.problem),
      reason: result.problem,
    });
  }
  return getIssue(deps, tenantId, id);
}

/**
 * Bulk triage (results:triage): the same triage on every issue of the tenant a filter matches
 * (the list's filters; at least one), by the same rules; each issue that changes gets its history
 * row. Returns how many changed.
 */
export async function triageIssues(
  deps: { readonly issues: IssueStore; readonly clock: Clock },
  tenantId: string,
  filter: IssueFilter,
  request: TriageRequest,
  actor: string,
): Promise<{ updated: number }> {
  if (Object.values(filter).every((value) => value === null)) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: 'filter',
      reason: 'name at least one of ids, target, engine, severity, status, triage, since',
    });
  }
  const asked = requestedTriage(request, actor, deps.clock.now());
  if (!asked.ok) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: fieldOf(asked.problem),
      reason: asked.problem,
    });
  }
  return { updated: await deps.issues.triageMatching(tenantId, filter, asked.next) };
}
