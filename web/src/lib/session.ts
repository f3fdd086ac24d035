/**
 * The signed-in session: the dashboard token and, after a sign-in with the identity provider that
 * issued one, its refresh token, kept in the tab's sessionStorage (gone when the tab closes; never
 * in localStorage, where every tab and every script of the origin would keep them).
 */
import { hasExpired, readTokenClaims, type TokenClaims } from './token-claims.js';

const TOKEN_KEY = 'rampart.token';
const REFRESH_KEY = 'rampart.oidc.refresh';

export interface Session {
  readonly token: string;
  readonly claims: TokenClaims;
  /** The identity provider's refresh token: the token is renewed with it before it expires. */
  readonly refreshToken: string | null;
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

/**
 * The tab's session, or null. A session whose token has expired is kept while it has a refresh
 * token (a tab reopened after a pause renews it: sessionNeedsRenewal); otherwise it is removed.
 */
export function loadSession(storage: Storage, now: number): Session | null {
  const token = storage.getItem(TOKEN_KEY);
  const refreshToken = storage.getItem(REFRESH_KEY);
  const claims = token === null ? null : readTokenClaims(token);
  if (token === null || claims === null || (hasExpired(claims, now) && refreshToken === null)) {
    clearSession(storage);
    return null;
  }
  return { token, claims, refreshToken };
}

export function saveSession(
  storage: Storage,
  token: string,
  refreshToken: string | null = null,
): Session | null {
  const claims = readTokenClaims(token.trim());
  if (claims === null) {
    return null;
  }
  storage.setItem(TOKEN_KEY, token.trim());
  if (refreshToken === null) {
    storage.removeItem(REFRESH_KEY);
  } else {
    storage.setItem(REFRESH_KEY, refreshToken);
  }
  return { token: token.trim(), claims, refreshToken };
}

export function clearSession(storage: Storage): void {
  storage.removeItem(TOKEN_KEY);
  storage.removeItem(REFRESH_KEY);
}

/** Whether the session's token has expired and waits for its renewal before any call. */
export function sessionNeedsRenewal(session: Session, now: number): boolean {
  return session.refreshToken !== null && hasExpired(session.claims, now);
}

/**
 * How long from `now` until the session's token is renewed: a minute before it expires, or half
 * of what is left when less than two minutes are (a provider's five-minute token is renewed at
 * four; a token already expired, at once).
 */
export function renewalDelayMs(expiresAt: number, now: number): number {
  const left = Math.max(expiresAt - now, 0);
  return Math.max(left - 60_000, left / 2);
}
