/**
 * Ownership verification over real HTTP (issue 24): TXT records served by a DNS server this test
 * runs on 127.0.0.1 (VERIFICATION_DNS_SERVERS), the HTTPS proof file served by a local HTTPS
 * server whose certificate the test CA signed, a proof that disappears (grace period, with the
 * app's clock moved), and the webhook SSRF guard applied to the file check.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { createKey, startApp, type TestApp, tokenFor } from '../support/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from '../support/tls.js';

const HOUR = 3_600_000;
let database: TestDatabase;
let app: TestApp;
let guarded: TestApp;
let dns: TestDnsServer;
let site: HttpsReceiver;
let key = '';
let guardedKey = '';
let otherKey = '';
let now = new Date();
/** What the HTTPS server answers for the proof file: [status, body]. */
let proofAnswer: [number, string] = [404, ''];

beforeAll(async () => {
  dns = await startDnsServer();
  site = await startHttpsReceiver((request, res) => {
    const [status, body] =
      request.url === '/.well-known/rampart-verification.txt' ? proofAnswer : [404, ''];
    res.writeHead(status, status === 302 ? { location: '/elsewhere' } : {});
    res.end(body);
  });
  database = await createTestDatabase();
  const env = {
    VERIFICATION_DNS_SERVERS: dns.address,
    VERIFICATION_TIMEOUT_MS: '3000',
    VERIFICATION_GRACE_HOURS: '24',
  };
  const clock = { now: () => now };
  app = await startApp(database.handle, { ...env, ALLOW_PRIVATE_WEBHOOKS: 'true' }, { clock });
  guarded = await startApp(database.handle, env, { clock });
  const token = await tokenFor(randomUUID());
  key = (await createKey(app, token, { rateLimitPerMinute: 1000 })).rawKey;
  guardedKey = (await createKey(guarded, token, { rateLimitPerMinute: 1000 })).rawKey;
  otherKey = (await createKey(app, await tokenFor(randomUUID()))).rawKey;
});

afterAll(async () => {
  await guarded?.close();
  await app?.close();
  await database?.destroy();
  await site?.close();
  await dns?.close();
});

const call = (method: string, path: string, json?: unknown, apiKey = key, on = app) =>
  on.request(path, {
    method,
    headers: { 'x-api-key': apiKey },
    ...(json === undefined ? {} : { json }),
  });

async function asset(body: Record<string, unknown>) {
  const response = await call('POST', '/api/v1/assets', body);
  expect(response.status, response.text).toBe(201);
  return response.body.data.asset;
}

async function verify(id: string, body: unknown = {}, apiKey = key, on = app) {
  const response = await call('POST', `/api/v1/assets/${id}/verify`, body, apiKey, on);
  expect(response.status, response.text).toBe(200);
  return response.body.data.asset.verification;
}

describe('verification by DNS TXT record', () => {
  it('verifies at _rampart-verification.<name> or the name, and only with the right token', async () => {
    const shop = await asset({ name: 'shop', kind: 'domain', value: 'shop.example' });
    const first = await verify(shop.id);
    expect(first).toMatchObject({ status: 'unverified', method: null });
    expect(first.lastError).toContain('no TXT record at shop.example');
    expect(first.lastCheckedAt).toBe(now.toISOString());

    dns.setTxt('_rampart-verification.shop.example', ['rampart-verification=not-the-token']);
    expect((await verify(shop.id)).status).toBe('unverified');

    dns.setTxt('_rampart-verification.shop.example', [
      'v=spf1 -all',
      `rampart-verification=${shop.verification.token}`,
    ]);
    const proven = await verify(shop.id);
    expect(proven).toMatchObject({
      status: 'verified',
      method: 'dns',
      verifiedAt: now.toISOString(),
      lastError: null,
    });
    expect(dns.queries).toContain('TXT _rampart-verification.shop.example');

    const apex = await asset({ name: 'apex', kind: 'domain', value: 'apex.example' });
    dns.setTxt('apex.example', [`rampart-verification=${apex.verification.token}`]);
    expect(await verify(apex.id, { method: 'dns' })).toMatchObject({ status: 'verified' });
  });

  it('keeps a verified asset through the grace period when its proof disappears, then unverifies it', async () => {
    const gone = await asset({ name: 'gone', kind: 'domain', value: 'gone.example' });
    dns.setTxt('gone.example', [`rampart-verification=${gone.verification.token}`]);
    const verifiedAt = now.toISOString();
    expect((await verify(gone.id)).status).toBe('verified');

    dns.removeTxt('gone.example');
    now = new Date(now.getTime() + HOUR);
    const missing = await verify(gone.id, { method: 'dns' });
    expect(missing).toMatchObject({ status: 'verified', method: 'dns', verifiedAt });
    expect(missing.lastError).toContain('no TXT record at gone.example');

    now = new Date(now.getTime() + 24 * HOUR);
    const lost = await verify(gone.id, { method: 'dns' });
    expect(lost).toMatchObject({ status: 'unverified', method: null, verifiedAt: null });
    const read = await call('GET', `/api/v1/assets/${gone.id}`);
    expect(read.body.data.asset.verification.status).toBe('unverified');
  });
});

