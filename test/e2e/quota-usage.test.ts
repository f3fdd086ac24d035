/** The monthly scan quota (atomic with the insert, UTC months) and GET /api/v1/usage. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';
import { until } from '../support/until.js';

/** The app's clock: real time unless a test moves it. */
let fixedNow: Date | null = null;
const clock = { now: () => fixedNow ?? new Date() };
const ctx = useTestApp(
  { WORKERS: '1', DEFAULT_MONTHLY_SCAN_QUOTA: '1000' },
  { engineRunners: new Map([['nmap', instantEngine()]]), clock },
);
let adminToken = '';

beforeAll(async () => {
  adminToken = await tokenFor(randomUUID(), { admin: true });
});

async function tenantWithKey(quota: number | null, keyBody: Record<string, unknown> = {}) {
  const tenantId = randomUUID();
  const token = await tokenFor(tenantId);
  const key = (await createKey(ctx.app, token, { rateLimitPerMinute: 1000, ...keyBody })).rawKey;
  if (quota !== null) {
    const set = await ctx.app.request(`/api/v1/admin/tenants/${tenantId}/quota`, {
      method: 'PUT',
      headers: bearer(adminToken),
      json: { monthlyScanQuota: quota },
    });
    expect(set.status).toBe(200);
  }
  return { tenantId, token, key };
}

const createScan = (key: string, body: Record<string, unknown> = {}) =>
  ctx.app.request('/api/v1/scans', {
    method: 'POST',
    headers: { 'x-api-key': key },
    json: { target: '203.0.113.80', scanType: 'nmap', ...body },
  });

async function storedScans(tenantId: string): Promise<number> {
  const rows = await sql<{ n: number }>`
    select count(*)::int as n from scans where tenant_id = ${tenantId}`.execute(
    ctx.database.handle.db,
  );
  return rows.rows[0]?.n ?? 0;
}

