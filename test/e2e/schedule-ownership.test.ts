/**
 * A schedule belongs to its tenant, not to the key that wrote it (README, "Scheduled scans"), over
 * real HTTP and a real database (PGlite, or PostgreSQL with RAMPART_TEST_DATABASE_URL): revoking
 * that key does not stop its schedule, whose scans still carry the key's id; pausing it does.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

let now = new Date('2026-07-01T12:00:00Z');
const ctx = useTestApp(
  // The timer never fires during the test: each round is a tick() the test calls.
  { WORKERS: '1', WORKER_SHUTDOWN_GRACE_MS: '100', SCHEDULER_POLL_MS: '3600000' },
  {
    clock: { now: () => now },
    engineRunners: new Map([['nmap', instantEngine()]]),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);

const tickAt = async (at: Date) => {
  now = at;
  const scheduler = ctx.app.composed.scheduler;
  if (scheduler === null) {
    throw new Error('the test app runs no scheduler');
  }
  return scheduler.tick();
};

let token = '';
beforeAll(async () => {
  token = await tokenFor(randomUUID());
});

describe('the owner of a schedule', () => {
  it('is the tenant: a revoked key does not stop its schedule, pausing does', async () => {
    const key = await createKey(ctx.app, token);
    const created = await ctx.app.request('/api/v1/schedules', {
      method: 'POST',
      headers: { 'x-api-key': key.rawKey },
      json: {
        name: 'nightly',
        scan: { scanType: 'nmap' },
        targets: ['203.0.113.9'],
        intervalSeconds: 3600,
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.schedule.id as string;
    const revoked = await ctx.app.request(`/api/v1/api-keys/${key.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(revoked.status).toBe(200);
    expect(
      (await ctx.app.request('/api/v1/schedules', { headers: { 'x-api-key': key.rawKey } })).status,
    ).toBe(401);

    const read = async () =>
      (await ctx.app.request(`/api/v1/schedules/${id}`, { headers: bearer(token) })).body.data
        .schedule;
    const first = new Date((await read()).nextRunAt);
    expect(await tickAt(new Date(first.getTime() + 1000))).toBe(1);
    const ran = await read();
    expect(ran.lastRuns[0]).toMatchObject({ outcome: 'created', errors: [] });
    const scan = await ctx.database.handle.db
      .selectFrom('scans')
      .select('api_key_id')
      .where('id', '=', ran.lastRuns[0].scanIds[0])
      .executeTakeFirstOrThrow();
    expect(scan.api_key_id).toBe(key.id);

    const paused = await ctx.app.request(`/api/v1/schedules/${id}`, {
      method: 'PATCH',
      headers: bearer(token),
      json: { paused: true },
    });
    expect(paused.status, paused.text).toBe(200);
    expect(await tickAt(new Date(first.getTime() + 3_600_000 + 1000))).toBe(0);
    expect((await read()).lastRuns).toHaveLength(1);
  });
});
