/**
 * The status of an API key at an instant. Revocation is permanent and wins over everything;
 * suspension (by an administrator, reversible) comes next; then expiry, which also ends a rotated
 * key's grace period. A key is expired exactly at `expiresAt` (the instant itself is not valid).
 */

export type KeyStatus = 'active' | 'expired' | 'revoked' | 'suspended';

export interface KeyLifecycle {
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
  readonly suspendedAt: Date | null;
  /** Set once the key has been rotated: it then lives on only until `expiresAt` (grace period). */
  readonly rotatedToKeyId: string | null;
}

export interface KeyStatusAt {
  readonly status: KeyStatus;
  /** True while a rotated key is still `active` in its grace period. */
  readonly inGracePeriod: boolean;
}

/** Status of a key at `now`. @example keyStatusAt(key, new Date()).status === 'active' */
export function keyStatusAt(key: KeyLifecycle, now: Date): KeyStatusAt {
  if (key.revokedAt !== null) {
    return { status: 'revoked', inGracePeriod: false };
  }
  if (key.suspendedAt !== null) {
    return { status: 'suspended', inGracePeriod: false };
  }
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) {
    return { status: 'expired', inGracePeriod: false };
  }
  return { status: 'active', inGracePeriod: key.rotatedToKeyId !== null };
}

/** The 401 code a key in a non-active status answers with. */
export function statusErrorCode(
  status: Exclude<KeyStatus, 'active'>,
): 'KEY_EXPIRED' | 'KEY_REVOKED' | 'KEY_SUSPENDED' {
  return status === 'expired'
    ? 'KEY_EXPIRED'
    : status === 'revoked'
      ? 'KEY_REVOKED'
      : 'KEY_SUSPENDED';
}

/**
 * When a rotated key stops working: `now + graceHours`, or its own expiry if that comes first.
 * @example graceEnd(now, 24, null) // now + 24 h
 */
export function graceEnd(now: Date, graceHours: number, ownExpiry: Date | null): Date {
  const end = new Date(now.getTime() + graceHours * 3_600_000);
  return ownExpiry !== null && ownExpiry.getTime() < end.getTime() ? ownExpiry : end;
}

/** `expiresAt` for a new key: `expiresInDays` of 0 or null means never. */
export function expiryFromDays(now: Date, expiresInDays: number | null | undefined): Date | null {
  if (expiresInDays === null || expiresInDays === undefined || expiresInDays === 0) {
    return null;
  }
  return new Date(now.getTime() + expiresInDays * 86_400_000);
}

/** `lastUsedAt` is written at most once a minute per key, not on every request. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export function shouldRecordUse(lastUsedAt: Date | null, now: Date): boolean {
  return lastUsedAt === null || now.getTime() - lastUsedAt.getTime() >= LAST_USED_WRITE_INTERVAL_MS;
}
