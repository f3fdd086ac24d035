/**
 * Issue 20, item 4 over real HTTP: the failed-authentication limit judges only failing credentials,
 * a tenant's dashboard tokens share a request budget, and a tenant's keys, webhooks, templates,
 * assets and schedules are capped (TENANT_LIMIT_REACHED), also under concurrent creates; a
 * template's `config` is capped like a scan's.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateLimitStore } from '../../src/adapters/rate-limit-store/redis-store.js';
import {
  bearer,
  createKey,
  startApp,
  type TestApp,
  tokenFor,
  useTestApp,
  withinOneMinuteWindow,
} from '../support/harness.js';

const lookup = async (host: string): Promise<string[]> => {
  if (host === 'hooks.example') {
    return ['203.0.113.50'];
  }
  throw new Error(`${host} does not resolve`);
};

const LIMITS = {
  AUTH_FAILURES_PER_MINUTE: '5',
  TENANT_MAX_API_KEYS: '3',
  TENANT_MAX_WEBHOOKS: '2',
  TENANT_MAX_TEMPLATES: '2',
  TENANT_MAX_ASSETS: '2',
  TENANT_MAX_SCHEDULES: '2',
  ALLOW_PRIVATE_WEBHOOKS: 'true',
};
const ctx = useTestApp(LIMITS, { webhookLookup: lookup });

let token: string;
let admin: string;
beforeAll(async () => {
  token = await tokenFor(randomUUID());
  admin = await tokenFor(randomUUID(), { admin: true });
});

function expect429(response: {
  status: number;
  headers: Headers;
  body: { code: string; error: string };
}) {
  expect(response.status).toBe(429);
  expect(response.body.code).toBe('RATE_LIMIT_EXCEEDED');
  const retryAfter = response.headers.get('retry-after');
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(response.body.error).toBe(`Rate limit exceeded. Retry in ${retryAfter} seconds.`);
}

/** Waits until the onResponse counting of earlier 401s has reached the store. */
async function untilBlocked(app: TestApp) {
  for (let i = 0; i < 100; i++) {
    const probe = await app.request('/api/v1/engines');
    if (probe.status === 429) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the address was never blocked');
}

describe('failed authentication per source address', () => {
  it('never refuses valid credentials: an anonymous burst locks out only failing requests', async () => {
    await withinOneMinuteWindow(10_000);
    const app = await startApp(ctx.database.handle, { AUTH_FAILURES_PER_MINUTE: '5' });
    try {
      const key = await createKey(app, token);
      // A burst without credentials from this address (127.0.0.1, like every test client).
      const anonymous = await Promise.all(
        Array.from({ length: 8 }, () => app.request('/api/v1/engines')),
      );
      expect(anonymous.map((r) => r.status).filter((s) => s === 401).length).toBeGreaterThanOrEqual(
        5,
      );
      await untilBlocked(app);
      // Failing credentials of every kind now get 429, with Retry-After …
      expect429(await app.request('/api/v1/engines'));
      expect429(
        await app.request('/api/v1/engines', {
          headers: { 'x-api-key': `rmp_sk_${'b'.repeat(40)}` },
        }),
      );
      expect429(await app.request('/api/v1/api-keys', { headers: bearer('not.a.jwt') }));
      expect429(await app.request('/api/v1/api-keys'));
      // … while a valid key, a valid JWT on both contexts and an admin token still get through.
      for (let i = 0; i < 3; i++) {
        const ok = await app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } });
        expect(ok.status).toBe(200);
      }
      expect((await app.request('/api/v1/engines', { headers: bearer(token) })).status).toBe(200);
      expect((await app.request('/api/v1/api-keys', { headers: bearer(token) })).status).toBe(200);
      const suspend = await app.request(`/api/v1/admin/api-keys/${key.id}/suspend`, {
        method: 'POST',
        headers: bearer(admin),
      });
      expect(suspend.status).toBe(200);
      // A suspended key is a failing credential again: refused like the others.
      expect429(await app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } }));
    } finally {
      await app.close();
    }
  });

  it('answers 401 (and counts it) until the address reaches the limit', async () => {
    await withinOneMinuteWindow(10_000);
    const app = await startApp(ctx.database.handle, { AUTH_FAILURES_PER_MINUTE: '3' });
    try {
      for (let i = 0; i < 3; i++) {
        const response = await app.request('/api/v1/engines', {
          headers: { 'x-api-key': `rmp_sk_${'c'.repeat(40)}` },
        });
        expect(response.status).toBe(401);
        expect(response.body.code).toBe('INVALID_API_KEY');
      }
      await untilBlocked(app);
    } finally {
      await app.close();
    }
  });
});

