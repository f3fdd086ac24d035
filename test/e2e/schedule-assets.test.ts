/**
 * Schedules over registered assets, over real HTTP (PGlite, or PostgreSQL with
 * RAMPART_TEST_DATABASE_URL), with REQUIRE_VERIFIED_TARGETS=intrusive: `assetIds` and `assetTag`
 * instead of `targets` (exactly one of the three), each occurrence creating one scan per asset
 * linked to it, a tag resolved at each run (assets tagged later are included), an unverified
 * asset refused while the others run, and a schedule paused only when every asset is refused.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

let now = new Date('2026-05-04T12:00:00Z');
const ctx = useTestApp(
  // The timer never fires during the test: each round is a tick() the test calls.
  {
    WORKERS: '1',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    SCHEDULER_POLL_MS: '3600000',
    REQUIRE_VERIFIED_TARGETS: 'intrusive',
    SCHEDULE_MAX_FAILURES: '2',
  },
  {
    clock: { now: () => now },
    engineRunners: new Map([
      ['nmap', instantEngine()],
      ['sublist3r', instantEngine()],
    ]),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);

let key = '';
let otherKey = '';
const api = (path: string, init: { method?: string; json?: unknown; apiKey?: string } = {}) =>
  ctx.app.request(path, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': init.apiKey ?? key },
    ...(init.json === undefined ? {} : { json: init.json }),
  });

async function asset(
  kind: string,
  value: string,
  options: { tags?: string[]; verified?: boolean; apiKey?: string } = {},
): Promise<string> {
  const created = await api('/api/v1/assets', {
    method: 'POST',
    json: { name: value, kind, value, tags: options.tags ?? [] },
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.asset.id as string;
  if (options.verified === true) {
    const verified = await ctx.app.request(`/api/v1/admin/assets/${id}/verify`, {
      method: 'POST',
      headers: bearer(await tokenFor(randomUUID(), { admin: true })),
    });
    expect(verified.status, verified.text).toBe(200);
  }
  return id;
}

async function createSchedule(json: Record<string, unknown>) {
  const response = await api('/api/v1/schedules', {
    method: 'POST',
    json: { name: 'assets', scan: { scanType: 'nmap' }, intervalSeconds: 3600, ...json },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.schedule as { id: string; nextRunAt: string };
}

/** Runs the scheduler at the schedule's next run time; resolves to that occurrence's run. */
async function runNext(scheduleId: string) {
  const before = (await api(`/api/v1/schedules/${scheduleId}`)).body.data.schedule;
  now = new Date(new Date(before.nextRunAt).getTime() + 1000);
  const scheduler = ctx.app.composed.scheduler;
  if (scheduler === null) {
    throw new Error('the test app runs no scheduler');
  }
  await scheduler.tick();
  const after = (await api(`/api/v1/schedules/${scheduleId}`)).body.data.schedule;
  const run = after.lastRuns.find(
    (one: { occurrenceAt: string }) => one.occurrenceAt === before.nextRunAt,
  );
  expect(run, JSON.stringify(after.lastRuns)).toBeDefined();
  return { run, schedule: after };
}

const scanOf = async (id: string) => (await api(`/api/v1/scans/${id}`)).body.data.scan;

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 }))
    .rawKey;
  otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
});

