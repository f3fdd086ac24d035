/**
 * The key pipeline as later routes will use it: a route in the API-key context that only declares
 * its scope. No scoped tenant route exists yet in this issue, so the test app adds two probes
 * (GET and POST /api/v1/test/scoped, scope scans:read) through buildApp's apiKeyRoutes option.
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createKey,
  tokenFor,
  useTestApp,
  withinOneMinuteWindow,
} from '../support/harness.js';

let token: string;

function scopedRoutes(context: FastifyInstance) {
  context.get('/api/v1/test/scoped', { config: { scope: 'scans:read' } }, async () => ({
    success: true,
    data: {},
  }));
  context.post(
    '/api/v1/test/scoped',
    { config: { scope: 'scans:read' }, schema: { body: Type.Object({ target: Type.String() }) } },
    async () => ({ success: true, data: {} }),
  );
}

const ctx = useTestApp({}, { apiKeyRoutes: scopedRoutes });

beforeAll(async () => {
  token = await tokenFor(randomUUID());
});

const get = (key: string) =>
  ctx.app.request('/api/v1/test/scoped', { headers: { 'x-api-key': key } });

describe('scope checks in the key pipeline', () => {
  it('answers 403 INSUFFICIENT_SCOPE with the exact message, and counts the request', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['usage:read'], rateLimitPerMinute: 5 });
    const response = await get(key.rawKey);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      success: false,
      error: 'Insufficient scope: requires scans:read',
      code: 'INSUFFICIENT_SCOPE',
    });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('lets a key with the scope through', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['scans:read'] });
    expect((await get(key.rawKey)).status).toBe(200);
  });

  it('lets a dashboard JWT through with every scope', async () => {
    const response = await ctx.app.request('/api/v1/test/scoped', { headers: bearer(token) });
    expect(response.status).toBe(200);
  });
});

describe('order of checks around the scope', () => {
  it('a revoked key without the scope gets 401 KEY_REVOKED, not 403', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['usage:read'] });
    await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect((await get(key.rawKey)).body.code).toBe('KEY_REVOKED');
  });

  it('a key over its rate limit and without the scope gets 429, not 403', async () => {
    await withinOneMinuteWindow();
    const key = await createKey(ctx.app, token, { scopes: ['usage:read'], rateLimitPerMinute: 1 });
    expect((await get(key.rawKey)).body.code).toBe('INSUFFICIENT_SCOPE');
    const second = await get(key.rawKey);
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('RATE_LIMIT_EXCEEDED');
  });

  it('an address outside the allowlist gets 403 IP_NOT_ALLOWED even when the limit is used up', async () => {
    await withinOneMinuteWindow();
    const key = await createKey(ctx.app, token, { scopes: ['scans:read'], rateLimitPerMinute: 1 });
    expect((await get(key.rawKey)).status).toBe(200);
    await ctx.database.handle.db
      .updateTable('api_keys')
      .set({ allowed_ip_addresses: ['203.0.113.7'] })
      .where('id', '=', key.id)
      .execute();
    const response = await get(key.rawKey);
    expect(response.body.code).toBe('IP_NOT_ALLOWED');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('a key without the scope sending malformed JSON gets 403, not 400', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['usage:read'] });
    const response = await ctx.app.request('/api/v1/test/scoped', {
      method: 'POST',
      headers: { 'x-api-key': key.rawKey, 'content-type': 'application/json' },
      body: '{"target":',
    });
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('a key with the scope sending malformed JSON gets 400 INVALID_JSON with rate-limit headers', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['scans:read'] });
    const response = await ctx.app.request('/api/v1/test/scoped', {
      method: 'POST',
      headers: { 'x-api-key': key.rawKey, 'content-type': 'application/json' },
      body: '{"target":',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: 'Request body is not valid JSON',
      code: 'INVALID_JSON',
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('a missing field after a passed pipeline is 400 MISSING_REQUIRED_FIELD', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['scans:read'] });
    const response = await ctx.app.request('/api/v1/test/scoped', {
      method: 'POST',
      headers: { 'x-api-key': key.rawKey },
      json: {},
    });
    expect(response.body).toEqual({
      success: false,
      error: 'Missing required field: target',
      code: 'MISSING_REQUIRED_FIELD',
    });
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });
});
