/**
 * The dashboard's sign-in with an identity provider (OIDC_CLIENT_ID with JWKS mode), in a real
 * browser against a listening app and a test double provider over HTTPS (test/doubles/
 * oidc-provider.ts): the app publishes the sign-in settings and allows the provider's origins in
 * its page policy; "Sign in with …" goes to the provider and comes back signed in with the
 * provider's access token, which the service accepts; an answer whose state was tampered with,
 * or a code exchanged with another PKCE code_verifier, is refused with a message. A short-lived
 * access token is renewed with the provider's refresh token before it expires (and at once in a
 * tab reopened after it expired); a refused renewal signs out with the provider's reason.
 *
 * Chromium does not trust the test CA (this process does, through NODE_EXTRA_CA_CERTS: the service
 * fetches the provider's discovery document and JWKS). Its contexts here are opened with
 * playwright's `ignoreHTTPSErrors: true` rather than launching chromium with
 * `--ignore-certificate-errors`: it applies to this file's contexts only, and the shared browser
 * helper stays as strict as before for every other test.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFinding, instantEngine } from '../../doubles/engines.js';
import { type OidcProviderDouble, startOidcProviderDouble } from '../../doubles/oidc-provider.js';
import { screenshot, useBrowser } from '../../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { bearer, startApp, type TestApp } from '../../support/harness.js';

const CLIENT_ID = 'rampart-dashboard';
const AUDIENCE = 'rampart-api';
// The dashboard's key of the round trip's secrets (web/src/lib/oidc.ts PENDING_KEY; that module
// needs the DOM's types, which this file is compiled without).
const PENDING_KEY = 'rampart.oidc.pending';

let provider: OidcProviderDouble;
let database: TestDatabase;
let app: TestApp;
const browser = useBrowser();

beforeAll(async () => {
  provider = await startOidcProviderDouble({ clientId: CLIENT_ID, audience: AUDIENCE });
  database = await createTestDatabase();
  app = await startApp(
    database.handle,
    {
      JWT_SECRET: '',
      JWT_JWKS_URL: provider.jwksUrl,
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: AUDIENCE,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_PROVIDER_NAME: 'Test IdP',
      ALLOW_PRIVATE_TARGETS: 'true',
      WORKERS: '1',
    },
    { engineRunners: new Map([['nmap', instantEngine(() => [draftFinding()])]]) },
  );
  provider.allowRedirectUri(`${app.url}/app/callback`);
});

afterAll(async () => {
  await app?.close();
  await database?.destroy();
  await provider?.close();
});

const openSignIn = async (): Promise<Page> => {
  const page = await browser.open(app.url, undefined, { ignoreHTTPSErrors: true });
  await page.goto('/app/');
  return page;
};

/**
 * Clicks "Sign in with Test IdP" and holds the browser at the provider's authorization endpoint
 * (answered by the test, not the provider): the authorization request the dashboard made.
 */
