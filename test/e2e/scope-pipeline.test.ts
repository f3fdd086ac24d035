/**
 * The scope step of the key pipeline and the order of checks around it, on real routes:
 * GET /api/v1/scans (scope scans:list) and POST /api/v1/webhooks (scope webhooks:create, a body
 * schema that Fastify validates). test/e2e/route-security.test.ts checks every route's scope;
 * this file checks what the scope check counts and what it comes before and after.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createKey,
  tokenFor,
  useTestApp,
  withinOneMinuteWindow,
} from '../support/harness.js';

let token: string;

const ctx = useTestApp();

beforeAll(async () => {
  token = await tokenFor(randomUUID());
});

/** A route with a scope and no body (scans:list). */
const LIST_SCANS = '/api/v1/scans';
/** A route with a scope and a body schema that names required fields (webhooks:create). */
const CREATE_WEBHOOK = '/api/v1/webhooks';

const get = (key: string) => ctx.app.request(LIST_SCANS, { headers: { 'x-api-key': key } });

describe('scope checks in the key pipeline', () => {
  it('answers 403 INSUFFICIENT_SCOPE with the exact message, and counts the request', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['usage:read'], rateLimitPerMinute: 5 });
    const response = await get(key.rawKey);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      success: false,
      error: 'Insufficient scope: requires scans:list',
      code: 'INSUFFICIENT_SCOPE',
    });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('lets a key with the scope through', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['scans:list'] });
    expect((await get(key.rawKey)).status).toBe(200);
  });

  it('lets a dashboard JWT through with every scope', async () => {
    const response = await ctx.app.request(LIST_SCANS, { headers: bearer(token) });
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
    const key = await createKey(ctx.app, token, { scopes: ['scans:list'], rateLimitPerMinute: 1 });
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
    const response = await ctx.app.request(CREATE_WEBHOOK, {
      method: 'POST',
      headers: { 'x-api-key': key.rawKey, 'content-type': 'application/json' },
      body: '{"name":',
    });
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('a key with the scope sending malformed JSON gets 400 INVALID_JSON with rate-limit headers', async () => {
    const key = await createKey(ctx.app, token, { scopes: ['webhooks:create'] });
    const response = await ctx.app.request(CREATE_WEBHOOK, {
      method: 'POST',
      headers: { 'x-api-key': key.rawKey, 'content-type': 'application/json' },
      body: '{"name":',
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
    const key = await createKey(ctx.app, token, { scopes: ['webhooks:create'] });
    const response = await ctx.app.request(CREATE_WEBHOOK, {
      method: 'POST',
      headers: { 'x-api-key': key.rawKey },
      json: {},
    });
    expect(response.body).toEqual({
      success: false,
      error: 'Missing required field: name',
      code: 'MISSING_REQUIRED_FIELD',
    });
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });
});
