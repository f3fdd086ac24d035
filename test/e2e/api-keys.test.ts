import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/api-keys/scopes.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

const ctx = useTestApp();

let tenantId: string;
let token: string;

beforeAll(async () => {
  tenantId = randomUUID();
  token = await tokenFor(tenantId);
});

describe('POST /api/v1/api-keys', () => {
  it('creates a key with the defaults and returns the raw key once', async () => {
    const response = await ctx.app.request('/api/v1/api-keys', {
      method: 'POST',
      headers: bearer(token),
      json: { name: 'ci', description: 'CI pipeline', unknownTopLevel: 'ignored' },
    });
    expect(response.status).toBe(201);
    expect(response.body.success).toBe(true);
    const { apiKey, rawKey } = response.body.data;
    expect(rawKey).toMatch(/^rmp_sk_[A-Za-z0-9]{40}$/);
    expect(apiKey.keyPrefix).toBe(rawKey.slice(0, 13));
    expect(apiKey).toMatchObject({
      name: 'ci',
      description: 'CI pipeline',
      status: 'active',
      expiresAt: null,
      rateLimitPerMinute: 60,
      rateLimitPerHour: 1000,
      rateLimitPerDay: 10000,
      allowedIpAddresses: [],
      lastUsedAt: null,
      revokedAt: null,
      rotatedToKeyId: null,
    });
    // Every scope: the specification's 14, then Rampart's extensions.
    expect(apiKey.scopes).toEqual([...SCOPES]);
    expect(apiKey.scopes).toEqual(
      expect.arrayContaining(['usage:read', 'results:triage', 'assets:write', 'schedules:write']),
    );
    expect(apiKey.allowedScanTypes).toEqual([
      'nmap',
      'zap',
      'trivy',
      'nuclei',
      'nikto',
      'sqlmap',
      'wapiti',
      'harvester',
      'sublist3r',
      'sentinel',
    ]);
    expect(apiKey).not.toHaveProperty('keyHash');
    expect(apiKey).not.toHaveProperty('rawKey');
  });

  it('stores only the SHA-256 of the key: the raw key is in no column of any table', async () => {
    const { rawKey } = await createKey(ctx.app, token);
    const rows = await sql<{ t: string }>`select row_to_json(k)::text as t from api_keys k`.execute(
      ctx.database.handle.db,
    );
    expect(rows.rows.length).toBeGreaterThan(0);
    for (const row of rows.rows) {
      expect(row.t).not.toContain(rawKey);
      expect(row.t).not.toContain(rawKey.slice(13));
    }
  });

  it('computes expiresAt from expiresInDays', async () => {
    const { apiKey } = await createKey(ctx.app, token, { expiresInDays: 30 });
    const days = (Date.parse(String(apiKey.expiresAt)) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThan(30.01);
  });

  it.each([
    [{}, 'MISSING_REQUIRED_FIELD', 'Missing required field: name'],
    [{ name: 5 }, 'INVALID_FIELD_TYPE', 'Field name must be of type string'],
    [
      { name: '' },
      'INVALID_FIELD_VALUE',
      'Invalid value for field name: must be at least 1 characters long',
    ],
    [
      { name: 'x'.repeat(256) },
      'INVALID_FIELD_VALUE',
      'Invalid value for field name: must be at most 255 characters long',
    ],
    [{ name: 'k', scopes: ['scans:create', 'scans:destroy'] }, 'INVALID_FIELD_VALUE', null],
    [
      { name: 'k', scopes: 'scans:create' },
      'INVALID_FIELD_TYPE',
      'Field scopes must be of type array',
    ],
    [
      { name: 'k', allowedScanTypes: ['nmap', 'metasploit'] },
      'INVALID_SCAN_TYPE',
      'Invalid scan type: metasploit',
    ],
    [{ name: 'k', allowedIpAddresses: ['127.1'] }, 'INVALID_FIELD_VALUE', null],
    [{ name: 'k', allowedIpAddresses: ['10.0.0.5/24'] }, 'INVALID_FIELD_VALUE', null],
    [
      { name: 'k', rateLimitPerMinute: 0 },
      'INVALID_FIELD_VALUE',
      'Invalid value for field rateLimitPerMinute: 0 is below the minimum of 1',
    ],
    [
      { name: 'k', rateLimitPerMinute: 1001 },
      'INVALID_FIELD_VALUE',
      'Invalid value for field rateLimitPerMinute: 1001 is above the maximum of 1000',
    ],
    [{ name: 'k', rateLimitPerHour: 50001 }, 'INVALID_FIELD_VALUE', null],
    [{ name: 'k', rateLimitPerDay: 500001 }, 'INVALID_FIELD_VALUE', null],
    [
      { name: 'k', rateLimitPerMinute: '60' },
      'INVALID_FIELD_TYPE',
      'Field rateLimitPerMinute must be of type integer',
    ],
    [
      { name: 'k', rateLimitPerMinute: 1.5 },
      'INVALID_FIELD_TYPE',
      'Field rateLimitPerMinute must be of type integer',
    ],
    [{ name: 'k', expiresInDays: 3651 }, 'INVALID_FIELD_VALUE', null],
    [{ name: 'k', expiresInDays: -1 }, 'INVALID_FIELD_VALUE', null],
  ])('answers 400 for %j with %s', async (body, code, message) => {
    const response = await ctx.app.request('/api/v1/api-keys', {
      method: 'POST',
      headers: bearer(token),
      json: body,
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code });
    if (message !== null) {
      expect(response.body.error).toBe(message);
    }
  });

  it('names the offending allowlist entry with a dotted path', async () => {
    const response = await ctx.app.request('/api/v1/api-keys', {
      method: 'POST',
      headers: bearer(token),
      json: { name: 'k', allowedIpAddresses: ['127.0.0.1', '0x7f.0.0.1'] },
    });
    expect(response.body.error).toMatch(/^Invalid value for field allowedIpAddresses\.1: /);
  });

  it('accepts null and 0 for expiresInDays as never', async () => {
    for (const expiresInDays of [null, 0]) {
      const { apiKey } = await createKey(ctx.app, token, { expiresInDays });
      expect(apiKey.expiresAt).toBeNull();
    }
  });
});

describe('JWT errors on key management', () => {
  it('answers 401 MISSING_AUTH_TOKEN without a bearer token', async () => {
    const response = await ctx.app.request('/api/v1/api-keys');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      success: false,
      error: 'Missing bearer token: send Authorization: Bearer <JWT>',
      code: 'MISSING_AUTH_TOKEN',
    });
  });

  it.each([
    ['a malformed token', 'not-a-jwt'],
    ['a token signed with another secret', 'OTHER'],
    ['an expired token', 'EXPIRED'],
    ['a token without tenantId', 'NO_TENANT'],
  ])('answers 401 INVALID_AUTH_TOKEN for %s', async (_label, kind) => {
    const { signToken } = await import('../../src/adapters/auth-tokens/jwt.js');
    let bad = kind;
    if (kind === 'OTHER') {
      bad = await signToken(
        'another-secret-another-secret-another!',
        { subject: 'u', tenantId },
        60,
      );
    } else if (kind === 'EXPIRED') {
      bad = await tokenFor(tenantId, { ttlSeconds: -10 });
    } else if (kind === 'NO_TENANT') {
      bad = await signToken(
        'test-secret-that-is-at-least-32-bytes-long!',
        { subject: 'u', tenantId: 'nope' },
        60,
      );
    }
    const response = await ctx.app.request('/api/v1/api-keys', { headers: bearer(bad) });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('INVALID_AUTH_TOKEN');
  });

  it('does not accept an API key as the bearer token of key management', async () => {
    const { rawKey } = await createKey(ctx.app, token);
    const response = await ctx.app.request('/api/v1/api-keys', { headers: bearer(rawKey) });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('INVALID_AUTH_TOKEN');
  });
});