describe('the request budget of dashboard tokens', () => {
  async function budgeted(
    env: Record<string, string>,
    rateLimits?: Parameters<typeof startApp>[2],
  ) {
    return startApp(
      ctx.database.handle,
      { TENANT_TOKEN_REQUESTS_PER_MINUTE: '4', ...env },
      rateLimits,
    );
  }

  async function exhaustsAfterFour(app: TestApp) {
    await withinOneMinuteWindow(10_000);
    const tenantId = randomUUID();
    const tenantToken = await tokenFor(tenantId);
    const otherUser = await tokenFor(tenantId, { subject: 'user-2' });
    const key = await createKey(app, tenantToken); // 1: a key-management route counts too
    const first = await app.request('/api/v1/engines', { headers: bearer(tenantToken) }); // 2
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('4');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(Number(first.headers.get('x-ratelimit-reset')) % 60).toBe(0);
    expect((await app.request('/api/v1/usage', { headers: bearer(otherUser) })).status).toBe(200); // 3
    expect((await app.request('/api/v1/api-keys', { headers: bearer(tenantToken) })).status).toBe(
      200,
    ); // 4
    // The fifth request of any of the tenant's tokens, on either context, is refused.
    const refused = await app.request('/api/v1/scans?scanType=all', { headers: bearer(otherUser) });
    expect429(refused);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect429(await app.request('/api/v1/api-keys', { headers: bearer(tenantToken) }));
    // A 429 consumes nothing, the tenant's API keys have their own limits, another tenant has its
    // own budget, and admin routes are not tenant routes.
    const byKey = await app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } });
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get('x-ratelimit-limit')).toBe('60');
    const other = await tokenFor(randomUUID());
    expect((await app.request('/api/v1/engines', { headers: bearer(other) })).status).toBe(200);
    // An admin of this very tenant still reaches admin routes.
    const adminRoute = await app.request(`/api/v1/admin/api-keys/${key.id}/suspend`, {
      method: 'POST',
      headers: bearer(await tokenFor(tenantId, { admin: true })),
    });
    expect(adminRoute.status).toBe(200);
  }

  it('admits TENANT_TOKEN_REQUESTS_PER_MINUTE requests per tenant, then 429 (memory store)', async () => {
    const app = await budgeted({});
    try {
      await exhaustsAfterFour(app);
    } finally {
      await app.close();
    }
  });

  it('shares the budget across API nodes through Redis: 4 of 10 parallel requests pass', async () => {
    await withinOneMinuteWindow(10_000);
    const prefix = `rampart-test:${randomUUID()}:`;
    const storeA = createRedisRateLimitStore('redis://127.0.0.1:6379', { keyPrefix: prefix });
    const storeB = createRedisRateLimitStore('redis://127.0.0.1:6379', { keyPrefix: prefix });
    const a = await budgeted({}, { rateLimits: storeA });
    const b = await budgeted({}, { rateLimits: storeB });
    try {
      const tenantToken = await tokenFor(randomUUID());
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? a : b).request('/api/v1/engines', { headers: bearer(tenantToken) }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(4);
      for (const refused of results.filter((r) => r.status !== 200)) {
        expect429(refused);
      }
    } finally {
      await a.close();
      await b.close();
      await storeA.close();
      await storeB.close();
    }
  });
});