describe('monthly scan quota', () => {
  it('accepts exactly the remaining quota out of 20 parallel creates, and stores nothing refused', async () => {
    const { tenantId, key } = await tenantWithKey(5);
    const answers = await Promise.all(Array.from({ length: 20 }, () => createScan(key)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(15);
    expect(refused[0]?.body.code).toBe('QUOTA_EXCEEDED');
    expect(refused[0]?.body.error).toMatch(
      /^Monthly scan quota exceeded; it resets at \d{4}-\d\d-01T00:00:00\.000Z$/,
    );
    expect(await storedScans(tenantId)).toBe(5);
  });

  it('refuses every scan with a quota of 0', async () => {
    const { tenantId, key } = await tenantWithKey(0);
    const response = await createScan(key);
    expect(response.status).toBe(429);
    expect(response.body.code).toBe('QUOTA_EXCEEDED');
    expect(await storedScans(tenantId)).toBe(0);
  });

  it('uses no quota for a scan refused earlier (503, 400)', async () => {
    const { token, key } = await tenantWithKey(1);
    expect(
      (await createScan(key, { scanType: 'zap', target: 'https://app.example/' })).status,
    ).toBe(503);
    expect((await createScan(key, { priority: 'urgent' })).status).toBe(400);
    expect((await createScan(key)).status).toBe(201);
    const usage = await ctx.app.request('/api/v1/usage', { headers: bearer(token) });
    expect(usage.body.data.quota).toMatchObject({ limit: 1, used: 1, remaining: 0 });
  });

  it('resets on the 1st of the month at 00:00 UTC (injected clock)', async () => {
    const { token, key } = await tenantWithKey(2);
    try {
      fixedNow = new Date('2026-11-30T23:59:59.000Z');
      expect((await createScan(key)).status).toBe(201);
      expect((await createScan(key)).status).toBe(201);
      const full = await createScan(key);
      expect(full.status).toBe(429);
      expect(full.body.error).toBe(
        'Monthly scan quota exceeded; it resets at 2026-12-01T00:00:00.000Z',
      );
      fixedNow = new Date('2026-12-01T00:00:00.000Z');
      expect((await createScan(key)).status).toBe(201);
      const usage = await ctx.app.request('/api/v1/usage', { headers: bearer(token) });
      expect(usage.body.data.period).toEqual({
        start: '2026-12-01T00:00:00.000Z',
        end: '2027-01-01T00:00:00.000Z',
      });
      expect(usage.body.data.quota).toEqual({
        limit: 2,
        used: 1,
        remaining: 1,
        resetsAt: '2027-01-01T00:00:00.000Z',
      });
    } finally {
      fixedNow = null;
    }
  });

  it('gives a new tenant DEFAULT_MONTHLY_SCAN_QUOTA', async () => {
    const { token } = await tenantWithKey(null);
    const usage = await ctx.app.request('/api/v1/usage', { headers: bearer(token) });
    expect(usage.body.data.quota).toMatchObject({ limit: 1000, used: 0, remaining: 1000 });
  });
});

describe('GET /api/v1/usage', () => {
  it("reports the month's scans by status and engine, and the key's windows without counting twice", async () => {
    const { key } = await tenantWithKey(50, {
      rateLimitPerMinute: 100,
      rateLimitPerHour: 2000,
      rateLimitPerDay: 20000,
    });
    for (let i = 0; i < 3; i += 1) {
      expect((await createScan(key)).status).toBe(201);
    }
    const response = await ctx.app.request('/api/v1/usage', { headers: { 'x-api-key': key } });
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data.quota).toMatchObject({ limit: 50, used: 3, remaining: 47 });
    expect(data.scans.total).toBe(3);
    expect(data.scans.byScanType).toEqual({ nmap: 3 });
    expect(Object.keys(data.scans.byStatus).sort()).toEqual([
      'cancelled',
      'completed',
      'failed',
      'queued',
      'running',
    ]);
    expect(Object.values(data.scans.byStatus).reduce((a: number, b) => a + Number(b), 0)).toBe(3);
    // Four requests counted so far: three creates and this one.
    expect(data.apiKey).toMatchObject({
      rateLimits: { perMinute: 100, perHour: 2000, perDay: 20000 },
      remaining: { perMinute: 96, perHour: 1996, perDay: 19996 },
    });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('96');
  });

  it('leaves out apiKey for a dashboard JWT, and needs usage:read', async () => {
    const { token } = await tenantWithKey(10);
    const jwt = await ctx.app.request('/api/v1/usage', { headers: bearer(token) });
    expect(jwt.status).toBe(200);
    expect(jwt.body.data).not.toHaveProperty('apiKey');
    const narrow = (await createKey(ctx.app, token, { scopes: ['scans:read'] })).rawKey;
    const refused = await ctx.app.request('/api/v1/usage', { headers: { 'x-api-key': narrow } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Insufficient scope: requires usage:read');
  });
});

describe('GET /api/v1/usage/daily (extension)', () => {
  it('counts scans per UTC day of creation, every day present, children and other tenants left out', async () => {
    const { tenantId, token, key } = await tenantWithKey(50);
    const other = await tenantWithKey(50);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const created = await createScan(key);
      expect(created.status).toBe(201);
      ids.push(created.body.data.id);
    }
    expect((await createScan(other.key)).status).toBe(201);
    // The instant engine ends each scan at once; then the scans are moved in time.
    await until(
      async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from scans
            where tenant_id = ${tenantId} and status = 'completed'`.execute(ctx.database.handle.db)
        ).rows[0]?.n,
      (n) => n === 5,
    );
    const at = ['2026-06-08T23:30:00Z', '2026-06-10T00:10:00Z', '2026-06-10T12:00:00Z'];
    for (const [index, createdAt] of [
      ...at,
      '2026-06-10T13:00:00Z',
      '2026-06-07T23:59:59Z',
    ].entries()) {
      await sql`update scans set created_at = ${new Date(createdAt)} where id = ${ids[index]}`.execute(
        ctx.database.handle.db,
      );
    }
    await sql`update scans set status = 'failed' where id = ${ids[2]}`.execute(
      ctx.database.handle.db,
    );
    // A sentinel child is a part of its scan, not a scan of its own.
    await sql`update scans set parent_scan_id = ${ids[2]} where id = ${ids[3]}`.execute(
      ctx.database.handle.db,
    );
    fixedNow = new Date('2026-06-10T18:00:00Z');
    try {
      const response = await ctx.app.request('/api/v1/usage/daily?days=3', {
        headers: { 'x-api-key': key },
      });
      expect(response.status, response.text).toBe(200);
      const none = { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
      expect(response.body.data).toEqual({
        period: { start: '2026-06-08T00:00:00.000Z', end: '2026-06-11T00:00:00.000Z' },
        days: [
          { date: '2026-06-08', total: 1, byStatus: { ...none, completed: 1 } },
          { date: '2026-06-09', total: 0, byStatus: none },
          { date: '2026-06-10', total: 2, byStatus: { ...none, completed: 1, failed: 1 } },
        ],
      });
      const month = await ctx.app.request('/api/v1/usage/daily', { headers: bearer(token) });
      expect(month.body.data.days).toHaveLength(30);
      expect(month.body.data.days.at(-1).date).toBe('2026-06-10');
    } finally {
      fixedNow = null;
    }
    for (const [query, code] of [
      ['days=0', 'INVALID_FIELD_VALUE'],
      ['days=367', 'INVALID_FIELD_VALUE'],
      ['days=1.5', 'INVALID_FIELD_TYPE'],
    ]) {
      const refused = await ctx.app.request(`/api/v1/usage/daily?${query}`, {
        headers: { 'x-api-key': key },
      });
      expect(refused.status, query).toBe(400);
      expect(refused.body.code, query).toBe(code);
    }
  });
});
