/**
 * POST/GET /api/v1/scans, cancel, results, findings and exports over real HTTP, with a worker
 * running the held test engine (test/doubles/engines.ts) in place of nmap.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { draftFinding, heldEngine } from '../doubles/engines.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, getScan, SCAN_CREATED_FIELDS, waitForStatus } from '../support/scans.js';

const held = heldEngine([draftFinding({ ruleId: 'partial', title: 'Found before the cancel' })]);
/** Names resolve as the test says: `private.example` to a loopback address, the rest publicly. */
let rebindChecks = 0;
const resolver = {
  async check(target: { host: string | null }, allowPrivate: boolean) {
    // DNS rebinding: public when the scan is created, loopback when the worker starts it.
    if (target.host === 'rebind.example') {
      rebindChecks += 1;
    }
    if (target.host === 'rebind.example' && rebindChecks > 1 && !allowPrivate) {
      return {
        ok: false as const,
        code: 'TARGET_NOT_ALLOWED' as const,
        message: 'rebind.example resolves to 127.0.0.1, a loopback address',
      };
    }
    if (target.host === 'private.example' && !allowPrivate) {
      return {
        ok: false as const,
        code: 'TARGET_NOT_ALLOWED' as const,
        message: 'private.example resolves to 127.0.0.1, a loopback address',
      };
    }
    if (target.host?.endsWith('.invalid')) {
      return {
        ok: false as const,
        code: 'TARGET_UNRESOLVABLE' as const,
        message: `${target.host} does not resolve`,
      };
    }
    return { ok: true as const, addresses: ['203.0.113.10'] };
  },
};
const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '8',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    // The held engine keeps scans of one tenant running across tests: its cap matches the slots.
    TENANT_MAX_RUNNING_SCANS: '8',
  },
  {
    engineRunners: new Map([['nmap', held.engine]]),
    resolver,
    // Callback hosts: public documentation addresses (there is no DNS here).
    webhookLookup: async (host) => {
      if (host === 'hooks.example') {
        return ['203.0.113.50'];
      }
      throw new Error(`${host} does not resolve`);
    },
  },
);

const tenant = randomUUID();
let key = '';
let token = '';

beforeAll(async () => {
  token = await tokenFor(tenant);
  key = (await createKey(ctx.app, token, { rateLimitPerMinute: 1000, rateLimitPerHour: 50000 }))
    .rawKey;
});

const post = (body: unknown, apiKey = key) =>
  ctx.app.request('/api/v1/scans', {
    method: 'POST',
    headers: { 'x-api-key': apiKey },
    json: body,
  });

const get = (path: string, apiKey = key) =>
  ctx.app.request(path, { headers: { 'x-api-key': apiKey } });

const cancel = (id: string, apiKey = key) =>
  ctx.app.request(`/api/v1/scans/${id}/cancel`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey },
  });