describe('caps on what a tenant holds', () => {
  const createKeyRequest = (app: TestApp, tenantToken: string) =>
    app.request('/api/v1/api-keys', {
      method: 'POST',
      headers: bearer(tenantToken),
      json: { name: 'k' },
    });

  it('refuses a 4th API key with 409 TENANT_LIMIT_REACHED; revoked and expired keys do not count', async () => {
    const tenantToken = await tokenFor(randomUUID());
    const keys = [];
    for (let i = 0; i < 3; i++) {
      keys.push(await createKey(ctx.app, tenantToken));
    }
    const refused = await createKeyRequest(ctx.app, tenantToken);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      success: false,
      error: 'Tenant limit reached: at most 3 API keys',
      code: 'TENANT_LIMIT_REACHED',
    });
    // A suspended key still counts (it can be reinstated) …
    await ctx.app.request(`/api/v1/admin/api-keys/${keys[0]?.id}/suspend`, {
      method: 'POST',
      headers: bearer(admin),
    });
    expect((await createKeyRequest(ctx.app, tenantToken)).status).toBe(409);
    // … a revoked one does not.
    const revoked = await ctx.app.request(`/api/v1/api-keys/${keys[1]?.id}`, {
      method: 'DELETE',
      headers: bearer(tenantToken),
    });
    expect(revoked.status).toBe(200);
    expect((await createKeyRequest(ctx.app, tenantToken)).status).toBe(201);
    expect((await createKeyRequest(ctx.app, tenantToken)).status).toBe(409);
    // Nor does an expired one (its life ended in the database's past).
    await ctx.database.handle.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('id', '=', keys[2]?.id ?? '')
      .execute();
    const last = await createKeyRequest(ctx.app, tenantToken);
    expect(last.status).toBe(201);
    expect((await createKeyRequest(ctx.app, tenantToken)).status).toBe(409);
    // Rotating at the cap is not refused: it replaces a key (the old one ends with its grace).
    const rotated = await ctx.app.request(`/api/v1/api-keys/${last.body.data.apiKey.id}/rotate`, {
      method: 'POST',
      headers: bearer(tenantToken),
      json: { gracePeriodHours: 1 },
    });
    expect(rotated.status).toBe(201);
  });

  it('lets exactly one of five concurrent key creates through at cap-1', async () => {
    const tenantToken = await tokenFor(randomUUID());
    await createKey(ctx.app, tenantToken);
    await createKey(ctx.app, tenantToken);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => createKeyRequest(ctx.app, tenantToken)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const list = await ctx.app.request('/api/v1/api-keys', { headers: bearer(tenantToken) });
    expect(list.body.data.apiKeys).toHaveLength(3);
  });

  it('caps webhooks, disabled ones included, also under concurrent creates', async () => {
    const tenantToken = await tokenFor(randomUUID());
    const hook = (name: string) =>
      ctx.app.request('/api/v1/webhooks', {
        method: 'POST',
        headers: bearer(tenantToken),
        json: { name, url: 'https://hooks.example/' },
      });
    const first = await hook('a');
    expect(first.status).toBe(201);
    const disabled = await ctx.app.request(`/api/v1/webhooks/${first.body.data.webhook.id}`, {
      method: 'PATCH',
      headers: bearer(tenantToken),
      json: { isActive: false },
    });
    expect(disabled.status).toBe(200);
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => hook(`r${i}`)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const refused = racing.find((r) => r.status === 409);
    expect(refused?.body).toEqual({
      success: false,
      error: 'Tenant limit reached: at most 2 webhooks',
      code: 'TENANT_LIMIT_REACHED',
    });
    // Bad input is still a 400 first; deleting one makes room.
    const bad = await ctx.app.request('/api/v1/webhooks', {
      method: 'POST',
      headers: bearer(tenantToken),
      json: { name: 'x', url: 'http://hooks.example/' },
    });
    expect(bad.body.code).toBe('INVALID_WEBHOOK_URL');
    await ctx.app.request(`/api/v1/webhooks/${first.body.data.webhook.id}`, {
      method: 'DELETE',
      headers: bearer(tenantToken),
    });
    expect((await hook('after delete')).status).toBe(201);
  });

  it('caps templates, also under concurrent creates, after every 400', async () => {
    const tenantToken = await tokenFor(randomUUID());
    const template = (name: string, extra: Record<string, unknown> = {}) =>
      ctx.app.request('/api/v1/templates', {
        method: 'POST',
        headers: bearer(tenantToken),
        json: { name, scanType: 'nmap', ...extra },
      });
    expect((await template('one')).status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => template(`t${i}`)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(racing.find((r) => r.status === 409)?.body.error).toBe(
      'Tenant limit reached: at most 2 templates',
    );
    expect((await template('one')).body.code).toBe('DUPLICATE_TEMPLATE_NAME');
    expect((await template('x', { scanType: 'nessus' })).body.code).toBe('INVALID_SCAN_TYPE');
    const list = await ctx.app.request('/api/v1/templates', { headers: bearer(tenantToken) });
    expect(list.body.data.pagination.total).toBe(2);
  });
  it('caps assets, verified or not, also under concurrent creates, after every 400', async () => {
    const tenantToken = await tokenFor(randomUUID());
    const asset = (value: string, kind = 'domain') =>
      ctx.app.request('/api/v1/assets', {
        method: 'POST',
        headers: bearer(tenantToken),
        json: { name: value, kind, value },
      });
    const first = await asset('one.example');
    expect(first.status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => asset(`r${i}.example`)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(racing.find((r) => r.status === 409)?.body).toEqual({
      success: false,
      error: 'Tenant limit reached: at most 2 assets',
      code: 'TENANT_LIMIT_REACHED',
    });
    // Bad input is still a 400 first; another tenant has its own cap; deleting one makes room.
    expect((await asset('not a domain')).body.code).toBe('INVALID_FIELD_VALUE');
    const other = await ctx.app.request('/api/v1/assets', {
      method: 'POST',
      headers: bearer(await tokenFor(randomUUID())),
      json: { name: 'x', kind: 'domain', value: 'one.example' },
    });
    expect(other.status).toBe(201);
    const list = await ctx.app.request('/api/v1/assets', { headers: bearer(tenantToken) });
    expect(list.body.data.pagination.total).toBe(2);
    const deleted = await ctx.app.request(`/api/v1/assets/${first.body.data.asset.id}`, {
      method: 'DELETE',
      headers: bearer(tenantToken),
    });
    expect(deleted.status).toBe(200);
    expect((await asset('after-delete.example')).status).toBe(201);
  });

  it('caps schedules, paused ones included, also under concurrent creates, after every 400', async () => {
    const tenantToken = await tokenFor(randomUUID());
    const schedule = (name: string, extra: Record<string, unknown> = {}) =>
      ctx.app.request('/api/v1/schedules', {
        method: 'POST',
        headers: bearer(tenantToken),
        json: {
          name,
          scan: { scanType: 'nmap' },
          targets: ['203.0.113.9'],
          intervalSeconds: 3600,
          ...extra,
        },
      });
    const paused = await schedule('paused', { paused: true });
    expect(paused.status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => schedule(`s${i}`)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(racing.find((r) => r.status === 409)?.body).toEqual({
      success: false,
      error: 'Tenant limit reached: at most 2 schedules',
      code: 'TENANT_LIMIT_REACHED',
    });
    expect((await schedule('bad', { scan: { scanType: 'nessus' } })).body.code).toBe(
      'INVALID_SCAN_TYPE',
    );
    const list = await ctx.app.request('/api/v1/schedules', { headers: bearer(tenantToken) });
    expect(list.body.data.pagination.total).toBe(2);
    const deleted = await ctx.app.request(`/api/v1/schedules/${paused.body.data.schedule.id}`, {
      method: 'DELETE',
      headers: bearer(tenantToken),
    });
    expect(deleted.status).toBe(200);
    expect((await schedule('after delete')).status).toBe(201);
  });
});

describe('template config', () => {
  it('is capped at 16 KiB of JSON like a scan, on POST and PATCH', async () => {
    const tenantToken = await tokenFor(randomUUID());
    const big = { blob: 'x'.repeat(16 * 1024) };
    const created = await ctx.app.request('/api/v1/templates', {
      method: 'POST',
      headers: bearer(tenantToken),
      json: { name: 'big', scanType: 'nmap', config: big },
    });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('INVALID_FIELD_VALUE');
    expect(created.body.error).toBe(
      `Invalid value for field config: must be at most ${16 * 1024} bytes of JSON`,
    );
    const small = await ctx.app.request('/api/v1/templates', {
      method: 'POST',
      headers: bearer(tenantToken),
      json: { name: 'small', scanType: 'nmap', config: { blob: 'x'.repeat(16 * 1024 - 20) } },
    });
    expect(small.status).toBe(201);
    const patched = await ctx.app.request(`/api/v1/templates/${small.body.data.template.id}`, {
      method: 'PATCH',
      headers: bearer(tenantToken),
      json: { config: big },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.code).toBe('INVALID_FIELD_VALUE');
  });
});
