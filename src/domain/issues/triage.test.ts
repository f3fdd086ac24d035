import { describe, expect, it } from 'vitest';
import {
  decideTriage,
  EXPIRY_ACTOR,
  expireTriage,
  isTriageState,
  MAX_TRIAGE_REASON,
  requestedTriage,
  type Triage,
  triageInEffect,
  UNTRIAGED,
} from './triage.js';

const now = new Date('2026-11-26T12:00:00Z');
const later = new Date('2026-12-26T12:00:00Z');
const earlier = new Date('2026-10-26T12:00:00Z');

describe('decideTriage', () => {
  it('sets false_positive with who and when, and records the move', () => {
    const decision = decideTriage(
      UNTRIAGED,
      { triage: 'false_positive', reason: ' test host ' },
      'key-1',
      now,
    );
    expect(decision).toEqual({
      ok: true,
      next: { state: 'false_positive', reason: 'test host', by: 'key-1', at: now, expiresAt: null },
      event: {
        kind: 'triage',
        from: 'none',
        to: 'false_positive',
        actor: 'key-1',
        reason: 'test host',
        at: now,
      },
    });
  });

  it('needs a reason for accepted_risk and takes an expiry only for it, in the future', () => {
    expect(decideTriage(UNTRIAGED, { triage: 'accepted_risk' }, 'k', now)).toEqual({
      ok: false,
      problem: 'accepted_risk needs a reason',
    });
    expect(decideTriage(UNTRIAGED, { triage: 'accepted_risk', reason: '  ' }, 'k', now).ok).toBe(
      false,
    );
    expect(decideTriage(UNTRIAGED, { triage: 'out_of_scope', expiresAt: later }, 'k', now)).toEqual(
      { ok: false, problem: 'expiresAt is only for accepted_risk' },
    );
    expect(
      decideTriage(UNTRIAGED, { triage: 'accepted_risk', reason: 'r', expiresAt: now }, 'k', now),
    ).toEqual({ ok: false, problem: 'expiresAt must be in the future' });
    const ok = decideTriage(
      UNTRIAGED,
      { triage: 'accepted_risk', reason: 'r', expiresAt: later },
      'k',
      now,
    );
    expect(ok.ok && ok.next.expiresAt).toEqual(later);
    expect(
      decideTriage(
        UNTRIAGED,
        { triage: 'out_of_scope', reason: 'x'.repeat(MAX_TRIAGE_REASON + 1) },
        'k',
        now,
      ).ok,
    ).toBe(false);
  });

  it('records nothing when nothing changes, and clears reason and expiry on none', () => {
    const current: Triage = {
      state: 'accepted_risk',
      reason: 'r',
      by: 'a',
      at: earlier,
      expiresAt: later,
    };
    const same = decideTriage(
      current,
      { triage: 'accepted_risk', reason: 'r', expiresAt: later },
      'b',
      now,
    );
    expect(same).toEqual({ ok: true, next: current, event: null });
    const cleared = decideTriage(current, { triage: 'none', reason: 'fixed upstream' }, 'b', now);
    expect(cleared.ok && cleared.next).toEqual({
      state: 'none',
      reason: null,
      by: 'b',
      at: now,
      expiresAt: null,
    });
    expect(cleared.ok && cleared.event?.from).toBe('accepted_risk');
  });

  it('starts from the triage in effect: an expired accepted risk counts as none', () => {
    const expired: Triage = {
      state: 'accepted_risk',
      reason: 'r',
      by: 'a',
      at: earlier,
      expiresAt: earlier,
    };
    const decision = decideTriage(expired, { triage: 'false_positive' }, 'b', now);
    expect(decision.ok && decision.event?.from).toBe('none');
  });
});

describe('requestedTriage', () => {
  it('asks for the same triage whatever the current one, by the same rules', () => {
    expect(requestedTriage({ triage: 'none', reason: 'why' }, 'k', now)).toEqual({
      ok: true,
      next: { state: 'none', reason: null, by: 'k', at: now, expiresAt: null },
    });
    expect(requestedTriage({ triage: 'accepted_risk' }, 'k', now)).toEqual({
      ok: false,
      problem: 'accepted_risk needs a reason',
    });
  });
});

describe('triage expiry', () => {
  const accepted: Triage = {
    state: 'accepted_risk',
    reason: 'r',
    by: 'a',
    at: earlier,
    expiresAt: later,
  };

  it('keeps an accepted risk until its expiry, then returns it to none', () => {
    expect(triageInEffect(accepted, now)).toBe(accepted);
    expect(expireTriage(accepted, now)).toBeNull();
    expect(triageInEffect(accepted, later)).toEqual({
      state: 'none',
      reason: null,
      by: EXPIRY_ACTOR,
      at: later,
      expiresAt: null,
    });
    expect(expireTriage(accepted, new Date(later.getTime() + 1))?.event).toEqual({
      kind: 'triage',
      from: 'accepted_risk',
      to: 'none',
      actor: EXPIRY_ACTOR,
      reason: 'expired',
      at: later,
    });
  });

  it('never expires other states or an accepted risk without expiry', () => {
    expect(expireTriage({ ...accepted, expiresAt: null }, later)).toBeNull();
    expect(expireTriage({ ...accepted, state: 'false_positive' }, later)).toBeNull();
  });

  it('knows the four states', () => {
    expect(['none', 'false_positive', 'accepted_risk', 'out_of_scope'].every(isTriageState)).toBe(
      true,
    );
    expect(isTriageState('fixed')).toBe(false);
  });
});