describe('what a schedule scans: targets, assetIds or assetTag', () => {
  it('takes exactly one of them, and only assets of the tenant', async () => {
    const mine = await asset('domain', 'choice.example', { tags: ['choice'] });
    const theirs = await asset('domain', 'theirs.example', { apiKey: otherKey });
    const refused = async (json: Record<string, unknown>) => {
      const response = await api('/api/v1/schedules', {
        method: 'POST',
        json: { name: 'x', scan: { scanType: 'nmap' }, intervalSeconds: 3600, ...json },
      });
      expect(response.status, response.text).toBe(400);
      return response.body as { code: string; error: string };
    };
    expect(await refused({})).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      error: expect.stringContaining('targets'),
    });
    expect(await refused({ targets: ['203.0.113.9'], assetIds: [mine] })).toMatchObject({
      code: 'INVALID_FIELD_VALUE',
      error: expect.stringContaining('assetIds'),
    });
    expect(await refused({ assetIds: [mine], assetTag: 'choice' })).toMatchObject({
      code: 'INVALID_FIELD_VALUE',
      error: expect.stringContaining('assetTag'),
    });
    for (const unknown of [randomUUID(), theirs, 'not-a-uuid']) {
      expect(await refused({ assetIds: [mine, unknown] })).toMatchObject({
        code: 'INVALID_ASSET_ID',
        error: expect.stringContaining(`no asset ${unknown}`),
      });
    }
    expect((await refused({ assetIds: [mine, mine.toUpperCase()] })).code).toBe(
      'INVALID_FIELD_VALUE',
    );
    expect(await refused({ assetTag: 'nothing-carries-this' })).toMatchObject({
      code: 'INVALID_FIELD_VALUE',
      error: expect.stringContaining('assetTag'),
    });
    // Each scan is linked to its own asset: a scan body's assetId has no place beside assets.
    expect(
      (await refused({ assetIds: [mine], scan: { scanType: 'nmap', assetId: mine } })).code,
    ).toBe('INVALID_FIELD_VALUE');
    // Each asset's value is checked as a scan target of the engine when the schedule is written.
    const image = await asset('image', 'registry.example/app:1');
    expect((await refused({ assetIds: [mine, image] })).code).toBe('INVALID_TARGET');

    const created = await createSchedule({ assetIds: [mine.toUpperCase()] });
    expect(created).toMatchObject({ targets: [], assetIds: [mine], assetTag: null });
    // PATCH: a new choice replaces the old one; another tenant's schedule stays 404.
    const patched = await api(`/api/v1/schedules/${created.id}`, {
      method: 'PATCH',
      json: { assetTag: 'choice' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.schedule).toMatchObject({
      targets: [],
      assetIds: null,
      assetTag: 'choice',
    });
    const back = await api(`/api/v1/schedules/${created.id}`, {
      method: 'PATCH',
      json: { targets: ['203.0.113.9'] },
    });
    expect(back.body.data.schedule).toMatchObject({
      targets: ['203.0.113.9'],
      assetIds: null,
      assetTag: null,
    });
    const foreign = await api(`/api/v1/schedules/${created.id}`, { apiKey: otherKey });
    expect(foreign.status).toBe(404);
  });
});