describe('POST /api/v1/scans', () => {
  it('answers 201 with exactly the fields of the specification, queued at progress 0', async () => {
    const response = await post({ target: '203.0.113.5', scanType: 'nmap', tags: ['weekly'] });
    expect(response.status).toBe(201);
    const scan = response.body.data;
    expect(Object.keys(scan).sort()).toEqual([...SCAN_CREATED_FIELDS]);
    expect(scan).toMatchObject({
      scanType: 'nmap',
      target: '203.0.113.5',
      name: 'nmap 203.0.113.5',
      status: 'queued',
      priority: 'normal',
      progress: 0,
      tags: ['weekly'],
    });
    expect(scan.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(scan.createdAt).toISOString()).toBe(scan.createdAt);
  });

  it('adds a whsec_ callbackSecret when a callbackUrl is given', async () => {
    const response = await post({
      target: '203.0.113.6',
      scanType: 'nmap',
      callbackUrl: 'https://hooks.example/rampart',
    });
    expect(response.status).toBe(201);
    expect(response.body.data.callbackSecret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const detail = await getScan(ctx.app, key, response.body.data.id);
    expect(detail).not.toHaveProperty('callbackSecret');
    expect(detail.callbackUrl).toBe('https://hooks.example/rampart');
  });

  it('accepts a dashboard JWT in place of a key', async () => {
    const response = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: bearer(token),
      json: { target: '203.0.113.7', scanType: 'nmap' },
    });
    expect(response.status).toBe(201);
  });

  it.each([
    [[], 400, 'INVALID_FIELD_TYPE', 'Field body must be of type object'],
    ['x', 400, 'INVALID_FIELD_TYPE', 'Field body must be of type object'],
    [{ scanType: 'nmap' }, 400, 'MISSING_REQUIRED_FIELD', 'Missing required field: target'],
    [{ target: '203.0.113.5' }, 400, 'MISSING_REQUIRED_FIELD', 'Missing required field: scanType'],
    [
      { target: 5, scanType: 'nmap' },
      400,
      'INVALID_FIELD_TYPE',
      'Field target must be of type string',
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', tags: 'a' },
      400,
      'INVALID_FIELD_TYPE',
      'Field tags must be of type array',
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', timeout: 1.5 },
      400,
      'INVALID_FIELD_TYPE',
      'Field timeout must be of type integer',
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', options: { ports: 80 } },
      400,
      'INVALID_FIELD_TYPE',
      'Field options.ports must be of type string',
    ],
    [
      { target: '203.0.113.5', scanType: 'nessus' },
      400,
      'INVALID_SCAN_TYPE',
      'Invalid scan type: nessus',
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', priority: 'urgent' },
      400,
      'INVALID_PRIORITY',
      'Invalid priority: urgent (expected critical, high, normal or low)',
    ],
    [{ target: '127.1', scanType: 'nmap' }, 400, 'INVALID_TARGET', null],
    [{ target: '-oX /tmp/x', scanType: 'nmap' }, 400, 'INVALID_TARGET', null],
    [{ target: 'http://203.0.113.5/', scanType: 'nmap' }, 400, 'INVALID_TARGET', null],
    [{ target: '203.0.113.5', scanType: 'zap' }, 400, 'INVALID_TARGET', null],
    [
      { target: '203.0.113.5', scanType: 'nmap', targetType: 'domain' },
      400,
      'INVALID_TARGET',
      null,
    ],
    [{ target: '10.0.0.0/8', scanType: 'nmap' }, 400, 'INVALID_TARGET', null],
    [
      { target: '203.0.113.5', scanType: 'nmap', options: { timing: 'T9' } },
      400,
      'INVALID_FIELD_VALUE',
      'Invalid value for field options.timing: T9 is not one of T0, T1, T2, T3, T4, T5',
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', options: { script: 'x' } },
      400,
      'INVALID_FIELD_VALUE',
      'Invalid value for field options.script: unknown key',
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', options: { scripts: ['../../tmp/evil.nse'] } },
      400,
      'INVALID_FIELD_VALUE',
      null,
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', timeout: 0 },
      400,
      'INVALID_FIELD_VALUE',
      'Invalid value for field timeout: 0 is not between 1 and 86400 seconds',
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', timeout: 86_401 },
      400,
      'INVALID_FIELD_VALUE',
      null,
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', name: 'x'.repeat(256) },
      400,
      'INVALID_FIELD_VALUE',
      null,
    ],
    [
      { target: '203.0.113.5', scanType: 'nmap', callbackUrl: 'http://hooks.example/x' },
      400,
      'INVALID_WEBHOOK_URL',
      'Invalid webhook URL: callbackUrl must use HTTPS',
    ],
    [
      { target: '127.0.0.1', scanType: 'nmap' },
      403,
      'TARGET_NOT_ALLOWED',
      'Target not allowed: 127.0.0.1 is a loopback address',
    ],
    [{ target: '::ffff:127.0.0.1', scanType: 'nmap' }, 403, 'TARGET_NOT_ALLOWED', null],
    [{ target: '169.254.169.254', scanType: 'nmap' }, 403, 'TARGET_NOT_ALLOWED', null],
    [{ target: '10.1.0.0/16', scanType: 'nmap' }, 403, 'TARGET_NOT_ALLOWED', null],
    [{ target: 'fe80::1', scanType: 'nmap' }, 403, 'TARGET_NOT_ALLOWED', null],
    [
      { target: 'private.example', scanType: 'nmap' },
      403,
      'TARGET_NOT_ALLOWED',
      'Target not allowed: private.example resolves to 127.0.0.1, a loopback address',
    ],
    [{ target: '203.0.113.5', scanType: 'zap', targetType: 'url' }, 400, 'INVALID_TARGET', null],
    [
      { target: 'https://app.example/', scanType: 'zap' },
      503,
      'SERVICE_UNAVAILABLE',
      'Service temporarily unavailable: no worker can run zap scans right now',
    ],
  ])('%j → %i %s', async (body, status, code, message) => {
    const before = await countScans();
    const response = await post(body);
    expect(response.status, response.text).toBe(status);
    expect(response.body).toMatchObject({ success: false, code });
    if (message !== null) {
      expect(response.body.error).toBe(message);
    }
    expect(await countScans()).toBe(before);
  });

  it.each([
    ['a missing field before an unknown engine', { scanType: 'nessus' }, 'MISSING_REQUIRED_FIELD'],
    [
      'a wrong type before an unknown engine',
      { target: 1, scanType: 'nessus' },
      'INVALID_FIELD_TYPE',
    ],
    [
      'a wrong option type before an unknown priority',
      { target: '203.0.113.5', scanType: 'nmap', priority: 'x', options: { ports: 1 } },
      'INVALID_FIELD_TYPE',
    ],
    [
      'an unknown engine before an unknown priority',
      { target: '203.0.113.5', scanType: 'nessus', priority: 'x' },
      'INVALID_SCAN_TYPE',
    ],
    [
      'an unknown priority before a bad target',
      { target: '127.1', scanType: 'nmap', priority: 'x' },
      'INVALID_PRIORITY',
    ],
    [
      'a bad target before a bad option value',
      { target: '127.1', scanType: 'nmap', options: { timing: 'T9' } },
      'INVALID_TARGET',
    ],
    [
      'a bad option value before a refused address',
      { target: '127.0.0.1', scanType: 'nmap', options: { timing: 'T9' } },
      'INVALID_FIELD_VALUE',
    ],
    [
      'a refused address before an engine no worker runs',
      { target: 'http://127.0.0.1/', scanType: 'zap' },
      'TARGET_NOT_ALLOWED',
    ],
  ])('reports %s', async (_name, body, code) => {
    const response = await post(body);
    expect(response.body.code).toBe(code);
  });

  it('answers SCAN_TYPE_NOT_ALLOWED naming the engine, after INVALID_SCAN_TYPE and before INVALID_PRIORITY', async () => {
    const limited = (await createKey(ctx.app, token, { allowedScanTypes: ['zap'] })).rawKey;
    const refused = await post({ target: '203.0.113.5', scanType: 'nmap', priority: 'x' }, limited);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'SCAN_TYPE_NOT_ALLOWED',
      error: 'Scan type not allowed for this API key: nmap',
    });
    const unknown = await post({ target: '203.0.113.5', scanType: 'nessus' }, limited);
    expect(unknown.body.code).toBe('INVALID_SCAN_TYPE');
  });

  it('refuses a sentinel member engine the key may not use', async () => {
    const limited = (await createKey(ctx.app, token, { allowedScanTypes: ['sentinel', 'nmap'] }))
      .rawKey;
    const response = await post(
      { target: '203.0.113.5', scanType: 'sentinel', options: { engines: ['nmap', 'nuclei'] } },
      limited,
    );
    expect(response.status).toBe(403);
    expect(response.body.error).toBe('Scan type not allowed for this API key: nuclei');
  });
});

