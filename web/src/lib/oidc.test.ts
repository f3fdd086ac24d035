import {
  AuthorizationResponseError,
  OperationProcessingError,
  ResponseBodyError,
} from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import {
  accessTokenProblem,
  describeRenewalError,
  describeSignInError,
  type OidcSettings,
  PENDING_KEY,
  readOidcSettings,
  redirectUriFor,
  savePendingSignIn,
  takePendingSignIn,
} from './oidc.js';
import { memoryStorage, unsignedJwt } from './testing/browser-fakes.js';

const settings: OidcSettings = {
  issuer: 'https://idp.example/realms/main',
  clientId: 'rampart-dashboard',
  scopes: 'openid',
  audience: 'rampart-api',
  providerName: 'Example SSO',
};

const jwt = (payload: unknown) => unsignedJwt(payload);

describe('readOidcSettings', () => {
  it('reads the settings of /app/config.json, or null without them', () => {
    expect(readOidcSettings({ oidc: { ...settings, extra: 1 } })).toEqual(settings);
    expect(readOidcSettings({ oidc: null })).toBeNull();
    expect(readOidcSettings(null)).toBeNull();
    expect(readOidcSettings({ oidc: { ...settings, clientId: '' } })).toBeNull();
    expect(readOidcSettings({ oidc: { ...settings, scopes: 3 } })).toBeNull();
  });

  it('puts the callback under /app of the page origin', () => {
    expect(redirectUriFor('https://rampart.example')).toBe('https://rampart.example/app/callback');
  });
});

describe('the pending sign-in', () => {
  it('is read once: a second callback with the same tab finds none', () => {
    const storage = memoryStorage();
    const pending = { state: 's', nonce: 'n', codeVerifier: 'v'.repeat(43) };
    savePendingSignIn(storage, pending);
    expect(takePendingSignIn(storage)).toEqual(pending);
    expect(takePendingSignIn(storage)).toBeNull();
    expect(storage.length).toBe(0);
  });

  it('is none when the stored value is damaged, which is then removed', () => {
    const storage = memoryStorage();
    for (const text of ['{', '[]', JSON.stringify({ state: 's', nonce: 1, codeVerifier: 'v' })]) {
      storage.setItem(PENDING_KEY, text);
      expect(takePendingSignIn(storage)).toBeNull();
      expect(storage.getItem(PENDING_KEY)).toBeNull();
    }
  });
});

describe('accessTokenProblem', () => {
  const now = 1_700_000_000_000;
  const good = {
    iss: settings.issuer,
    aud: ['rampart-api', 'account'],
    sub: 'ana',
    tenantId: '0b6f7e1c-2f7e-4a57-9d6e-000000000001',
    exp: now / 1000 + 300,
  };

  it('accepts a JWT access token the service will accept', () => {
    expect(accessTokenProblem(jwt(good), settings, now)).toBeNull();
    expect(accessTokenProblem(jwt({ ...good, aud: 'rampart-api' }), settings, now)).toBeNull();
  });

  it.each([
    ['no token', undefined, 'returned no access token'],
    ['an opaque token', 'opaque-token-value', 'is not a JWT'],
    [
      'another issuer',
      jwt({ ...good, iss: 'https://other.example' }),
      'issuer is "https://other.example"',
    ],
    [
      'the client id as audience (an ID token)',
      jwt({ ...good, aud: 'rampart-dashboard' }),
      'not for this service',
    ],
    ['no tenantId', jwt({ ...good, tenantId: undefined }), 'no sub or no tenantId'],
    ['no sub', jwt({ ...good, sub: undefined }), 'no sub or no tenantId'],
    ['no exp', jwt({ ...good, exp: undefined }), 'no exp claim'],
    ['an expired one', jwt({ ...good, exp: now / 1000 - 1 }), 'already expired'],
  ])('refuses %s, saying what to change', (_label, token, message) => {
    expect(accessTokenProblem(token, settings, now)).toContain(message);
  });

  it('names the audience to configure when the token is not for the service', () => {
    expect(accessTokenProblem('opaque', settings, now)).toContain('for the audience "rampart-api"');
  });
});

describe('describeSignInError', () => {
  it('gives the provider error code and description of a refused authorization', () => {
    const error = new AuthorizationResponseError('x', {
      cause: new URLSearchParams({ error: 'access_denied', error_description: 'user cancelled' }),
    });
    expect(describeSignInError(error)).toBe(
      'The identity provider refused the sign-in: access_denied (user cancelled).',
    );
  });

  it('gives the token endpoint error of a refused code exchange', () => {
    const response = new Response('{}', { status: 400 });
    const error = new ResponseBodyError('x', {
      cause: { error: 'invalid_grant', error_description: 'PKCE verification failed' },
      response,
    });
    expect(describeSignInError(error)).toBe(
      'The identity provider refused to exchange the code for tokens: invalid_grant (PKCE verification failed).',
    );
  });

  it('says a mismatched state belongs to no sign-in of this tab', () => {
    const error = new OperationProcessingError('unexpected "state" response parameter value');
    expect(describeSignInError(error)).toContain(
      'does not belong to a sign-in started in this tab',
    );
  });

  it('says the provider could not be reached when fetch fails, and passes other messages on', () => {
    expect(describeSignInError(new TypeError('Failed to fetch'))).toBe(
      'The identity provider could not be reached (Failed to fetch).',
    );
    expect(describeSignInError(new Error('No sign-in was started.'))).toBe(
      'No sign-in was started.',
    );
  });
});

describe('describeRenewalError', () => {
  it('gives the token endpoint error of a refused renewal, and other failures after it', () => {
    const error = new ResponseBodyError('x', {
      cause: { error: 'invalid_grant', error_description: 'Token is not active' },
      response: new Response('{}', { status: 400 }),
    });
    expect(describeRenewalError(error)).toBe(
      'Your session expired and the identity provider refused to renew it: invalid_grant (Token is not active). Sign in again.',
    );
    expect(describeRenewalError(new TypeError('Failed to fetch'))).toBe(
      'Your session expired and could not be renewed: The identity provider could not be reached (Failed to fetch). Sign in again.',
    );
    expect(describeRenewalError(new Error('the service no longer offers it'))).toBe(
      'Your session expired and could not be renewed: the service no longer offers it. Sign in again.',
    );
  });
});
