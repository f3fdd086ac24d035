/**
 * REQUIRE_VERIFIED_TARGETS over real HTTP (issue 24): with `intrusive`, an unverified sqlmap scan is
 * refused (403 TARGET_NOT_VERIFIED, nothing stored) and a sublist3r scan is allowed; once the
 * domain is verified by a DNS TXT record (a DNS server this test runs on 127.0.0.1), the sqlmap
 * scan is accepted and linked to the verified asset. With `all`, sublist3r needs it too.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { createKey, startApp, type TestApp, tokenFor } from '../support/harness.js';

let database: TestDatabase;
let intrusive: TestApp;
let all: TestApp;
let dns: TestDnsServer;
let key = '';

beforeAll(async () => {
  dns = await startDnsServer();
  database = await createTestDatabase();
  const options = {
    engineRunners: new Map([
      ['sqlmap', instantEngine()],
      ['sublist3r', instantEngine()],
    ]),
    resolver: { check: async () => ({ ok: true as const, addresses: ['203.0.113.80'] }) },
  };
  const env = {
    WORKERS: '1',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    VERIFICATION_DNS_SERVERS: dns.address,
  };
  intrusive = await startApp(
    database.handle,
    { ...env, REQUIRE_VERIFIED_TARGETS: 'intrusive' },
    options,
  );
  all = await startApp(database.handle, { ...env, REQUIRE_VERIFIED_TARGETS: 'all' }, options);
  key = (await createKey(intrusive, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 }))
    .rawKey;
});

afterAll(async () => {
  await all?.close();
  await intrusive?.close();
  await database?.destroy();
  await dns?.close();
});

const call = (app: TestApp, method: string, path: string, json?: unknown) =>
  app.request(path, {
    method,
    headers: { 'x-api-key': key },
    ...(json === undefined ? {} : { json }),
  });

async function scanCount(): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*)::int as n from scans`.execute(
    database.handle.db,
  );
  return rows.rows[0]?.n ?? 0;
}

describe('REQUIRE_VERIFIED_TARGETS=intrusive', () => {
  it('refuses an sqlmap scan of an unverified target, allows sublist3r, and allows sqlmap once verified', async () => {
    const before = await scanCount();
    const target = 'https://www.owned.example/login?id=1';
    const refused = await call(intrusive, 'POST', '/api/v1/scans', { target, scanType: 'sqlmap' });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.code).toBe('TARGET_NOT_VERIFIED');
    expect(refused.body.error).toBe(
      `Target not verified: REQUIRE_VERIFIED_TARGETS=intrusive: sqlmap scans need a verified asset covering ${target}; register an asset covering it (POST /api/v1/assets), publish its verification token as a DNS TXT record or an HTTPS file, then POST /api/v1/assets/<id>/verify`,
    );
    expect(await scanCount()).toBe(before);

    const passive = await call(intrusive, 'POST', '/api/v1/scans', {
      target: 'owned.example',
      scanType: 'sublist3r',
    });
    expect(passive.status, passive.text).toBe(201);

    const created = await call(intrusive, 'POST', '/api/v1/assets', {
      name: 'owned',
      kind: 'domain',
      value: 'owned.example',
    });
    const asset = created.body.data.asset;
    const unverified = await call(intrusive, 'POST', '/api/v1/scans', {
      target,
      scanType: 'sqlmap',
    });
    expect(unverified.status).toBe(403);
    expect(unverified.body.error).toContain(
      `publish the verification token of asset ${asset.id} (domain owned.example)`,
    );

    dns.setTxt('_rampart-verification.owned.example', [
      `rampart-verification=${asset.verification.token}`,
    ]);
    const verified = await call(intrusive, 'POST', `/api/v1/assets/${asset.id}/verify`, {});
    expect(verified.body.data.asset.verification.status).toBe('verified');
    // A narrower asset that is not verified does not hide the verified domain.
    await call(intrusive, 'POST', '/api/v1/assets', {
      name: 'www',
      kind: 'host',
      value: 'www.owned.example',
    });
    const accepted = await call(intrusive, 'POST', '/api/v1/scans', { target, scanType: 'sqlmap' });
    expect(accepted.status, accepted.text).toBe(201);
    const detail = await call(
      intrusive,
      'GET',
      `/api/v1/scans/${accepted.body.data.id}?scanType=sqlmap`,
    );
    expect(detail.body.data.scan.assetId).toBe(asset.id);
  });
});

describe('REQUIRE_VERIFIED_TARGETS=all', () => {
  it('refuses a sublist3r scan of an unverified domain too', async () => {
    const refused = await call(all, 'POST', '/api/v1/scans', {
      target: 'elsewhere.example',
      scanType: 'sublist3r',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('TARGET_NOT_VERIFIED');
    expect(refused.body.error).toContain('REQUIRE_VERIFIED_TARGETS=all: sublist3r scans');
    const verified = await call(all, 'POST', '/api/v1/scans', {
      target: 'owned.example',
      scanType: 'sublist3r',
    });
    expect(verified.status, verified.text).toBe(201);
  });
});
