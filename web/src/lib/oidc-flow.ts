/**
 * The identity provider's sign-in in the browser, with oauth4webapi: discovery of JWT_ISSUER,
 * PKCE (S256), state and nonce, the authorization code exchange as a public client (no secret),
 * the ID token's checks, and the renewal of the access token with the refresh token the provider
 * issued. The pure parts (settings, storage, token checks, messages) are in oidc.ts.
 */
import * as oauth from 'oauth4webapi';
import {
  accessTokenProblem,
  type OidcSettings,
  type OidcTokens,
  readOidcSettings,
  redirectUriFor,
  savePendingSignIn,
  takePendingSignIn,
} from './oidc.js';

/** The service's sign-in settings (GET /app/config.json, a page resource, not an API call). */
export async function fetchOidcSettings(): Promise<unknown> {
  const response = await fetch('/app/config.json', { headers: { accept: 'application/json' } });
  if (!response.ok) {
    throw new Error(`The dashboard settings could not be read (HTTP ${response.status}).`);
  }
  return response.json();
}

async function discover(settings: OidcSettings): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(settings.issuer);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer));
}

/** Leaves for the provider's authorization endpoint, keeping the round trip's secrets in `storage`. */
export async function startOidcSignIn(settings: OidcSettings, storage: Storage): Promise<void> {
  const server = await discover(settings);
  if (server.authorization_endpoint === undefined) {
    throw new Error('The identity provider names no authorization endpoint.');
  }
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const pending = {
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    codeVerifier,
  };
  const url = new URL(server.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: settings.clientId,
    redirect_uri: redirectUriFor(window.location.origin),
    scope: settings.scopes,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    // The API the access token is for: providers such as Auth0 issue a JWT access token for it
    // only when asked this way (an opaque one otherwise); others ignore the parameter (RFC 6749
    // section 3.1: unrecognized request parameters are ignored).
    audience: settings.audience,
  }).toString();
  savePendingSignIn(storage, pending);
  window.location.assign(url.href);
}

/**
 * Completes the sign-in the provider sent the browser back from (`callback` is the address with
 * its code and state): the access token the dashboard then uses, and the refresh token that
 * renews it. Throws oauth4webapi's errors or an Error with a sentence (describeSignInError).
 */
export async function finishOidcSignIn(
  settings: OidcSettings,
  storage: Storage,
  callback: URL,
): Promise<OidcTokens> {
  const pending = takePendingSignIn(storage);
  if (pending === null) {
    throw new Error(
      'No sign-in with the identity provider was started in this tab (or it was already used). Start again.',
    );
  }
  const server = await discover(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  const parameters = oauth.validateAuthResponse(server, client, callback, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    server,
    client,
    oauth.None(),
    parameters,
    redirectUriFor(window.location.origin),
    pending.codeVerifier,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(server, client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  return checkedTokens(tokens, settings, null);
}

/**
 * A new access token for the session, from the provider's token endpoint with `refreshToken`
 * (rotated when the provider sends a new one). The settings are read again: the service may no
 * longer offer the provider. Throws like finishOidcSignIn (describeRenewalError).
 */
export async function renewOidcSession(refreshToken: string): Promise<OidcTokens> {
  const settings = readOidcSettings(await fetchOidcSettings());
  if (settings === null) {
    throw new Error('sign-in with an identity provider is no longer configured on this service');
  }
  const server = await discover(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  const response = await oauth.refreshTokenGrantRequest(server, client, oauth.None(), refreshToken);
  const tokens = await oauth.processRefreshTokenResponse(server, client, response);
  return checkedTokens(tokens, settings, refreshToken);
}

function checkedTokens(
  tokens: oauth.TokenEndpointResponse,
  settings: OidcSettings,
  previousRefreshToken: string | null,
): OidcTokens {
  const problem = accessTokenProblem(tokens.access_token, settings, Date.now());
  if (problem !== null) {
    throw new Error(problem);
  }
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? previousRefreshToken,
  };
}
