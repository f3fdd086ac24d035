import { describe, expect, it } from 'vitest';
import {
  clearSession,
  loadSession,
  renewalDelayMs,
  saveSession,
  sessionNeedsRenewal,
} from './session.js';
import { memoryStorage, unsignedJwt } from './testing/browser-fakes.js';

const NOW = Date.UTC(2026, 10, 27, 12);
const tokenExpiringAt = (ms: number) =>
  unsignedJwt({ sub: 'ana', tenantId: 't1', exp: Math.floor(ms / 1000) });

describe('the session', () => {
  it('keeps a pasted token until it expires, then removes it', () => {
    const storage = memoryStorage();
    const token = tokenExpiringAt(NOW + 60_000);
    expect(saveSession(storage, token)?.refreshToken).toBeNull();
    expect(loadSession(storage, NOW)).toMatchObject({ token, refreshToken: null });
    expect(loadSession(storage, NOW + 60_000)).toBeNull();
    expect(storage.length).toBe(0);
  });

  it('keeps an expired token with a refresh token, to be renewed before any call', () => {
    const storage = memoryStorage();
    saveSession(storage, tokenExpiringAt(NOW + 60_000), 'refresh-1');
    const fresh = loadSession(storage, NOW);
    expect(fresh?.refreshToken).toBe('refresh-1');
    expect(fresh === null ? null : sessionNeedsRenewal(fresh, NOW)).toBe(false);
    const stale = loadSession(storage, NOW + 61_000);
    expect(stale === null ? null : sessionNeedsRenewal(stale, NOW + 61_000)).toBe(true);
    // A renewal without a new refresh token keeps none; signing out removes both.
    saveSession(storage, tokenExpiringAt(NOW + 120_000));
    expect(loadSession(storage, NOW)?.refreshToken).toBeNull();
    saveSession(storage, tokenExpiringAt(NOW + 120_000), 'refresh-2');
    clearSession(storage);
    expect(storage.length).toBe(0);
  });

  it('renews a minute before expiry, or at half of what is left when that is short', () => {
    expect(renewalDelayMs(NOW + 300_000, NOW)).toBe(240_000);
    expect(renewalDelayMs(NOW + 3_600_000, NOW)).toBe(3_540_000);
    expect(renewalDelayMs(NOW + 60_000, NOW)).toBe(30_000);
    expect(renewalDelayMs(NOW + 4_000, NOW)).toBe(2_000);
    expect(renewalDelayMs(NOW - 5_000, NOW)).toBe(0);
  });
});
