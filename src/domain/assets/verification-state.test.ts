import { describe, expect, it } from 'vitest';
import { afterCheck, type VerificationState } from './verification-state.js';

const HOUR = 3_600_000;
const t0 = new Date('2026-03-01T00:00:00Z');
const at = (hours: number) => new Date(t0.getTime() + hours * HOUR);
const unverified: VerificationState = {
  status: 'unverified',
  method: null,
  verifiedAt: null,
  proofMissingSince: null,
};
const missing = { found: null, error: 'no TXT record' } as const;

describe('afterCheck', () => {
  it('verifies on a proof and keeps the first verification time', () => {
    const first = afterCheck(unverified, { found: 'dns', error: null }, t0, 72 * HOUR);
    expect(first).toMatchObject({ status: 'verified', method: 'dns', verifiedAt: t0, error: null });
    const again = afterCheck(first, { found: 'http', error: null }, at(5), 72 * HOUR);
    expect(again).toMatchObject({ status: 'verified', method: 'http', verifiedAt: t0 });
  });

  it('keeps a verified asset through the grace period, then unverifies it', () => {
    const verified = afterCheck(unverified, { found: 'dns', error: null }, t0, 72 * HOUR);
    const gone = afterCheck(verified, missing, at(1), 72 * HOUR);
    expect(gone).toMatchObject({
      status: 'verified',
      proofMissingSince: at(1),
      error: 'no TXT record',
    });
    const still = afterCheck(gone, missing, at(72), 72 * HOUR);
    expect(still).toMatchObject({ status: 'verified', proofMissingSince: at(1) });
    const back = afterCheck(still, { found: 'dns', error: null }, at(72.5), 72 * HOUR);
    expect(back).toMatchObject({ status: 'verified', proofMissingSince: null, verifiedAt: t0 });
    const lost = afterCheck(
      afterCheck(back, missing, at(73), 72 * HOUR),
      missing,
      at(145),
      72 * HOUR,
    );
    expect(lost).toMatchObject({ status: 'unverified', method: null, verifiedAt: null });
  });

  it('leaves an unverified asset unverified, and an administrator verification as it is', () => {
    expect(afterCheck(unverified, missing, t0, 0)).toMatchObject({
      status: 'unverified',
      error: 'no TXT record',
    });
    const admin: VerificationState = {
      status: 'verified',
      method: 'admin',
      verifiedAt: t0,
      proofMissingSince: null,
    };
    expect(afterCheck(admin, missing, at(1000), 0)).toMatchObject({
      status: 'verified',
      method: 'admin',
    });
  });
});