describe('GET /api/v1/api-keys and /:keyId', () => {
  it('lists only the tenant keys, newest first, never with a raw key or hash', async () => {
    const other = await tokenFor(randomUUID());
    const mine = await createKey(ctx.app, token, { name: 'newest' });
    await createKey(ctx.app, other, { name: 'someone else' });
    const response = await ctx.app.request('/api/v1/api-keys', { headers: bearer(token) });
    expect(response.status).toBe(200);
    const keys = response.body.data.apiKeys as Array<Record<string, unknown>>;
    expect(keys[0]?.id).toBe(mine.id);
    expect(keys.every((k) => k.name !== 'someone else')).toBe(true);
    expect(response.text).not.toContain(mine.rawKey);
    expect(response.text).not.toMatch(/keyHash|key_hash/);
  });

  it('reads one key, and answers 404 API_KEY_NOT_FOUND for another tenant key, an unknown id and a non-UUID id', async () => {
    const mine = await createKey(ctx.app, token);
    const ok = await ctx.app.request(`/api/v1/api-keys/${mine.id}`, { headers: bearer(token) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.apiKey.id).toBe(mine.id);
    const otherToken = await tokenFor(randomUUID());
    for (const [path, auth] of [
      [`/api/v1/api-keys/${mine.id}`, otherToken],
      [`/api/v1/api-keys/${randomUUID()}`, token],
      ['/api/v1/api-keys/not-a-uuid', token],
      ["/api/v1/api-keys/1'%20or%201=1", token],
    ] as const) {
      const response = await ctx.app.request(path, { headers: bearer(auth) });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: 'API key not found',
        code: 'API_KEY_NOT_FOUND',
      });
    }
  });
});

