/**
 * The dashboard's routes over Fastify's inject (the real pages are tested in the browser, in
 * test/e2e/dashboard): a checkout whose dashboard is not built says how to build it, and the
 * policy allows the identity provider's origins only when there is one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy, registerDashboard } from './dashboard.js';

let empty = '';
beforeAll(async () => {
  empty = await mkdtemp(join(tmpdir(), 'rampart-no-dashboard-'));
});
afterAll(async () => {
  await rm(empty, { recursive: true, force: true });
});

describe('the dashboard routes', () => {
  it('answer 503 with how to build it when dist/app holds no build, and config without OIDC', async () => {
    const app = Fastify();
    await registerDashboard(app, { dir: empty });
    for (const url of ['/app', '/app/scans']) {
      const page = await app.inject(url);
      expect(page.statusCode).toBe(503);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toContain('npm run build');
    }
    const config = await app.inject('/app/config.json');
    expect(config.statusCode).toBe(200);
    expect(config.json()).toEqual({ oidc: null });
    expect(config.headers['content-security-policy']).toBe(contentSecurityPolicy());
    await app.close();
  });

  it('allow calls to this origin only, unless the sign-in names provider origins', () => {
    expect(contentSecurityPolicy()).toContain("connect-src 'self';");
    expect(contentSecurityPolicy(['https://idp.example', 'https://token.example'])).toContain(
      "connect-src 'self' https://idp.example https://token.example;",
    );
    expect(contentSecurityPolicy()).toContain("frame-ancestors 'none'");
  });
});
