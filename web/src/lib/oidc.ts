/**
 * The pure parts of signing in with the identity provider (OpenID Connect, authorization code with
 * PKCE, the dashboard a public client): the settings the service publishes at /app/config.json,
 * the round trip's secrets kept in the tab's sessionStorage until the provider sends the browser
 * back, the checks on the token the dashboard keeps, and the messages shown when it fails.
 *
 * Which token: the **access token**. The service accepts a token whose `aud` is JWT_AUDIENCE (the
 * API), while an ID token's `aud` is the dashboard's client id and is meant for the dashboard
 * alone (OpenID Connect Core 1.0, section 2); providers issue JWT access tokens naming the API as
 * their audience. The ID token is still checked (issuer, audience, nonce, expiry: oauth4webapi),
 * which proves the answer belongs to this sign-in.
 */
import {
  AuthorizationResponseError,
  OperationProcessingError,
  ResponseBodyError,
} from 'oauth4webapi';
import { hasExpired, readTokenClaims, readTokenPayload } from './token-claims.js';

/** The sign-in's public settings (GET /app/config.json `oidc`). */
export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly scopes: string;
  readonly audience: string;
  readonly providerName: string;
}

/** Where the provider sends the browser back (registered at the provider as the redirect URI). */
export const CALLBACK_PATH = '/app/callback';

export function redirectUriFor(origin: string): string {
  return `${origin}${CALLBACK_PATH}`;
}

/** The `oidc` settings of /app/config.json's body; null when absent or not well formed. */
export function readOidcSettings(body: unknown): OidcSettings | null {
  const oidc =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>).oidc : null;
  if (typeof oidc !== 'object' || oidc === null) {
    return null;
  }
  const fields = oidc as Record<string, unknown>;
  const names = ['issuer', 'clientId', 'scopes', 'audience', 'providerName'] as const;
  if (!names.every((name) => typeof fields[name] === 'string' && fields[name] !== '')) {
    return null;
  }
  const [issuer, clientId, scopes, audience, providerName] = names.map(
    (name) => fields[name] as string,
  ) as [string, string, string, string, string];
  return { issuer, clientId, scopes, audience, providerName };
}

/** What the tab keeps between leaving for the provider and coming back; gone once used. */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

export const PENDING_KEY = 'rampart.oidc.pending';

export function savePendingSignIn(storage: Storage, pending: PendingSignIn): void {
  storage.setItem(PENDING_KEY, JSON.stringify(pending));
}

/** The pending sign-in, removed from storage (a code is exchanged once); null when none. */
export function takePendingSignIn(storage: Storage): PendingSignIn | null {
  const text = storage.getItem(PENDING_KEY);
  storage.removeItem(PENDING_KEY);
  if (text === null) {
    return null;
  }
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    const { state, nonce, codeVerifier } = value;
    if (
      typeof state === 'string' &&
      typeof nonce === 'string' &&
      typeof codeVerifier === 'string'
    ) {
      return { state, nonce, codeVerifier };
    }
  } catch {
    // Not ours, or damaged: no sign-in is pending.
  }
  return null;
}

/**
 * Why the provider's access token cannot be the dashboard's token, or null when it can: the
 * service will verify its signature; this catches a provider configured to issue tokens the
 * service would refuse, and says what to change, instead of a bare 401 on the first call.
 */
export function accessTokenProblem(
  token: string | undefined,
  settings: OidcSettings,
  now: number,
): string | null {
  const fix = `Configure the provider to issue JWT access tokens for the audience "${settings.audience}".`;
  if (token === undefined || token === '') {
    return `The identity provider returned no access token. ${fix}`;
  }
  const claims = readTokenClaims(token);
  const payload = readTokenPayload(token);
  if (claims === null || payload === null) {
    return `The identity provider's access token is not a JWT. ${fix}`;
  }
  if (payload.iss !== settings.issuer) {
    return `The access token's issuer is ${JSON.stringify(payload.iss ?? null)}, not ${settings.issuer}.`;
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(settings.audience)) {
    return `The access token is not for this service (its audience is ${JSON.stringify(payload.aud ?? null)}). ${fix}`;
  }
  if (claims.subject === '' || claims.tenantId === null) {
    return 'The access token has no sub or no tenantId claim: add a tenantId claim (the tenant UUID) to the access tokens of this client at the provider.';
  }
  if (claims.expiresAt === null || hasExpired(claims, now)) {
    return 'The access token has no exp claim or has already expired.';
  }
  return null;
}

/** The sentence shown when the sign-in with the provider fails. */
export function describeSignInError(error: unknown): string {
  if (error instanceof AuthorizationResponseError) {
    return `The identity provider refused the sign-in: ${explain(error.error, error.error_description)}.`;
  }
  if (error instanceof ResponseBodyError) {
    return `The identity provider refused to exchange the code for tokens: ${explain(error.error, error.error_description)}.`;
  }
  if (error instanceof OperationProcessingError && error.message.includes('"state"')) {
    return 'The answer from the identity provider does not belong to a sign-in started in this tab (its state does not match). Start again.';
  }
  if (error instanceof OperationProcessingError) {
    return `The identity provider's answer was refused: ${error.message}.`;
  }
  if (error instanceof TypeError) {
    // fetch's own failure: network, certificate, CORS or the page's policy.
    return `The identity provider could not be reached (${error.message}).`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** What a sign-in with the provider gives the dashboard. */
export interface OidcTokens {
  readonly accessToken: string;
  /** null when the provider issues none (then the session ends with its access token). */
  readonly refreshToken: string | null;
}

/** The sentence shown when the session ends because its renewal failed. */
export function describeRenewalError(error: unknown): string {
  if (error instanceof ResponseBodyError) {
    return `Your session expired and the identity provider refused to renew it: ${explain(error.error, error.error_description)}. Sign in again.`;
  }
  const reason = describeSignInError(error);
  return `Your session expired and could not be renewed: ${reason}${reason.endsWith('.') ? '' : '.'} Sign in again.`;
}

function explain(code: string, description: string | undefined): string {
  return description === undefined || description === '' ? code : `${code} (${description})`;
}
