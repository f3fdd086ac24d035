/**
 * Scheduled scans under REQUIRE_VERIFIED_TARGETS: the scheduler creates its scans through the same
 * checks as POST /api/v1/scans, covering assets read in the claim's own transaction, so an
 * unverified target fails the occurrence with TARGET_NOT_VERIFIED, and once an administrator has
 * verified the asset the next occurrence creates its scan, linked to that asset.
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
  },
  {
    clock: { now: () => now },
    engineRunners: new Map([['nmap', instantEngine()]]),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);

let key = '';
const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
  ctx.app.request(path, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': key },
    ...(init.json === undefined ? {} : { json: init.json }),
  });

async function tickAt(iso: string): Promise<number> {
  now = new Date(iso);
  const scheduler = ctx.app.composed.scheduler;
  if (scheduler === null) {
    throw new Error('the test app runs no scheduler');
  }
  return scheduler.tick();
}

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
});

describe('scheduled scans and verified targets', () => {
  it('fails an occurrence on an unverified target, and creates the scan once it is verified', async () => {
    const created = await api('/api/v1/schedules', {
      method: 'POST',
      json: {
        name: 'nightly',
        scan: { scanType: 'nmap' },
        targets: ['203.0.113.77'],
        intervalSeconds: 3600,
      },
    });
    expect(created.status, created.text).toBe(201);
    const scheduleId = created.body.data.schedule.id as string;

    expect(await tickAt('2026-05-04T13:00:01Z')).toBe(1);
    const refused = (await api(`/api/v1/schedules/${scheduleId}`)).body.data.schedule;
    expect(refused.lastRuns[0]).toMatchObject({ outcome: 'failed', scanIds: [] });
    expect(refused.lastRuns[0].errors).toEqual([
      expect.objectContaining({ target: '203.0.113.77', code: 'TARGET_NOT_VERIFIED' }),
    ]);

    const asset = await api('/api/v1/assets', {
      method: 'POST',
      json: { name: 'edge', kind: 'ip', value: '203.0.113.77' },
    });
    expect(asset.status, asset.text).toBe(201);
    const assetId = asset.body.data.asset.id as string;
    const verified = await ctx.app.request(`/api/v1/admin/assets/${assetId}/verify`, {
      method: 'POST',
      headers: bearer(await tokenFor(randomUUID(), { admin: true })),
    });
    expect(verified.status, verified.text).toBe(200);

    expect(await tickAt('2026-05-04T14:00:01Z')).toBe(1);
    const ran = (await api(`/api/v1/schedules/${scheduleId}`)).body.data.schedule;
    const latest = ran.lastRuns.find(
      (run: { occurrenceAt: string }) => run.occurrenceAt === '2026-05-04T14:00:00.000Z',
    );
    expect(latest).toMatchObject({ outcome: 'created', errors: [] });
    expect(latest.scanIds).toHaveLength(1);
    const scan = (await api(`/api/v1/scans/${latest.scanIds[0]}`)).body.data.scan;
    expect(scan).toMatchObject({ target: '203.0.113.77', assetId });
  });
});
