/**
 * Assets over real HTTP (issue 24): CRUD, validation, another tenant's assets, and the assetId
 * rules of scan creation (named asset must cover the target; otherwise the narrowest covering
 * asset is linked; a deleted asset leaves its scans as they were).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/api-keys/scopes.js';
import { instantEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, getScan } from '../support/scans.js';

const ctx = useTestApp(
  { WORKERS: '1', WORKER_SHUTDOWN_GRACE_MS: '100' },
  {
    engineRunners: new Map([['nmap', instantEngine()]]),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);
let key = '';
let otherKey = '';

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 }))
    .rawKey;
  otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 }))
    .rawKey;
});

const call = (method: string, path: string, json?: unknown, apiKey = key) =>
  ctx.app.request(path, {
    method,
    headers: { 'x-api-key': apiKey },
    ...(json === undefined ? {} : { json }),
  });

async function asset(body: Record<string, unknown>, apiKey = key) {
  const response = await call('POST', '/api/v1/assets', body, apiKey);
  expect(response.status, response.text).toBe(201);
  return response.body.data.asset;
}

describe('assets', () => {
  it('are in the scopes of a key created without scopes', async () => {
    const created = await createKey(ctx.app, await tokenFor(randomUUID()));
    expect(created.apiKey.scopes).toEqual(expect.arrayContaining(['assets:read', 'assets:write']));
    expect(SCOPES).toContain('assets:write');
  });

  it('creates, lists, gets, patches and deletes an asset, with the steps that verify it', async () => {
    const created = await asset({
      name: 'Shop',
      kind: 'domain',
      value: 'shop.example',
      tags: ['prod', 'web', 'prod'],
    });
    expect(created).toMatchObject({
      name: 'Shop',
      kind: 'domain',
      value: 'shop.example',
      tags: ['prod', 'web'],
      verification: {
        status: 'unverified',
        method: null,
        verifiedAt: null,
        dns: {
          type: 'TXT',
          names: ['shop.example', '_rampart-verification.shop.example'],
          value: `rampart-verification=${created.verification.token}`,
        },
        http: {
          url: 'https://shop.example/.well-known/rampart-verification.txt',
          content: created.verification.token,
        },
      },
    });
    expect(created.verification.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const listed = await call('GET', '/api/v1/assets?tag=web');
    expect(listed.body.data.assets.map((a: { id: string }) => a.id)).toEqual([created.id]);
    expect(listed.body.data.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect((await call('GET', '/api/v1/assets?tag=none')).body.data.assets).toEqual([]);
    expect((await call('GET', `/api/v1/assets/${created.id}`)).body.data.asset).toEqual(created);
    const patched = await call('PATCH', `/api/v1/assets/${created.id}`, { tags: ['staging'] });
    expect(patched.body.data.asset).toMatchObject({ name: 'Shop', tags: ['staging'] });
    const renamed = await call('PATCH', `/api/v1/assets/${created.id}`, { value: 'other.example' });
    expect(renamed.status).toBe(400);
    expect(renamed.body).toEqual({
      success: false,
      code: 'INVALID_FIELD_VALUE',
      error:
        'Invalid value for field value: an asset keeps its kind and value; create a new asset instead',
    });
    const deleted = await call('DELETE', `/api/v1/assets/${created.id}`);
    expect(deleted.body.data).toEqual({ id: created.id, deleted: true });
    const gone = await call('GET', `/api/v1/assets/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('ASSET_NOT_FOUND');
  });

  it.each([
    [
      { kind: 'domain', value: 'a.example' },
      'MISSING_REQUIRED_FIELD',
      'Missing required field: name',
    ],
    [{ name: 'x', kind: 'domain' }, 'MISSING_REQUIRED_FIELD', 'Missing required field: value'],
    [{ name: 'x', kind: 'planet', value: 'a.example' }, 'INVALID_FIELD_VALUE', null],
    [
      { name: 'x', kind: 'domain', value: 7 },
      'INVALID_FIELD_TYPE',
      'Field value must be of type string',
    ],
    [
      { name: 'x', kind: 'domain', value: 'localhost' },
      'INVALID_FIELD_VALUE',
      'Invalid value for field value: targetType domain does not match localhost: a domain has at least one dot',
    ],
    [{ name: 'x', kind: 'network', value: '10.0.0.0/8' }, 'INVALID_FIELD_VALUE', null],
    [{ name: 'x', kind: 'ip', value: '127.1' }, 'INVALID_FIELD_VALUE', null],
    [{ name: 'x', kind: 'url', value: 'ftp://a.example/' }, 'INVALID_FIELD_VALUE', null],
  ])('refuses %j with %s', async (body, code, error) => {
    const response = await call('POST', '/api/v1/assets', body);
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe(code);
    if (error !== null) {
      expect(response.body.error).toBe(error);
    }
  });

  it("answers another tenant's asset with 404 ASSET_NOT_FOUND, and never lists it", async () => {
    const mine = await asset({ name: 'mine', kind: 'ip', value: '203.0.113.200' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await call(method, `/api/v1/assets/${mine.id}`, body, otherKey);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        success: false,
        code: 'ASSET_NOT_FOUND',
        error: 'Asset not found',
      });
    }
    const theirs = await call('GET', '/api/v1/assets', undefined, otherKey);
    expect(theirs.body.data.assets.map((a: { id: string }) => a.id)).not.toContain(mine.id);
    expect((await call('GET', `/api/v1/assets/${mine.id}`)).body.data.asset.name).toBe('mine');
  });
});

describe('a scan and its asset', () => {
  let tenantKey = '';
  let foreignAsset = '';
  beforeAll(async () => {
    tenantKey = (
      await createKey(ctx.app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 })
    ).rawKey;
    foreignAsset = (
      await asset({ name: 'theirs', kind: 'domain', value: 'corp.example' }, otherKey)
    ).id;
  });
  const scan = (body: Record<string, unknown>) => call('POST', '/api/v1/scans', body, tenantKey);

  it('answers 400 INVALID_ASSET_ID for an assetId naming no asset of the tenant', async () => {
    for (const assetId of ['asset-1', randomUUID(), foreignAsset]) {
      const response = await scan({ target: 'www.corp.example', scanType: 'nmap', assetId });
      expect(response.status, response.text).toBe(400);
      expect(response.body).toEqual({
        success: false,
        code: 'INVALID_ASSET_ID',
        error: `Invalid assetId: no asset ${assetId}; register it with POST /api/v1/assets`,
      });
    }
  });

  it('answers 400 INVALID_ASSET_ID for an asset that does not cover the target', async () => {
    const net = await asset({ name: 'net', kind: 'network', value: '198.51.100.0/24' }, tenantKey);
    const response = await scan({ target: '198.51.101.1', scanType: 'nmap', assetId: net.id });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe(
      `Invalid assetId: asset ${net.id} (network 198.51.100.0/24) does not cover 198.51.101.1`,
    );
    // Another field's code comes first (INVALID_ASSET_ID is the last of the field codes).
    const both = await scan({
      target: '198.51.101.1',
      scanType: 'nmap',
      assetId: net.id,
      priority: 'x',
    });
    expect(both.body.code).toBe('INVALID_PRIORITY');
  });

  it('links the named asset, or else the narrowest covering one, or none', async () => {
    const domain = await asset({ name: 'd', kind: 'domain', value: 'links.example' }, tenantKey);
    const sub = await asset({ name: 's', kind: 'domain', value: 'api.links.example' }, tenantKey);
    const named = await createScan(ctx.app, tenantKey, {
      target: 'v1.api.links.example',
      scanType: 'nmap',
      assetId: domain.id.toUpperCase(),
    });
    expect((await getScan(ctx.app, tenantKey, named.id)).assetId).toBe(domain.id);
    const automatic = await createScan(ctx.app, tenantKey, {
      target: 'v1.api.links.example',
      scanType: 'nmap',
    });
    expect((await getScan(ctx.app, tenantKey, automatic.id)).assetId).toBe(sub.id);
    const uncovered = await createScan(ctx.app, tenantKey, {
      target: 'unrelated.example',
      scanType: 'nmap',
    });
    expect((await getScan(ctx.app, tenantKey, uncovered.id)).assetId).toBeNull();
    // The creation answer is the specification's, unchanged.
    expect(Object.keys(automatic)).not.toContain('assetId');
  });

  it('keeps a scan and its assetId when the asset is deleted', async () => {
    const host = await asset({ name: 'h', kind: 'ip', value: '192.0.2.44' }, tenantKey);
    const { id } = await createScan(ctx.app, tenantKey, { target: '192.0.2.44', scanType: 'nmap' });
    expect((await call('DELETE', `/api/v1/assets/${host.id}`, undefined, tenantKey)).status).toBe(
      200,
    );
    const kept = await getScan(ctx.app, tenantKey, id);
    expect(kept).toMatchObject({ id, assetId: host.id, target: '192.0.2.44' });
  });
});
