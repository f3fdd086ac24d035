/**
 * Triage of an issue: a decision that survives rescans (issue 23). `none`, `false_positive`,
 * `accepted_risk` (with a reason, who and an optional expiry after which it returns to `none`) and
 * `out_of_scope`. Every change is recorded in the issue's history. Pure: the store applies what
 * these functions decide (the expiry also set-based, in SQL: adapters/db/issues.repository.ts).
 */

export const TRIAGE_STATES = ['none', 'false_positive', 'accepted_risk', 'out_of_scope'] as const;
export type TriageState = (typeof TRIAGE_STATES)[number];

export function isTriageState(value: unknown): value is TriageState {
  return typeof value === 'string' && (TRIAGE_STATES as readonly string[]).includes(value);
}

/** An issue's triage as stored. */
export interface Triage {
  readonly state: TriageState;
  readonly reason: string | null;
  /** Who set it (an API key id or `expiry`); null for an issue never triaged. */
  readonly by: string | null;
  readonly at: Date | null;
  /** accepted_risk only: when it returns to none; null for no expiry. */
  readonly expiresAt: Date | null;
}

export const UNTRIAGED: Triage = {
  state: 'none',
  reason: null,
  by: null,
  at: null,
  expiresAt: null,
};

/** What a caller asks for (the coming PATCH /api/v1/issues/:issueId body). */
export interface TriageRequest {
  readonly triage: TriageState;
  readonly reason?: string | null;
  readonly expiresAt?: Date | null;
}

/** A row of the issue's history for a triage move. */
export interface TriageEvent {
  readonly kind: 'triage';
  readonly from: TriageState;
  readonly to: TriageState;
  readonly actor: string;
  readonly reason: string | null;
  readonly at: Date;
}

/** Who the history names when an accepted risk expired. */
export const EXPIRY_ACTOR = 'expiry';

export type TriageDecision =
  | { readonly ok: true; readonly next: Triage; readonly event: TriageEvent | null }
  | { readonly ok: false; readonly problem: string };

/** Longest reason kept, in characters. */
export const MAX_TRIAGE_REASON = 2000;

/**
 * Decides a triage change. Rules:
 * - `accepted_risk` needs a reason (a risk is accepted for a stated reason); `expiresAt` is only
 *   for `accepted_risk` and must be later than `now`;
 * - a reason is at most MAX_TRIAGE_REASON characters; blank counts as absent;
 * - the same state, reason and expiry again is no change (no history row);
 * - `none` clears reason and expiry, and still records who cleared it.
 * The current triage is taken as it is in effect (an expired accepted risk is `none`).
 */
export function decideTriage(
  stored: Triage,
  request: TriageRequest,
  actor: string,
  now: Date,
): TriageDecision {
  const current = triageInEffect(stored, now);
  const asked = requestedTriage(request, actor, now);
  if (!asked.ok) {
    return asked;
  }
  const { next } = asked;
  if (
    next.state === current.state &&
    next.reason === current.reason &&
    next.expiresAt?.getTime() === current.expiresAt?.getTime()
  ) {
    return { ok: true, next: current, event: null };
  }
  return {
    ok: true,
    next,
    event: {
      kind: 'triage',
      from: current.state,
      to: next.state,
      actor,
      reason: next.reason,
      at: now,
    },
  };
}

/**
 * The triage a request asks for, whatever an issue's current one, or why it is refused (the
 * rules of decideTriage). Bulk triage applies it to every issue a filter matches.
 */
export function requestedTriage(
  request: TriageRequest,
  actor: string,
  now: Date,
): { readonly ok: true; readonly next: Triage } | { readonly ok: false; readonly problem: string } {
  const reason = request.reason?.trim() ? request.reason.trim() : null;
  const expiresAt = request.expiresAt ?? null;
  if (reason !== null && reason.length > MAX_TRIAGE_REASON) {
    return { ok: false, problem: `reason is longer than ${MAX_TRIAGE_REASON} characters` };
  }
  if (request.triage === 'accepted_risk' && reason === null) {
    return { ok: false, problem: 'accepted_risk needs a reason' };
  }
  if (expiresAt !== null && request.triage !== 'accepted_risk') {
    return { ok: false, problem: 'expiresAt is only for accepted_risk' };
  }
  if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
    return { ok: false, problem: 'expiresAt must be in the future' };
  }
  return {
    ok: true,
    next: {
      state: request.triage,
      reason: request.triage === 'none' ? null : reason,
      by: actor,
      at: now,
      expiresAt,
    },
  };
}

/** Whether an accepted risk's expiry has passed at `now`. */
export function isExpired(triage: Triage, now: Date): boolean {
  return (
    triage.state === 'accepted_risk' &&
    triage.expiresAt !== null &&
    triage.expiresAt.getTime() <= now.getTime()
  );
}

/**
 * The triage in effect at `now`: an accepted risk whose expiry passed is `none` again (who and
 * when are the expiry's). Reads apply this, so an expiry is never shown late even before the
 * store has written it (expireTriage).
 */
export function triageInEffect(triage: Triage, now: Date): Triage {
  if (!isExpired(triage, now)) {
    return triage;
  }
  return {
    state: 'none',
    reason: null,
    by: EXPIRY_ACTOR,
    at: triage.expiresAt,
    expiresAt: null,
  };
}

/** The expiry as a move to store: the next triage and its history row; null when not expired. */
export function expireTriage(
  triage: Triage,
  now: Date,
): { readonly next: Triage; readonly event: TriageEvent } | null {
  if (!isExpired(triage, now)) {
    return null;
  }
  const next = triageInEffect(triage, now);
  return {
    next,
    event: {
      kind: 'triage',
      from: 'accepted_risk',
      to: 'none',
      actor: EXPIRY_ACTOR,
      reason: 'expired',
      at: next.at ?? now,
    },
  };
}

/**
 * `item` with its issue's triage as in effect at `now` (triageInEffect): the same object unless
 * an accepted risk has expired and not been stored as such yet. For findings read with their issue.
 */
export function withTriageInEffect<
  T extends { readonly issue: { readonly triage: Triage } | null },
>(item: T, now: Date): T {
  if (item.issue === null || !isExpired(item.issue.triage, now)) {
    return item;
  }
  return { ...item, issue: { ...item.issue, triage: triageInEffect(item.issue.triage, now) } };
}
