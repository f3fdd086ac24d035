/**
 * The dashboard in a real browser (Debian chromium, playwright-core) against a listening app:
 * it is served at /app with its policy headers, signs in with a dashboard token, refuses an API
 * key or an expired token with a message, lists the tenant's scans, and signs out when the service
 * refuses the token.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_DIR } from '../../../src/adapters/http/routes/system/dashboard.js';
import { draftFinding, instantEngine } from '../../doubles/engines.js';
import { PHONE, screenshot, signIn, useBrowser } from '../../support/browser.js';
import { tokenFor, useTestApp } from '../../support/harness.js';

// Scans here only need to exist: a test double nmap ends each one at once with one finding.
const ctx = useTestApp(
  { ALLOW_PRIVATE_TARGETS: 'true', WORKERS: '1' },
  { engineRunners: new Map([['nmap', instantEngine(() => [draftFinding()])]]) },
);
const browser = useBrowser();

describe('the dashboard at /app', () => {
  it('is served by the service with a strict content policy, for every page path', async () => {
    for (const path of ['/app', '/app/', '/app/scans/123']) {
      const response = await ctx.app.request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.text).toMatch(
        /<script type="module" crossorigin src="\/app\/static\/[^"]+\.js">/,
      );
    }
    const script = /src="(\/app\/static\/[^"]+\.js)"/.exec(
      (await ctx.app.request('/app')).text,
    )?.[1];
    const asset = await ctx.app.request(String(script));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Without OIDC_CLIENT_ID the app offers the token sign-in only (test/e2e/dashboard/oidc.test.ts).
    const settings = await ctx.app.request('/app/config.json');
    expect(settings.body).toEqual({ oidc: null });
    expect(settings.headers.get('content-security-policy')).toContain("connect-src 'self';");
    // Sent as the build's compressed file to a browser that takes it (fetch decodes it again).
    const built = readFileSync(join(DASHBOARD_DIR, String(script).slice('/app/'.length)), 'utf8');
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    expect(asset.text).toBe(built);
    const brotli = await ctx.app.request(String(script), { headers: { 'accept-encoding': 'br' } });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(brotli.text).toBe(built);
    const plain = await ctx.app.request(String(script), {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.text).toBe(built);
    const missing = await ctx.app.request('/app/static/missing.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('signs in with a dashboard token and shows the tenant scans', async () => {
    const tenantId = randomUUID();
    const token = await tokenFor(tenantId, { subject: 'ana' });
    const created = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      json: { target: '127.0.0.2', scanType: 'nmap', name: 'first scan' },
    });
    expect(created.status).toBe(201);
    const page = await browser.open(ctx.app.url);
    await signIn(page, token);
    await page.getByRole('heading', { name: 'Scans' }).waitFor();
    const row = page.locator(`tr[data-scan-id="${created.body.data.id}"]`);
    await row.waitFor();
    expect(await row.getByRole('link').textContent()).toBe('127.0.0.2');
    expect(await page.getByText('ana').textContent()).toContain('ana');
    await screenshot(page, 'scan-list');
    // A reload keeps the session (the tab's sessionStorage); signing out forgets it.
    await page.reload();
    await row.waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Dashboard token').waitFor();
    await page.reload();
    await page.getByLabel('Dashboard token').waitFor();
  });

  it('refuses an API key, text that is no token, and an expired token, saying why', async () => {
    const page = await browser.open(ctx.app.url);
    await page.goto('/app/');
    const field = page.getByLabel('Dashboard token');
    const submit = page.getByRole('button', { name: 'Sign in' });
    await field.fill('rmp_sk_0123456789abcdef0123456789abcdef');
    await submit.click();
    expect(await page.getByRole('alert').textContent()).toContain('That is an API key');
    await field.fill('not a token');
    await submit.click();
    expect(await page.getByRole('alert').textContent()).toContain('not a dashboard token');
    await field.fill(await tokenFor(randomUUID(), { ttlSeconds: -60 }));
    await submit.click();
    expect(await page.getByRole('alert').textContent()).toContain('expired');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
  });

  it('signs out with a message when the service refuses the token', async () => {
    const page = await browser.open(ctx.app.url);
    // Well formed and unexpired, but signed with another secret: every call answers 401.
    const forged = await tokenFor(randomUUID());
    const [header, payload] = forged.split('.');
    await page.goto('/app/');
    await page.getByLabel('Dashboard token').fill(`${header}.${payload}.${'A'.repeat(43)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('Sign in again');
    await page.getByLabel('Dashboard token').waitFor();
  });

  it('is usable on a phone: the navigation and the scan table fit the screen', async () => {
    const page = await browser.open(ctx.app.url, PHONE);
    await signIn(page, await tokenFor(randomUUID()));
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    // Evaluated in the page (a string: this file is compiled without the DOM's types).
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'phone-scan-list');
  });
});
