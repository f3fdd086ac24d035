/**
 * The issues page's filters and triage form as data: what the address's query string asks for
 * (only values the API accepts; anything else is ignored, not sent), and the triage form mapped to
 * the body of PATCH /api/v1/issues/{issueId} and POST /api/v1/issues/triage. The API checks the
 * rules across fields (accepted_risk needs a reason, an expiry in the future); the page shows its
 * error, so they are not repeated here.
 */
import type { operations, Schema } from '../../../src/client/index.js';

export type Issue = Schema<'Issue'>;
export type IssueQuery = NonNullable<operations['listIssues']['parameters']['query']>;
export type IssueFilter = Omit<IssueQuery, 'page' | 'limit'>;
export type TriageState = Issue['triage'];
export type TriageBody = operations['triageIssue']['requestBody']['content']['application/json'];
/** What bulk triage takes as `filter`: the list's filters and, for a selection, issue ids. */
export type BulkFilter =
  operations['triageIssues']['requestBody']['content']['application/json']['filter'];

export const ISSUE_SEVERITIES = [
  'critical',
  'high',
  'medium',
  'low',
  'info',
] as const satisfies readonly NonNullable<IssueQuery['severity']>[];
export const ISSUE_STATUSES = ['open', 'reopened', 'fixed'] as const satisfies readonly NonNullable<
  IssueQuery['status']
>[];
export const TRIAGE_STATES = [
  'none',
  'false_positive',
  'accepted_risk',
  'out_of_scope',
] as const satisfies readonly TriageState[];
/**
 * The engines a finding names, so those of issues (the issues list's and a scan's findings list's
 * `engine` filter; not the sentinel, whose findings name their child's engine).
 */
export const ISSUE_ENGINES = [
  'nmap',
  'zap',
  'trivy',
  'nuclei',
  'nikto',
  'sqlmap',
  'wapiti',
  'harvester',
  'sublist3r',
] as const satisfies readonly NonNullable<IssueQuery['engine']>[];

export const TRIAGE_LABELS: Record<TriageState, string> = {
  none: 'Not triaged',
  false_positive: 'False positive',
  accepted_risk: 'Accepted risk',
  out_of_scope: 'Out of scope',
};

/** The filter keys, in the order the page shows them. */
export const FILTER_KEYS = ['status', 'triage', 'severity', 'engine', 'target', 'since'] as const;

/** `value` when it is one of `allowed`, else undefined. */
export function oneOf<T extends string>(
  allowed: readonly T[],
  value: string | null,
): T | undefined {
  return allowed.find((candidate) => candidate === value);
}

/** The filters issues and a scan's findings share, as the query string holds them. */
export type SharedFilter = Pick<IssueFilter, 'triage' | 'severity' | 'engine'>;

/**
 * The triage, severity and engine filters the query string holds (the issues list's and a scan's
 * findings list's); unknown values are dropped rather than sent.
 */
export function sharedFilterFrom(params: URLSearchParams): SharedFilter {
  const filter: SharedFilter = {};
  const triage = oneOf(TRIAGE_STATES, params.get('triage'));
  const severity = oneOf(ISSUE_SEVERITIES, params.get('severity'));
  const engine = oneOf(ISSUE_ENGINES, params.get('engine'));
  if (triage !== undefined) {
    filter.triage = triage;
  }
  if (severity !== undefined) {
    filter.severity = severity;
  }
  if (engine !== undefined) {
    filter.engine = engine;
  }
  return filter;
}

/** The filters the query string holds; unknown values are dropped rather than sent. */
export function issueFilterFrom(params: URLSearchParams): IssueFilter {
  const filter: IssueFilter = {};
  const status = oneOf(ISSUE_STATUSES, params.get('status'));
  const target = params.get('target')?.trim() ?? '';
  const since = params.get('since') ?? '';
  if (status !== undefined) {
    filter.status = status;
  }
  Object.assign(filter, sharedFilterFrom(params));
  if (target !== '') {
    filter.target = target.slice(0, 2048);
  }
  // A date (YYYY-MM-DD) from the date input: from that day's start, UTC.
  if (/^\d{4}-\d{2}-\d{2}$/.test(since) && !Number.isNaN(Date.parse(`${since}T00:00:00Z`))) {
    filter.since = `${since}T00:00:00.000Z`;
  }
  return filter;
}

/** Whether a filter names anything (bulk triage by filter refuses an empty one). */
export function isEmptyFilter(filter: object): boolean {
  return Object.keys(filter).length === 0;
}

/** A page number from the query string: a positive integer, else 1. */
export function pageFrom(params: URLSearchParams): number {
  const page = Number.parseInt(params.get('page') ?? '1', 10);
  return Number.isFinite(page) && page >= 1 ? page : 1;
}

/** What the triage form holds: the state, a reason, and an expiry from a datetime-local input. */
export interface TriageDraft {
  readonly triage: TriageState;
  readonly reason: string;
  /** `YYYY-MM-DDTHH:mm` in the browser's time zone, or '' for none. */
  readonly expiresAt: string;
}

export type TriageBodyResult =
  | { readonly ok: true; readonly body: TriageBody }
  | { readonly ok: false; readonly problem: string };

/**
 * The body for a triage draft: a blank reason is left out (none clears it), the expiry is sent
 * only for accepted_risk, as an instant with a zone.
 */
export function triageBody(draft: TriageDraft): TriageBodyResult {
  const reason = draft.reason.trim();
  const body: TriageBody = { triage: draft.triage };
  if (reason !== '') {
    body.reason = reason;
  }
  if (draft.triage === 'accepted_risk' && draft.expiresAt !== '') {
    const at = new Date(draft.expiresAt);
    if (Number.isNaN(at.getTime())) {
      return { ok: false, problem: 'The expiry is not a date and time.' };
    }
    body.expiresAt = at.toISOString();
  }
  return { ok: true, body };
}

/** A datetime-local input's value (`YYYY-MM-DDTHH:mm`, local time) for an instant, '' for none. */
export function localDateTimeInput(at: string | null): string {
  const date = at === null ? null : new Date(at);
  if (date === null || Number.isNaN(date.getTime())) {
    return '';
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
