/**
 * The scheduler in a process with workers, driven by an injected clock over real HTTP and a real
 * database (PGlite, or PostgreSQL with RAMPART_TEST_DATABASE_URL): an occurrence creates its scans
 * once, downtime follows the missed-run policy, quota refusals pause the schedule with a reason,
 * and a time-zone schedule keeps its local time across a daylight-saving change.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

let now = new Date('2026-03-07T12:00:00Z');
const clock = { now: () => now };
const ctx = useTestApp(
  // The timer never fires during the test: each round is a tick() the test calls.
  { WORKERS: '1', WORKER_SHUTDOWN_GRACE_MS: '100', SCHEDULER_POLL_MS: '3600000' },
  {
    clock,
    engineRunners: new Map([['nmap', instantEngine()]]),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);

let key = '';
let tenantId = '';
const api = (path: string, init: { method?: string; json?: unknown; apiKey?: string } = {}) =>
  ctx.app.request(path, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': init.apiKey ?? key },
    ...(init.json === undefined ? {} : { json: init.json }),
  });
const schedule = async (id: string, apiKey = key) =>
  (await api(`/api/v1/schedules/${id}`, { apiKey })).body.data.schedule;
const create = async (json: Record<string, unknown>, apiKey = key) => {
  const response = await api('/api/v1/schedules', { method: 'POST', json, apiKey });
  expect(response.status, response.text).toBe(201);
  return response.body.data.schedule.id as string;
};
const tickAt = async (iso: string) => {
  now = new Date(iso);
  const scheduler = ctx.app.composed.scheduler;
  if (scheduler === null) {
    throw new Error('the test app runs no scheduler');
  }
  return scheduler.tick();
};
const scansOf = async (ids: readonly string[]) =>
  Promise.all(ids.map(async (id) => (await api(`/api/v1/scans/${id}`)).body.data.scan));

let hourlySkip = '';
let hourlyOnce = '';
let newYork = '';

beforeAll(async () => {
  tenantId = randomUUID();
  key = (await createKey(ctx.app, await tokenFor(tenantId))).rawKey;
  const body = {
    scan: { scanType: 'nmap', tags: ['scheduled'] },
    targets: ['203.0.113.9', 'example.com'],
    intervalSeconds: 3600,
  };
  hourlySkip = await create({ ...body, name: 'skip' });
  hourlyOnce = await create({ ...body, name: 'once', missedRunPolicy: 'run_once' });
});

describe('the scheduler', () => {
  it('creates the scans of an occurrence once, as POST /scans would', async () => {
    expect(await tickAt('2026-03-07T12:59:59Z')).toBe(0);
    expect(await tickAt('2026-03-07T13:00:01Z')).toBe(2);
    const first = await schedule(hourlySkip);
    expect(first.nextRunAt).toBe('2026-03-07T14:00:00.000Z');
    expect(first.lastRuns).toHaveLength(1);
    expect(first.lastRuns[0]).toMatchObject({
      occurrenceAt: '2026-03-07T13:00:00.000Z',
      outcome: 'created',
      errors: [],
      missed: 0,
    });
    const scans = await scansOf(first.lastRuns[0].scanIds);
    expect(scans.map((scan) => scan.target).sort()).toEqual(['203.0.113.9', 'example.com']);
    for (const scan of scans) {
      expect(scan).toMatchObject({ scanType: 'nmap', tags: ['scheduled'] });
    }
    // The same instant again: nothing is due, nothing is created twice.
    expect(await tickAt('2026-03-07T13:00:01Z')).toBe(0);
    const listed = await api('/api/v1/scans?scanType=all&limit=100');
    expect(listed.body.data.pagination.total).toBe(4);
  });

  it('after downtime, skip runs nothing and run_once runs the latest occurrence once', async () => {
    expect(await tickAt('2026-03-07T17:30:00Z')).toBe(2);
    const skipped = await schedule(hourlySkip);
    expect(skipped.lastRuns[0]).toMatchObject({
      occurrenceAt: '2026-03-07T14:00:00.000Z',
      outcome: 'skipped',
      scanIds: [],
      missed: 4,
    });
    expect(skipped.nextRunAt).toBe('2026-03-07T18:00:00.000Z');
    const once = await schedule(hourlyOnce);
    expect(once.lastRuns[0]).toMatchObject({
      occurrenceAt: '2026-03-07T17:00:00.000Z',
      outcome: 'created',
      missed: 3,
    });
    expect(once.lastRuns[0].scanIds).toHaveLength(2);
    expect(once.nextRunAt).toBe('2026-03-07T18:00:00.000Z');
    const listed = await api('/api/v1/scans?scanType=all&limit=100');
    expect(listed.body.data.pagination.total).toBe(6);
  });

  it('keeps 09:00 New York time across the daylight-saving change', async () => {
    // Pause the hourly ones so that only the New York schedule runs from here on.
    for (const id of [hourlySkip, hourlyOnce]) {
      await api(`/api/v1/schedules/${id}`, { method: 'PATCH', json: { paused: true } });
    }
    now = new Date('2026-03-07T13:30:00Z');
    newYork = await create({
      name: 'nine in New York',
      scan: { scanType: 'nmap' },
      targets: ['203.0.113.10'],
      cron: '0 9 * * *',
      timeZone: 'America/New_York',
    });
    expect(await tickAt('2026-03-07T14:00:30Z')).toBe(1);
    expect(await tickAt('2026-03-08T12:59:00Z')).toBe(0);
    expect(await tickAt('2026-03-08T13:00:30Z')).toBe(1);
    const runs = (await schedule(newYork)).lastRuns;
    // 09:00 EST is 14:00Z; on 8 March New York is on EDT, and 09:00 is 13:00Z.
    expect(runs.map((run: { occurrenceAt: string }) => run.occurrenceAt)).toEqual([
      '2026-03-08T13:00:00.000Z',
      '2026-03-07T14:00:00.000Z',
    ]);
    expect((await schedule(newYork)).nextRunAt).toBe('2026-03-09T13:00:00.000Z');
  });

  it('records quota refusals and pauses the schedule after SCHEDULE_MAX_FAILURES runs', async () => {
    const otherTenant = randomUUID();
    const otherKey = (await createKey(ctx.app, await tokenFor(otherTenant))).rawKey;
    const admin = await tokenFor(randomUUID(), { admin: true });
    const quota = await ctx.app.request(`/api/v1/admin/tenants/${otherTenant}/quota`, {
      method: 'PUT',
      headers: bearer(admin),
      json: { monthlyScanQuota: 1 },
    });
    expect(quota.status, quota.text).toBe(200);
    const id = await create(
      {
        name: 'over quota',
        scan: { scanType: 'nmap' },
        targets: ['203.0.113.9'],
        intervalSeconds: 60,
      },
      otherKey,
    );
    // 1 scan fits in the quota; the next three occurrences create none, and it pauses.
    for (const minute of ['01', '02', '03', '04']) {
      expect(await tickAt(`2026-03-08T13:${minute}:40Z`)).toBe(1);
    }
    const paused = await schedule(id, otherKey);
    expect(paused.lastRuns.map((run: { outcome: string }) => run.outcome)).toEqual([
      'failed',
      'failed',
      'failed',
      'created',
    ]);
    expect(paused.lastRuns[0].errors).toEqual([
      expect.objectContaining({ target: '203.0.113.9', code: 'QUOTA_EXCEEDED' }),
    ]);
    expect(paused).toMatchObject({ paused: true, consecutiveFailures: 3 });
    expect(paused.pausedReason).toMatch(/3 consecutive runs .*QUOTA_EXCEEDED/);
    // Paused: no more runs.
    expect(await tickAt('2026-03-08T13:10:10Z')).toBe(0);
    expect((await schedule(id, otherKey)).lastRuns).toHaveLength(4);
    // Resumed: the failures and the reason are cleared; the next run counts from now.
    const resumed = await api(`/api/v1/schedules/${id}`, {
      method: 'PATCH',
      json: { paused: false },
      apiKey: otherKey,
    });
    expect(resumed.body.data.schedule).toMatchObject({
      paused: false,
      pausedReason: null,
      consecutiveFailures: 0,
      nextRunAt: '2026-03-08T13:10:30.000Z',
    });
  });
});