describe('POST /api/v1/api-keys/:keyId/rotate', () => {
  it('creates a successor that copies the settings and keeps the old key working during the grace period', async () => {
    const old = await createKey(ctx.app, token, {
      name: 'rotating',
      scopes: ['scans:read'],
      allowedScanTypes: ['nmap'],
      allowedIpAddresses: ['127.0.0.1'],
      rateLimitPerMinute: 7,
      expiresInDays: 10,
    });
    const response = await ctx.app.request(`/api/v1/api-keys/${old.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
      json: { gracePeriodHours: 2 },
    });
    expect(response.status).toBe(201);
    const { apiKey, rawKey, previousKey } = response.body.data;
    expect(rawKey).not.toBe(old.rawKey);
    expect(apiKey).toMatchObject({
      name: 'rotating',
      scopes: ['scans:read'],
      allowedScanTypes: ['nmap'],
      allowedIpAddresses: ['127.0.0.1'],
      rateLimitPerMinute: 7,
      expiresAt: old.apiKey.expiresAt,
      status: 'active',
    });
    expect(previousKey.id).toBe(old.id);
    expect(previousKey.status).toBe('active');
    const hours = (Date.parse(previousKey.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.99);
    expect(hours).toBeLessThan(2.01);
    for (const key of [old.rawKey, rawKey]) {
      const engines = await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key } });
      expect(engines.status).toBe(200);
    }
    const record = await ctx.app.request(`/api/v1/api-keys/${old.id}`, { headers: bearer(token) });
    expect(record.body.data.apiKey.rotatedToKeyId).toBe(apiKey.id);
  });

  it('defaults to a 24 hour grace period, and never past the old key own expiry', async () => {
    const plain = await createKey(ctx.app, token);
    const a = await ctx.app.request(`/api/v1/api-keys/${plain.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
    });
    expect(a.status).toBe(201);
    const hours = (Date.parse(a.body.data.previousKey.expiresAt) - Date.now()) / 3_600_000;
    expect(Math.round(hours)).toBe(24);
    await ctx.database.handle.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() + 3_600_000) })
      .where('id', '=', a.body.data.apiKey.id)
      .execute();
    const b = await ctx.app.request(`/api/v1/api-keys/${a.body.data.apiKey.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
      json: { gracePeriodHours: 48 },
    });
    const left = (Date.parse(b.body.data.previousKey.expiresAt) - Date.now()) / 3_600_000;
    expect(left).toBeLessThan(1.01);
    expect(b.body.data.apiKey.expiresAt).toBe(b.body.data.previousKey.expiresAt);
  });

  it('ends the old key at once with gracePeriodHours 0 (KEY_EXPIRED), and after a grace period that has passed', async () => {
    const old = await createKey(ctx.app, token);
    const response = await ctx.app.request(`/api/v1/api-keys/${old.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
      json: { gracePeriodHours: 0 },
    });
    expect(response.body.data.previousKey.status).toBe('expired');
    const after = await ctx.app.request('/api/v1/engines', {
      headers: { 'x-api-key': old.rawKey },
    });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({
      success: false,
      error: 'API key has expired',
      code: 'KEY_EXPIRED',
    });

    const graced = await createKey(ctx.app, token);
    await ctx.app.request(`/api/v1/api-keys/${graced.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
    });
    await ctx.database.handle.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', graced.id)
      .execute();
    const expired = await ctx.app.request('/api/v1/engines', {
      headers: { 'x-api-key': graced.rawKey },
    });
    expect(expired.body.code).toBe('KEY_EXPIRED');
    const listed = await ctx.app.request(`/api/v1/api-keys/${graced.id}`, {
      headers: bearer(token),
    });
    expect(listed.body.data.apiKey.status).toBe('expired');
  });

  it('answers 409 API_KEY_NOT_ACTIVE when rotating twice, and exactly one of two concurrent rotations wins', async () => {
    const once = await createKey(ctx.app, token);
    await ctx.app.request(`/api/v1/api-keys/${once.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
    });
    const twice = await ctx.app.request(`/api/v1/api-keys/${once.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
    });
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({
      success: false,
      error: 'API key is not active: it was already rotated',
      code: 'API_KEY_NOT_ACTIVE',
    });

    const raced = await createKey(ctx.app, token);
    const results = await Promise.all(
      [1, 2].map(() =>
        ctx.app.request(`/api/v1/api-keys/${raced.id}/rotate`, {
          method: 'POST',
          headers: bearer(token),
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('answers 409 for a revoked key, 404 for another tenant key, 400 for a bad grace period', async () => {
    const key = await createKey(ctx.app, token);
    const bad = await ctx.app.request(`/api/v1/api-keys/${key.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
      json: { gracePeriodHours: 721 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_FIELD_VALUE');
    const foreign = await ctx.app.request(`/api/v1/api-keys/${key.id}/rotate`, {
      method: 'POST',
      headers: bearer(await tokenFor(randomUUID())),
    });
    expect(foreign.body.code).toBe('API_KEY_NOT_FOUND');
    await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    const revoked = await ctx.app.request(`/api/v1/api-keys/${key.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
    });
    expect(revoked.status).toBe(409);
    expect(revoked.body.code).toBe('API_KEY_NOT_ACTIVE');
  });

  it('applies a revocation of the old key during its grace period at once', async () => {
    const old = await createKey(ctx.app, token);
    await ctx.app.request(`/api/v1/api-keys/${old.id}/rotate`, {
      method: 'POST',
      headers: bearer(token),
    });
    await ctx.app.request(`/api/v1/api-keys/${old.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    const response = await ctx.app.request('/api/v1/engines', {
      headers: { 'x-api-key': old.rawKey },
    });
    expect(response.body.code).toBe('KEY_REVOKED');
  });
});

describe('DELETE /api/v1/api-keys/:keyId', () => {
  it('revokes with a reason, is harmless to repeat, and the key then answers 401 KEY_REVOKED', async () => {
    const key = await createKey(ctx.app, token);
    const first = await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(token),
      json: { reason: 'leaked in a log' },
    });
    expect(first.status).toBe(200);
    expect(first.body.data.apiKey).toMatchObject({
      status: 'revoked',
      revokedReason: 'leaked in a log',
    });
    const again = await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(again.status).toBe(200);
    expect(again.body.data.apiKey.revokedAt).toBe(first.body.data.apiKey.revokedAt);
    expect(again.body.data.apiKey.revokedReason).toBe('leaked in a log');
    const use = await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } });
    expect(use.status).toBe(401);
    expect(use.body).toEqual({
      success: false,
      error: 'API key has been revoked',
      code: 'KEY_REVOKED',
    });
  });

  it('accepts an empty JSON body and refuses a reason over 500 characters', async () => {
    const key = await createKey(ctx.app, token);
    const empty = await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: { ...bearer(token), 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(200);
    const long = await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(token),
      json: { reason: 'x'.repeat(501) },
    });
    expect(long.body.code).toBe('INVALID_FIELD_VALUE');
  });

  it('answers 404 for another tenant key', async () => {
    const key = await createKey(ctx.app, token);
    const response = await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(await tokenFor(randomUUID())),
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('API_KEY_NOT_FOUND');
  });
});
