/**
 * The signed-in session: the dashboard token, kept in the tab's sessionStorage (gone when the tab
 * closes; never in localStorage, where every tab and every script of the origin would keep it).
 */
import { hasExpired, readTokenClaims, type TokenClaims } from './token-claims.js';

const TOKEN_KEY = 'rampart.token';

export interface Session {
  readonly token: string;
  readonly claims: TokenClaims;
}

/** Why a token cannot be used to sign in, or null when it can. */
export function tokenProblem(token: string, now: number): string | null {
  const text = token.trim();
  if (text === '') {
    return 'Paste a dashboard token.';
  }
  if (text.startsWith('rmp_')) {
    return 'That is an API key. The dashboard signs in with a dashboard token (a JWT): run `rampart token`, or sign in with your identity provider.';
  }
  const claims = readTokenClaims(text);
  if (claims === null) {
    return 'That is not a dashboard token (a JWT has three dot-separated parts).';
  }
  if (hasExpired(claims, now)) {
    return 'That token has expired.';
  }
  return null;
}

export function loadSession(storage: Storage, now: number): Session | null {
  const token = storage.getItem(TOKEN_KEY);
  const claims = token === null ? null : readTokenClaims(token);
  if (token === null || claims === null || hasExpired(claims, now)) {
    storage.removeItem(TOKEN_KEY);
    return null;
  }
  return { token, claims };
}

export function saveSession(storage: Storage, token: string): Session | null {
  const claims = readTokenClaims(token.trim());
  if (claims === null) {
    return null;
  }
  storage.setItem(TOKEN_KEY, token.trim());
  return { token: token.trim(), claims };
}

export function clearSession(storage: Storage): void {
  storage.removeItem(TOKEN_KEY);
}
