import { describe, expect, it } from 'vitest';
import { expiryFromDays, graceEnd, keyStatusAt, shouldRecordUse } from './key-status.js';

const now = new Date('2026-11-23T12:00:00.000Z');
const base = { expiresAt: null, revokedAt: null, suspendedAt: null, rotatedToKeyId: null };
const later = new Date(now.getTime() + 1000);
const earlier = new Date(now.getTime() - 1000);

describe('keyStatusAt', () => {
  it.each([
    ['a fresh key is active', base, 'active', false],
    ['a key before its expiry is active', { ...base, expiresAt: later }, 'active', false],
    ['a key exactly at its expiry is expired', { ...base, expiresAt: now }, 'expired', false],
    ['a key after its expiry is expired', { ...base, expiresAt: earlier }, 'expired', false],
    ['a revoked key is revoked', { ...base, revokedAt: earlier }, 'revoked', false],
    [
      'revocation wins over suspension and expiry',
      { ...base, revokedAt: earlier, suspendedAt: earlier, expiresAt: earlier },
      'revoked',
      false,
    ],
    [
      'suspension wins over expiry',
      { ...base, suspendedAt: earlier, expiresAt: earlier },
      'suspended',
      false,
    ],
    [
      'a rotated key inside its grace period is active, in grace',
      { ...base, rotatedToKeyId: 'k2', expiresAt: later },
      'active',
      true,
    ],
    [
      'a rotated key after its grace period is expired',
      { ...base, rotatedToKeyId: 'k2', expiresAt: earlier },
      'expired',
      false,
    ],
  ] as const)('%s', (_label, key, status, inGrace) => {
    expect(keyStatusAt(key, now)).toEqual({ status, inGracePeriod: inGrace });
  });
});

describe('graceEnd', () => {
  it('ends the grace period after the given hours', () => {
    expect(graceEnd(now, 24, null).toISOString()).toBe('2026-11-24T12:00:00.000Z');
  });
  it('ends at once with 0 hours', () => {
    expect(graceEnd(now, 0, null).getTime()).toBe(now.getTime());
  });
  it('never runs past the key own expiry', () => {
    const own = new Date('2026-11-23T13:00:00.000Z');
    expect(graceEnd(now, 24, own)).toBe(own);
  });
});

describe('expiryFromDays', () => {
  it('0 and null mean never', () => {
    expect(expiryFromDays(now, 0)).toBeNull();
    expect(expiryFromDays(now, null)).toBeNull();
    expect(expiryFromDays(now, undefined)).toBeNull();
  });
  it('counts whole days from now', () => {
    expect(expiryFromDays(now, 30)?.toISOString()).toBe('2026-12-23T12:00:00.000Z');
  });
});

describe('shouldRecordUse', () => {
  it('writes when never used or last written a minute or more ago', () => {
    expect(shouldRecordUse(null, now)).toBe(true);
    expect(shouldRecordUse(new Date(now.getTime() - 60_000), now)).toBe(true);
    expect(shouldRecordUse(new Date(now.getTime() - 59_999), now)).toBe(false);
  });
});