describe('verification by HTTPS file', () => {
  it('verifies a URL asset by the file at its origin, and never follows a redirect', async () => {
    const origin = site.url.replace(/\/$/, '');
    const web = await asset({ name: 'web', kind: 'url', value: `${origin}/app` });
    expect(web.verification.http.url).toBe(`${origin}/.well-known/rampart-verification.txt`);
    expect(web.verification.dns).toBeNull();

    proofAnswer = [302, ''];
    const redirected = await verify(web.id);
    expect(redirected.status).toBe('unverified');
    expect(redirected.lastError).toContain('HTTP 302 (redirects are not followed)');

    proofAnswer = [200, 'some other text'];
    expect((await verify(web.id)).lastError).toContain('does not hold the token');

    proofAnswer = [200, `${web.verification.token}\n`];
    const before = site.requests.length;
    expect(await verify(web.id, { method: 'http' })).toMatchObject({
      status: 'verified',
      method: 'http',
      lastError: null,
    });
    const request = site.requests.at(-1);
    expect(site.requests.length).toBe(before + 1);
    expect(request).toMatchObject({ method: 'GET', url: '/.well-known/rampart-verification.txt' });
  });

  it('goes through the webhook SSRF guard: a loopback address is refused while ALLOW_PRIVATE_WEBHOOKS is off', async () => {
    const origin = site.url.replace(/\/$/, '');
    const created = await call(
      'POST',
      '/api/v1/assets',
      { name: 'lo', kind: 'url', value: `${origin}/` },
      guardedKey,
      guarded,
    );
    const id = created.body.data.asset.id;
    proofAnswer = [200, created.body.data.asset.verification.token];
    const connections = site.connections;
    const refused = await verify(id, {}, guardedKey, guarded);
    expect(refused.status).toBe('unverified');
    expect(refused.lastError).toContain('127.0.0.1 is a loopback address');
    expect(site.connections).toBe(connections);
    // The same asset, checked by the app that allows private addresses, is verified.
    expect((await verify(id, {}, guardedKey, app)).status).toBe('verified');
  });
});

describe('periodic re-verification', () => {
  it('checks verified assets again each interval and unverifies one whose proof stays missing past the grace period', async () => {
    const periodic = await asset({ name: 'periodic', kind: 'domain', value: 'periodic.example' });
    dns.setTxt('periodic.example', [`rampart-verification=${periodic.verification.token}`]);
    expect((await verify(periodic.id)).status).toBe('verified');
    const read = async () =>
      (await call('GET', `/api/v1/assets/${periodic.id}`)).body.data.asset.verification;

    // Not due yet: nothing is checked.
    dns.removeTxt('periodic.example');
    now = new Date(now.getTime() + HOUR);
    await app.composed.reverifier.runOnce();
    expect(await read()).toMatchObject({ status: 'verified', lastError: null });

    // Due (VERIFICATION_INTERVAL_HOURS, default 24): the proof is missing, the grace period starts.
    now = new Date(now.getTime() + 24 * HOUR);
    await app.composed.reverifier.runOnce();
    const missing = await read();
    expect(missing).toMatchObject({ status: 'verified', lastCheckedAt: now.toISOString() });
    expect(missing.lastError).toContain('no TXT record at periodic.example');

    // Past VERIFICATION_GRACE_HOURS (24) and due again: unverified.
    now = new Date(now.getTime() + 25 * HOUR);
    await app.composed.reverifier.runOnce();
    expect(await read()).toMatchObject({ status: 'unverified', method: null });
  });
});