async function countScans(): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*)::int as n from scans`.execute(
    ctx.database.handle.db,
  );
  return rows.rows[0]?.n ?? 0;
}

describe('GET /api/v1/scans/:scanId', () => {
  it('shows the detail record with effective options and timeout', async () => {
    const asset = await ctx.app.request('/api/v1/assets', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { name: 'one address', kind: 'ip', value: '203.0.113.8' },
    });
    const assetId = asset.body.data.asset.id;
    const { id } = await createScan(ctx.app, key, {
      target: '203.0.113.8',
      scanType: 'nmap',
      options: { ports: '22,80' },
      priority: 'low',
      assetId,
    });
    const scan = await getScan(ctx.app, key, id);
    expect(scan).toMatchObject({
      id,
      targetType: 'ip',
      priority: 'low',
      options: { ports: '22,80', timing: 'T3', serviceDetection: true, scripts: [] },
      timeout: 3600,
      assetId,
      resultCount: 0,
      findingsSummary: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
      parentScanId: null,
      templateId: null,
    });
    expect(scan).not.toHaveProperty('error');
  });

  it('answers 404 SCAN_NOT_FOUND for a wrong scanType, another tenant, an unknown or malformed id', async () => {
    const { id } = await createScan(ctx.app, key, { target: '203.0.113.9', scanType: 'nmap' });
    expect((await get(`/api/v1/scans/${id}?scanType=nmap`)).status).toBe(200);
    const other = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    for (const [path, apiKey] of [
      [`/api/v1/scans/${id}?scanType=zap`, key],
      [`/api/v1/scans/${id}`, other],
      [`/api/v1/scans/${randomUUID()}`, key],
      ['/api/v1/scans/not-a-uuid', key],
    ] as const) {
      const response = await get(path, apiKey);
      expect(response.status, path).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: 'Scan not found',
        code: 'SCAN_NOT_FOUND',
      });
    }
  });
});

describe('GET /api/v1/scans', () => {
  let listKey = '';
  beforeAll(async () => {
    listKey = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    for (let i = 0; i < 3; i += 1) {
      await createScan(ctx.app, listKey, {
        target: `203.0.113.${20 + i}`,
        scanType: 'nmap',
        name: `n${i}`,
      });
    }
    // A held engine keeps them running; cancel one so that the status filter has two values.
  });

  it('lists nmap scans newest first by default, with pagination', async () => {
    const response = await get('/api/v1/scans?limit=2', listKey);
    expect(response.status).toBe(200);
    expect(response.body.data.scans.map((s: { name: string }) => s.name)).toEqual(['n2', 'n1']);
    expect(response.body.data.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const second = await get('/api/v1/scans?limit=2&page=2', listKey);
    expect(second.body.data.scans.map((s: { name: string }) => s.name)).toEqual(['n0']);
  });

  it('filters by scanType (all for every engine) and status', async () => {
    expect((await get('/api/v1/scans?scanType=zap', listKey)).body.data.pagination.total).toBe(0);
    expect((await get('/api/v1/scans?scanType=all', listKey)).body.data.pagination.total).toBe(3);
    const first = (await get('/api/v1/scans?limit=1', listKey)).body.data.scans[0];
    await cancel(first.id, listKey);
    const cancelled = await get('/api/v1/scans?status=cancelled', listKey);
    expect(cancelled.body.data.scans.map((s: { id: string }) => s.id)).toEqual([first.id]);
  });

  it.each([
    ['page=0', 'INVALID_PAGE'],
    ['page=abc', 'INVALID_PAGE'],
    ['page=1.5', 'INVALID_PAGE'],
    ['page=10001', 'INVALID_PAGE'],
    ['page=1e300', 'INVALID_PAGE'],
    ['page=-1', 'INVALID_PAGE'],
    ['limit=0', 'INVALID_LIMIT'],
    ['limit=101', 'INVALID_LIMIT'],
    ['limit=x', 'INVALID_LIMIT'],
    ['scanType=nessus', 'INVALID_SCAN_TYPE'],
    ['status=done', 'INVALID_FIELD_VALUE'],
  ])('answers 400 for %s with %s', async (query, code) => {
    const response = await get(`/api/v1/scans?${query}`, listKey);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    if (code === 'INVALID_PAGE') {
      expect(response.body.error).toBe('Invalid page: must be an integer from 1 to 10000');
    }
  });

  it('serves the last page (10000), and answers 1e300 without an error in the log', async () => {
    const before = ctx.app.logs.length;
    const last = await get('/api/v1/scans?page=10000&limit=100', listKey);
    expect(last.status).toBe(200);
    expect(last.body.data.scans).toEqual([]);
    expect(last.body.data.pagination).toMatchObject({ page: 10000, limit: 100 });
    for (const path of ['/api/v1/scans?page=1e300', '/api/v1/templates?page=1e300']) {
      expect((await get(path, listKey)).body.code, path).toBe('INVALID_PAGE');
    }
    const logged = ctx.app.logs.slice(before).join('');
    expect(logged).not.toContain('"level":50');
    expect(logged).not.toContain('stack');
  });
});

describe('running, cancelling and reading results', () => {
  it('runs a scan: queued → running (scan.started) → completed with findings and events', async () => {
    const { id } = await createScan(ctx.app, key, { target: '203.0.113.30', scanType: 'nmap' });
    const request = await held.waitFor(id);
    expect(request.options).toMatchObject({ timing: 'T3' });
    const running = await waitForStatus(ctx.app, key, id, ['running']);
    expect(running.startedAt).not.toBeNull();
    const notReady = await get(`/api/v1/scans/${id}/results`);
    expect(notReady.status).toBe(409);
    expect(notReady.body).toMatchObject({
      code: 'RESULTS_NOT_READY',
      error: 'Results are not ready: scan is running',
    });
    held.release(id, {
      findings: [
        draftFinding(),
        draftFinding(),
        draftFinding({
          ruleId: 'CVE-2023-38408',
          title: 'CVE-2023-38408',
          severity: 'critical',
          toolSeverity: '9.8',
          category: 'vulnerability',
          identifiers: { cve: ['CVE-2023-38408'], cwe: [] },
        }),
      ],
    });
    const done = await waitForStatus(ctx.app, key, id, ['completed']);
    expect(done).toMatchObject({
      progress: 100,
      resultCount: 2,
      findingsSummary: { critical: 1, high: 0, medium: 0, low: 0, info: 1 },
      riskScore: 40,
    });
    expect(done.durationMs).toBeGreaterThanOrEqual(0);

    const results = await get(`/api/v1/scans/${id}/results`);
    expect(results.status).toBe(200);
    expect(results.body.data).toMatchObject({
      scanId: id,
      status: 'completed',
      partial: false,
      summary: { critical: 1, info: 1 },
      riskScore: 40,
      pagination: { page: 1, limit: 20, total: 2, totalPages: 1 },
    });
    const [first, second] = results.body.data.findings;
    expect(first).toMatchObject({ severity: 'critical', identifiers: { cve: ['CVE-2023-38408'] } });
    expect(second).toMatchObject({
      severity: 'info',
      location: { host: '203.0.113.10', port: 22, protocol: 'tcp', url: null },
      scanId: id,
      engine: 'nmap',
    });
    expect(second.fingerprint).toMatch(/^[0-9a-f]{64}$/);

    const events = await sql<{ event: string; payload: Record<string, unknown> }>`
      select event, payload from scan_events where scan_id = ${id} order by seq`.execute(
      ctx.database.handle.db,
    );
    expect(events.rows.map((row) => row.event)).toEqual(['scan.started', 'scan.completed']);
    const completed = events.rows[1]?.payload as Record<string, Record<string, unknown>>;
    expect(completed).toMatchObject({ event: 'scan.completed', tenantId: tenant });
    // Exactly the specification's fields, in its order (the outbox keeps the order it was built in).
    expect(Object.keys(completed)).toEqual(['event', 'timestamp', 'tenantId', 'data']);
    expect(Object.keys(completed.data ?? {})).toEqual([
      'scanId',
      'scanType',
      'name',
      'target',
      'status',
      'progress',
      'resultCount',
      'durationMs',
      'createdAt',
      'completedAt',
    ]);
    expect(completed.data).toMatchObject({
      scanId: id,
      scanType: 'nmap',
      name: 'nmap 203.0.113.30',
      target: '203.0.113.30',
      status: 'completed',
      progress: 100,
      resultCount: 2,
      createdAt: done.createdAt,
      completedAt: done.completedAt,
      durationMs: done.durationMs,
    });
    expect(completed.timestamp).toBe(done.completedAt);
    const started = events.rows[0]?.payload as Record<string, Record<string, unknown>>;
    expect(started.timestamp).toBe(running.startedAt);
    expect(started.data).toMatchObject({
      status: 'running',
      progress: 0,
      durationMs: 0,
      completedAt: null,
    });

    const again = await cancel(id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 'SCAN_ALREADY_COMPLETED',
      error: 'Scan has already completed',
    });
  });

  it('pages and filters findings, and refuses unknown filter and format values', async () => {
    const { id } = await createScan(ctx.app, key, { target: '203.0.113.31', scanType: 'nmap' });
    await held.waitFor(id);
    held.release(id, {
      findings: Array.from({ length: 25 }, (_, port) =>
        draftFinding({
          location: { host: '203.0.113.31', port: port + 1, protocol: 'tcp', url: null },
          severity: port < 5 ? 'high' : 'info',
        }),
      ),
    });
    await waitForStatus(ctx.app, key, id, ['completed']);
    const page = await get(`/api/v1/scans/${id}/findings?page=2&limit=10`);
    expect(page.body.data.pagination).toEqual({ page: 2, limit: 10, total: 25, totalPages: 3 });
    expect(page.body.data.findings).toHaveLength(10);
    const high = await get(`/api/v1/scans/${id}/findings?severity=high`);
    expect(high.body.data.findings).toHaveLength(5);
    expect(high.body.data.findings.every((f: { severity: string }) => f.severity === 'high')).toBe(
      true,
    );
    // engine and triage (extensions) combine with severity and paging; totals count the matches.
    const narrowed = await get(
      `/api/v1/scans/${id}/findings?engine=nmap&triage=none&severity=high&page=2&limit=2`,
    );
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.body.data.pagination).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
    expect(narrowed.body.data.findings).toHaveLength(2);
    expect(
      narrowed.body.data.findings.every(
        (f: { severity: string; engine: string; triage: string }) =>
          f.severity === 'high' && f.engine === 'nmap' && f.triage === 'none',
      ),
    ).toBe(true);
    const byEngine = await get(`/api/v1/scans/${id}/findings?engine=nmap&limit=10`);
    expect(byEngine.body.data.pagination).toEqual({ page: 1, limit: 10, total: 25, totalPages: 3 });
    for (const query of ['engine=zap', 'triage=out_of_scope', 'triage=none&severity=critical']) {
      const none = await get(`/api/v1/scans/${id}/findings?${query}`);
      expect(none.body.data, query).toEqual({
        findings: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0 },
      });
    }
    for (const query of [
      'findings?severity=severe',
      'results?format=pdf',
      'findings?engine=nope',
      'findings?engine=sentinel',
      'findings?triage=maybe',
    ]) {
      const response = await get(`/api/v1/scans/${id}/${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('INVALID_FIELD_VALUE');
    }
    expect((await get(`/api/v1/scans/${id}/findings?triage=maybe`)).body.error).toMatch(
      /^Invalid value for field triage: /,
    );
    expect((await get(`/api/v1/scans/${id}/findings?limit=500`)).body.code).toBe('INVALID_LIMIT');

    const sarif = await get(`/api/v1/scans/${id}/results?format=sarif`);
    expect(sarif.status).toBe(200);
    expect(sarif.headers.get('content-type')).toContain('application/sarif+json');
    const log = JSON.parse(sarif.text);
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0].results).toHaveLength(25);

    const csv = await get(`/api/v1/scans/${id}/results?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toContain(`rampart-scan-${id}.csv`);
    expect(csv.text.trimEnd().split('\r\n')).toHaveLength(26);
  });

  it('cancels a queued scan and a running one (partial results kept), with the 409 codes after', async () => {
    const { id } = await createScan(ctx.app, key, { target: '203.0.113.32', scanType: 'nmap' });
    await held.waitFor(id);
    const response = await cancel(id);
    expect(response.status).toBe(200);
    expect(response.body.data.scan).toMatchObject({ id, status: 'cancelled' });
    expect(response.body.data.scan.completedAt).not.toBeNull();
    // The worker aborts the run and stores what it found so far.
    const deadline = Date.now() + 5000;
    let results = await get(`/api/v1/scans/${id}/results`);
    while (results.body.data.findings.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      results = await get(`/api/v1/scans/${id}/results`);
    }
    expect(results.body.data).toMatchObject({ status: 'cancelled', partial: true });
    expect(results.body.data.findings.map((f: { title: string }) => f.title)).toEqual([
      'Found before the cancel',
    ]);
    expect((await getScan(ctx.app, key, id)).status).toBe('cancelled');
    const again = await cancel(id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 'SCAN_ALREADY_CANCELLED',
      error: 'Scan has already been cancelled',
    });

    const events = await sql<{ event: string }>`
      select event from scan_events where scan_id = ${id} order by seq`.execute(
      ctx.database.handle.db,
    );
    expect(events.rows.map((row) => row.event)).toEqual(['scan.started', 'scan.cancelled']);
  });

  it('fails a scan whose name no longer resolves at start, with error and scan.failed', async () => {
    const { id } = await createScan(ctx.app, key, { target: 'gone.invalid', scanType: 'nmap' });
    const failed = await waitForStatus(ctx.app, key, id, ['failed']);
    expect(failed.error).toEqual({
      code: 'TARGET_UNRESOLVABLE',
      message: 'gone.invalid does not resolve',
    });
    const results = await get(`/api/v1/scans/${id}/results`);
    expect(results.body.data).toMatchObject({ status: 'failed', partial: true, findings: [] });
    const again = await cancel(id);
    expect(again.body).toMatchObject({
      code: 'SCAN_ALREADY_FAILED',
      error: 'Scan has already failed',
    });
    const events = await sql<{ event: string; payload: { data: { error?: unknown } } }>`
      select event, payload from scan_events where scan_id = ${id} order by seq`.execute(
      ctx.database.handle.db,
    );
    expect(events.rows.at(-1)?.event).toBe('scan.failed');
    expect(events.rows.at(-1)?.payload.data.error).toEqual(failed.error);
  });

  it('resolves a name again at start and fails it when it now points into a refused range', async () => {
    const { id } = await createScan(ctx.app, key, { target: 'rebind.example', scanType: 'nmap' });
    const failed = await waitForStatus(ctx.app, key, id, ['failed']);
    expect(failed.error).toEqual({
      code: 'TARGET_NOT_ALLOWED',
      message: 'rebind.example resolves to 127.0.0.1, a loopback address',
    });
    expect(held.held.has(id)).toBe(false);
  });

  it('shows the progress the engine reports while running', async () => {
    const { id } = await createScan(ctx.app, key, { target: '203.0.113.35', scanType: 'nmap' });
    const run = await held.waitFor(id);
    run.onProgress(42);
    const deadline = Date.now() + 5_000;
    let scan = await getScan(ctx.app, key, id);
    while (scan.progress !== 42 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      scan = await getScan(ctx.app, key, id);
    }
    expect(scan).toMatchObject({ status: 'running', progress: 42 });
    held.release(id);
    expect((await waitForStatus(ctx.app, key, id, ['completed'])).progress).toBe(100);
  });

  it('gives the same issue the same fingerprint on a rescan, and de-duplicates within a scan', async () => {
    const fingerprints: string[][] = [];
    for (const target of ['203.0.113.36', '203.0.113.36']) {
      const { id } = await createScan(ctx.app, key, { target, scanType: 'nmap' });
      await held.waitFor(id);
      held.release(id, {
        findings: [
          draftFinding(),
          draftFinding({ title: 'reworded by a newer tool version' }),
          draftFinding({
            location: { host: '203.0.113.10', port: 443, protocol: 'tcp', url: null },
          }),
        ],
      });
      await waitForStatus(ctx.app, key, id, ['completed']);
      const response = await get(`/api/v1/scans/${id}/findings`);
      fingerprints.push(
        response.body.data.findings.map((f: { fingerprint: string }) => f.fingerprint),
      );
    }
    expect(fingerprints[0]).toHaveLength(2);
    expect(new Set(fingerprints[0]).size).toBe(2);
    expect(fingerprints[1]).toEqual(fingerprints[0]);
  });

  it('fails with SCAN_TIMEOUT and ENGINE_ERROR as the engine reports, keeping findings', async () => {
    const timed = await createScan(ctx.app, key, {
      target: '203.0.113.33',
      scanType: 'nmap',
      timeout: 5,
    });
    await held.waitFor(timed.id);
    held.release(timed.id, { ending: 'timed-out', findings: [draftFinding()] });
    const failed = await waitForStatus(ctx.app, key, timed.id, ['failed']);
    expect(failed.error.code).toBe('SCAN_TIMEOUT');
    expect(failed.resultCount).toBe(1);

    const broken = await createScan(ctx.app, key, { target: '203.0.113.34', scanType: 'nmap' });
    await held.waitFor(broken.id);
    held.release(broken.id, { ending: 'engine-error', message: 'nmap exited with code 1: boom' });
    const error = (await waitForStatus(ctx.app, key, broken.id, ['failed'])).error;
    expect(error).toEqual({ code: 'ENGINE_ERROR', message: 'nmap exited with code 1: boom' });
  });
});