async function holdAtProvider(page: Page): Promise<URL> {
  let held: URL | null = null;
  await page.route(`${provider.issuer}/authorize?*`, (route) => {
    held = new URL(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/plain', body: 'held by the test' });
  });
  await page.getByRole('button', { name: 'Sign in with Test IdP' }).click();
  await page.getByText('held by the test').waitFor();
  await page.unroute(`${provider.issuer}/authorize?*`);
  if (held === null) {
    throw new Error('the dashboard never went to the authorization endpoint');
  }
  return held;
}

/** Signs `user` in through the provider; resolves once the dashboard shows the signed-in layout. */
async function signInThroughProvider(user: { sub: string; tenantId: string }): Promise<Page> {
  provider.setUser(user);
  const page = await openSignIn();
  await page.getByRole('button', { name: 'Sign in with Test IdP' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/** The token the tab keeps, and its expiry (epoch ms). */
async function keptToken(page: Page): Promise<{ token: string | null; expiresAt: number }> {
  const token = await page.evaluate<string | null>(`sessionStorage.getItem('rampart.token')`);
  const payload =
    token === null
      ? { exp: 0 }
      : (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
          exp: number;
        });
  return { token, expiresAt: payload.exp * 1000 };
}

/** Waits (through the page's own clock, not a sleep) until `at` has passed. */
async function waitUntilPast(page: Page, at: number): Promise<void> {
  await expect
    .poll(() => page.evaluate<number>('Date.now()'), { timeout: 15_000 })
    .toBeGreaterThan(at);
}

/** A scan of this tenant, created with a token of the provider. */
async function scanOf(user: { sub: string; tenantId: string }): Promise<string> {
  const created = await app.request('/api/v1/scans', {
    method: 'POST',
    headers: bearer(await provider.issueAccessToken(user)),
    json: { target: '127.0.0.2', scanType: 'nmap', name: 'kept across renewals' },
  });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

describe('signing in to the dashboard with the identity provider', () => {
  it('publishes the sign-in settings and allows the provider origins in the page policy', async () => {
    const settings = await app.request('/app/config.json');
    expect(settings.status).toBe(200);
    expect(settings.headers.get('content-type')).toMatch(/^application\/json/);
    expect(settings.body).toEqual({
      oidc: {
        issuer: provider.issuer,
        clientId: CLIENT_ID,
        scopes: 'openid',
        audience: AUDIENCE,
        providerName: 'Test IdP',
      },
    });
    const page = await app.request('/app/');
    // The issuer's origin (discovery) and the token endpoint's (another host name), no others.
    expect(page.headers.get('content-security-policy')).toContain(
      `connect-src 'self' ${provider.issuer} ${new URL(provider.tokenEndpoint).origin};`,
    );
  });

  it('goes to the provider and comes back signed in with its access token', async () => {
    const tenantId = randomUUID();
    const user = { sub: 'ana@idp', tenantId };
    provider.setUser(user);
    const created = await app.request('/api/v1/scans', {
      method: 'POST',
      headers: bearer(await provider.issueAccessToken(user)),
      json: { target: '127.0.0.2', scanType: 'nmap', name: 'via the provider' },
    });
    expect(created.status).toBe(201);
    const issuedBefore = provider.tokenRequests.length;

    const page = await openSignIn();
    const button = page.getByRole('button', { name: 'Sign in with Test IdP' });
    await button.waitFor();
    await screenshot(page, 'oidc-sign-in');
    await button.click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // The scan list loaded through the service with the provider's token.
    const row = page.locator(`tr[data-scan-id="${created.body.data.id}"]`);
    await row.waitFor();
    expect(await page.getByText('ana@idp').textContent()).toContain('ana@idp');
    // The code left the address bar, and the round trip's secrets left the tab's storage.
    expect(new URL(page.url()).pathname).toBe('/app/scans');
    expect(new URL(page.url()).search).toBe('');
    expect(
      await page.evaluate<string | null>(`sessionStorage.getItem('${PENDING_KEY}')`),
    ).toBeNull();
    expect(provider.tokenRequests.slice(issuedBefore)).toEqual([
      { outcome: 'issued', description: null },
    ]);
    // The dashboard keeps the access token (audience: the API), not the ID token (the client).
    const kept = await page.evaluate<string>(`sessionStorage.getItem('rampart.token')`);
    const payload = JSON.parse(Buffer.from(kept.split('.')[1] ?? '', 'base64url').toString());
    expect(payload).toMatchObject({
      iss: provider.issuer,
      aud: AUDIENCE,
      sub: 'ana@idp',
      tenantId,
    });
    await screenshot(page, 'oidc-signed-in');
  });

  it('refuses an answer whose state was tampered with, before exchanging the code', async () => {
    provider.setUser({ sub: 'mallory', tenantId: randomUUID() });
    const page = await openSignIn();
    const request = await holdAtProvider(page);
    expect(request.searchParams.get('code_challenge_method')).toBe('S256');
    expect(request.searchParams.get('redirect_uri')).toBe(`${app.url}/app/callback`);
    expect(request.searchParams.get('audience')).toBe(AUDIENCE);
    const before = provider.tokenRequests.length;
    // The provider sends the browser back with a state this tab never made.
    request.searchParams.set('state', 'forged-state');
    await page.goto(request.href);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('does not belong to a sign-in started in this tab');
    expect(new URL(page.url()).pathname).toBe('/app/');
    expect(new URL(page.url()).search).toBe('');
    expect(provider.tokenRequests.length).toBe(before);
    await page.getByLabel('Dashboard token').waitFor();
    expect(
      await page.evaluate<string | null>(`sessionStorage.getItem('rampart.token')`),
    ).toBeNull();
  });

  it('is refused by the provider when the code comes with another code_verifier', async () => {
    provider.setUser({ sub: 'mallory', tenantId: randomUUID() });
    const page = await openSignIn();
    const request = await holdAtProvider(page);
    // Back in the dashboard's tab, its verifier is swapped for another well-formed one (as a code
    // stolen on the way and redeemed with the thief's own verifier would be).
    await page.goto('/app/');
    await page.evaluate(`(() => {
      const pending = JSON.parse(sessionStorage.getItem('${PENDING_KEY}'));
      pending.codeVerifier = '${'x'.repeat(43)}';
      sessionStorage.setItem('${PENDING_KEY}', JSON.stringify(pending));
    })()`);
    const before = provider.tokenRequests.length;
    await page.goto(request.href);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'The identity provider refused to exchange the code for tokens: invalid_grant (code_verifier does not match the code_challenge).',
    );
    expect(provider.tokenRequests.slice(before)).toEqual([
      { outcome: 'invalid_grant', description: 'code_verifier does not match the code_challenge' },
    ]);
    expect(new URL(page.url()).search).toBe('');
    expect(
      await page.evaluate<string | null>(`sessionStorage.getItem('rampart.token')`),
    ).toBeNull();
    await screenshot(page, 'oidc-refused');
  });

  it('renews its short-lived access token with the refresh token, and works past its expiry', async () => {
    const user = { sub: 'renewing@idp', tenantId: randomUUID() };
    const scanId = await scanOf(user);
    provider.setAccessTokenLifetime(4);
    try {
      const before = provider.tokenRequests.length;
      const page = await signInThroughProvider(user);
      const first = await keptToken(page);
      // Renewed at half of the four seconds, before the first token expires.
      await expect
        .poll(async () => (await keptToken(page)).token, { timeout: 10_000 })
        .not.toBe(first.token);
      expect((await keptToken(page)).expiresAt).toBeGreaterThan(first.expiresAt);
      await waitUntilPast(page, first.expiresAt + 2_500);
      // Still signed in, and the calls go out with a live token.
      await page.getByRole('link', { name: 'Issues' }).click();
      await page.getByRole('heading', { name: 'Issues', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Scans' }).click();
      await page.locator(`tr[data-scan-id="${scanId}"]`).waitFor();
      const requests = provider.tokenRequests.slice(before).map((request) => request.outcome);
      expect(requests[0]).toBe('issued');
      expect(requests.slice(1).length).toBeGreaterThanOrEqual(2);
      expect(requests.slice(1).every((outcome) => outcome === 'refreshed')).toBe(true);
      expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    } finally {
      provider.setAccessTokenLifetime(600);
    }
  });

  it('renews at once in a tab reopened after its access token expired', async () => {
    const user = { sub: 'returning@idp', tenantId: randomUUID() };
    const scanId = await scanOf(user);
    provider.setAccessTokenLifetime(3);
    try {
      const page = await signInThroughProvider(user);
      // The tab leaves the dashboard for a page of the same origin without its script (its
      // timers stop; the tab's storage stays readable), and comes back after the token expired.
      await page.goto(`${app.url}/app/config.json`);
      const left = await keptToken(page);
      const refreshedBefore = provider.tokenRequests.filter(
        (r) => r.outcome === 'refreshed',
      ).length;
      await waitUntilPast(page, left.expiresAt + 500);
      await page.goto(`${app.url}/app/scans`);
      await page.locator(`tr[data-scan-id="${scanId}"]`).waitFor();
      expect((await keptToken(page)).token).not.toBe(left.token);
      expect(
        provider.tokenRequests.filter((r) => r.outcome === 'refreshed').length,
      ).toBeGreaterThan(refreshedBefore);
    } finally {
      provider.setAccessTokenLifetime(600);
    }
  });

  it('signs out with the provider reason when it refuses to renew', async () => {
    provider.setAccessTokenLifetime(3);
    try {
      const page = await signInThroughProvider({ sub: 'revoked@idp', tenantId: randomUUID() });
      provider.refuseRefreshes();
      const notice = page.getByRole('status');
      await notice.waitFor({ timeout: 10_000 });
      expect(await notice.textContent()).toBe(
        'Your session expired and the identity provider refused to renew it: invalid_grant (the refresh token is unknown, used or revoked). Sign in again.',
      );
      await page.getByLabel('Dashboard token').waitFor();
      expect(
        await page.evaluate<string>(
          `JSON.stringify([sessionStorage.getItem('rampart.token'), sessionStorage.getItem('rampart.oidc.refresh')])`,
        ),
      ).toBe('[null,null]');
    } finally {
      provider.setAccessTokenLifetime(600);
    }
  });
});
