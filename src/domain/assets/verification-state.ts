/**
 * How a check's result changes an asset's verification (issue 24), pure. A proof found verifies
 * the asset (keeping the time it was first verified); a proof missing from a verified asset starts
 * the grace period, and only when the proof is still missing after it does the asset become
 * `unverified`. An administrator's verification is not a proof anything can lose: checks leave it.
 */
export type VerificationStatus = 'unverified' | 'verified';
export type VerificationMethod = 'dns' | 'http' | 'admin';

export interface VerificationState {
  readonly status: VerificationStatus;
  readonly method: VerificationMethod | null;
  readonly verifiedAt: Date | null;
  readonly proofMissingSince: Date | null;
}

export interface CheckResult {
  /** How the proof was found, or null: not found (then `error` says why). */
  readonly found: 'dns' | 'http' | null;
  readonly error: string | null;
}

export interface NextVerification extends VerificationState {
  readonly checkedAt: Date;
  readonly error: string | null;
}

export function afterCheck(
  current: VerificationState,
  check: CheckResult,
  now: Date,
  graceMs: number,
): NextVerification {
  if (check.found !== null) {
    return {
      status: 'verified',
      method: check.found,
      verifiedAt: current.status === 'verified' ? (current.verifiedAt ?? now) : now,
      proofMissingSince: null,
      checkedAt: now,
      error: null,
    };
  }
  if (current.status === 'verified' && current.method === 'admin') {
    return { ...current, checkedAt: now, error: check.error };
  }
  if (current.status === 'verified') {
    const since = current.proofMissingSince ?? now;
    if (now.getTime() - since.getTime() < graceMs) {
      return { ...current, proofMissingSince: since, checkedAt: now, error: check.error };
    }
  }
  return {
    status: 'unverified',
    method: null,
    verifiedAt: null,
    proofMissingSince: null,
    checkedAt: now,
    error: check.error,
  };
}