describe('running a schedule over assets', () => {
  it('creates one scan per asset, linked to it, at its value', async () => {
    const domain = await asset('domain', 'ids.example', { verified: true });
    const address = await asset('ip', '203.0.113.21', { verified: true });
    const schedule = await createSchedule({ assetIds: [domain, address] });
    const { run } = await runNext(schedule.id);
    expect(run).toMatchObject({ outcome: 'created', errors: [] });
    expect(run.scanIds).toHaveLength(2);
    const scans = await Promise.all(run.scanIds.map(scanOf));
    expect(
      scans.map((scan: { target: string; assetId: string }) => [scan.target, scan.assetId]),
    ).toEqual(
      expect.arrayContaining([
        ['ids.example', domain],
        ['203.0.113.21', address],
      ]),
    );

    // An asset deleted since is an error of the run; the other is scanned.
    expect((await api(`/api/v1/assets/${address}`, { method: 'DELETE' })).status).toBe(200);
    const next = await runNext(schedule.id);
    expect(next.run.outcome).toBe('partial');
    expect(next.run.scanIds).toHaveLength(1);
    expect(next.run.errors).toEqual([
      { target: null, assetId: address, code: 'INVALID_ASSET_ID', message: expect.any(String) },
    ]);
  });

  it('resolves a tag at each run: assets tagged later are scanned too', async () => {
    const first = await asset('domain', 'tag-one.example', { tags: ['nightly'], verified: true });
    await asset('domain', 'untagged.example', { verified: true });
    const schedule = await createSchedule({ assetTag: 'nightly' });
    const { run } = await runNext(schedule.id);
    expect(run).toMatchObject({ outcome: 'created', errors: [] });
    expect((await scanOf(run.scanIds[0])).assetId).toBe(first);

    const later = await asset('host', 'tag-two.example', { tags: ['nightly'], verified: true });
    const next = await runNext(schedule.id);
    expect(next.run).toMatchObject({ outcome: 'created', errors: [] });
    const scans = await Promise.all(next.run.scanIds.map(scanOf));
    expect(new Set(scans.map((scan: { assetId: string }) => scan.assetId))).toEqual(
      new Set([first, later]),
    );

    // A tag no asset carries any more creates nothing, and counts as a run that failed.
    for (const id of [first, later]) {
      const untagged = await api(`/api/v1/assets/${id}`, { method: 'PATCH', json: { tags: [] } });
      expect(untagged.status, untagged.text).toBe(200);
    }
    const empty = await runNext(schedule.id);
    expect(empty.run).toMatchObject({ outcome: 'failed', scanIds: [] });
    expect(empty.run.errors).toEqual([
      { target: null, code: 'INVALID_FIELD_VALUE', message: expect.stringContaining('nightly') },
    ]);
    expect(empty.schedule.consecutiveFailures).toBe(1);
  });

  it('refuses the scan of an unverified asset, runs the others, pauses only when all are refused', async () => {
    const verified = await asset('domain', 'proven.example', { verified: true });
    const unverified = await asset('domain', 'unproven.example');
    const mixed = await createSchedule({ assetIds: [verified, unverified] });
    const { run, schedule } = await runNext(mixed.id);
    expect(run.outcome).toBe('partial');
    expect(run.scanIds).toHaveLength(1);
    expect((await scanOf(run.scanIds[0])).assetId).toBe(verified);
    expect(run.errors).toEqual([
      {
        target: 'unproven.example',
        assetId: unverified,
        code: 'TARGET_NOT_VERIFIED',
        message: expect.stringContaining(`/api/v1/assets/${unverified}/verify`),
      },
    ]);
    expect(schedule).toMatchObject({ consecutiveFailures: 0, paused: false });

    const refusedOnly = await createSchedule({ assetIds: [unverified] });
    const once = await runNext(refusedOnly.id);
    expect(once.run).toMatchObject({ outcome: 'failed', scanIds: [] });
    expect(once.schedule).toMatchObject({ consecutiveFailures: 1, paused: false });
    const twice = await runNext(refusedOnly.id);
    expect(twice.run.outcome).toBe('failed');
    expect(twice.schedule).toMatchObject({
      consecutiveFailures: 2,
      paused: true,
      pausedReason: expect.stringContaining('TARGET_NOT_VERIFIED'),
    });
  });

  it('scans at most 100 assets of a tag, the oldest, and records the rest', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 101; index += 1) {
      ids.push(await asset('domain', `many${index}.example`, { tags: ['many'] }));
    }
    // sublist3r is passive: REQUIRE_VERIFIED_TARGETS=intrusive lets it scan unverified assets.
    const schedule = await createSchedule({ assetTag: 'many', scan: { scanType: 'sublist3r' } });
    const { run, schedule: after } = await runNext(schedule.id);
    expect(run.outcome).toBe('partial');
    expect(run.scanIds).toHaveLength(100);
    expect(run.errors).toEqual([
      {
        target: 'many100.example',
        assetId: ids[100],
        code: 'INVALID_FIELD_VALUE',
        message: expect.stringContaining('more than 100 assets'),
      },
    ]);
    expect(after.consecutiveFailures).toBe(0);
  }, 60_000);
});