describe('periodic re-verification by several processes', () => {
  it('checks a due asset once per interval, whichever process claims it', async () => {
    const shared = await asset({ name: 'shared', kind: 'domain', value: 'shared.example' });
    dns.setTxt('shared.example', [`rampart-verification=${shared.verification.token}`]);
    expect((await verify(shared.id)).status).toBe('verified');
    const lookups = () => dns.queries.filter((q) => q === 'TXT shared.example').length;
    const before = lookups();
    now = new Date(now.getTime() + 25 * HOUR);
    await Promise.all([
      app.composed.reverifier.runOnce(),
      guarded.composed.reverifier.runOnce(),
      app.composed.reverifier.runOnce(),
      guarded.composed.reverifier.runOnce(),
    ]);
    expect(lookups() - before).toBe(1);
  });
});

describe('admin verification', () => {
  it('verifies an IP or network asset by an administrator, which periodic checks leave alone', async () => {
    const net = await asset({ name: 'office', kind: 'network', value: '192.0.2.0/24' });
    const admin = await tokenFor(randomUUID(), { admin: true });
    const notAdmin = await tokenFor(randomUUID());
    const path = `/api/v1/admin/assets/${net.id}/verify`;
    const refused = await app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${notAdmin}` },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ADMIN_REQUIRED');
    const done = await app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.asset.verification).toMatchObject({
      status: 'verified',
      method: 'admin',
      verifiedAt: now.toISOString(),
    });
    now = new Date(now.getTime() + 1000 * HOUR);
    await app.composed.reverifier.runOnce();
    const read = await call('GET', `/api/v1/assets/${net.id}`);
    expect(read.body.data.asset.verification).toMatchObject({
      status: 'verified',
      method: 'admin',
    });
    const undone = await app.request(`/api/v1/admin/assets/${net.id}/unverify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(undone.body.data.asset.verification).toMatchObject({
      status: 'unverified',
      method: null,
    });
    const unknown = await app.request(`/api/v1/admin/assets/${randomUUID()}/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('ASSET_NOT_FOUND');
  });
});

const isRoot = process.getuid?.() === 0;

// An IP asset's file is at https://<address>/ (port 443, which only root may listen on).
describe.runIf(isRoot)('verification of an IP asset by the HTTPS file on its address', () => {
  it('reads the file from port 443 of the address and verifies the asset with the token', async () => {
    let served = '';
    const onAddress = await startHttpsReceiver(
      (request, res) => {
        const found = request.url === '/.well-known/rampart-verification.txt';
        res.writeHead(found ? 200 : 404);
        res.end(found ? served : '');
      },
      { port: 443 },
    );
    try {
      const ip = await asset({ name: 'loopback', kind: 'ip', value: '127.0.0.1' });
      expect(ip.verification.http.url).toBe(
        'https://127.0.0.1/.well-known/rampart-verification.txt',
      );
      served = 'not the token';
      expect(await verify(ip.id)).toMatchObject({ status: 'unverified' });
      served = ip.verification.token;
      expect(await verify(ip.id)).toMatchObject({ status: 'verified', method: 'http' });
      expect(onAddress.requests.map((request) => request.url)).toEqual([
        '/.well-known/rampart-verification.txt',
        '/.well-known/rampart-verification.txt',
      ]);
    } finally {
      await onAddress.close();
    }
  });
});

describe('verify', () => {
  it('answers 409 VERIFICATION_NOT_AVAILABLE where no proof of that kind exists', async () => {
    const net = await asset({ name: 'net', kind: 'network', value: '198.51.100.0/24' });
    const answer = await call('POST', `/api/v1/assets/${net.id}/verify`, {});
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      success: false,
      code: 'VERIFICATION_NOT_AVAILABLE',
      error:
        'This asset cannot be verified that way: network assets are verified by an administrator',
    });
    expect(net.verification).toMatchObject({ dns: null, http: null });
    const ip = await asset({ name: 'ip', kind: 'ip', value: '198.51.100.7' });
    expect(ip.verification.http.url).toBe(
      'https://198.51.100.7/.well-known/rampart-verification.txt',
    );
    const byDns = await call('POST', `/api/v1/assets/${ip.id}/verify`, { method: 'dns' });
    expect(byDns.body.code).toBe('VERIFICATION_NOT_AVAILABLE');
    const bad = await call('POST', `/api/v1/assets/${ip.id}/verify`, { method: 'smtp' });
    expect(bad.status).toBe(400);
  });

  it("answers 404 ASSET_NOT_FOUND for another tenant's asset", async () => {
    const mine = await asset({ name: 'mine', kind: 'domain', value: 'mine.example' });
    const answer = await call('POST', `/api/v1/assets/${mine.id}/verify`, {}, otherKey);
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('ASSET_NOT_FOUND');
  });
});
