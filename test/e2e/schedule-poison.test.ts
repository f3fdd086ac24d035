/**
 * A poison schedule does not block the others, over real HTTP and a real database (PGlite, or
 * PostgreSQL with RAMPART_TEST_DATABASE_URL). A trigger created in the test's own database raises
 * for scans of one target, a real unexpected database error (no double): in a claim of several
 * schedules, the poisoned one's scans are rolled back (its other target's too, and their quota),
 * its run is recorded as failed with INTERNAL_ERROR and not the database's text, and it pauses
 * after SCHEDULE_MAX_FAILURES runs; the other schedules' scans, of the same tenant and batched
 * with the poisoned ones, are created exactly once per occurrence.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';

const POISON = '203.0.113.66';
const BROKEN_NAME = 'broken.example';
let resolverBroken = false;
let now = new Date('2026-06-01T12:00:00Z');
const ctx = useTestApp(
  // The timer never fires during the test: each round is a tick() the test calls.
  {
    WORKERS: '1',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    SCHEDULER_POLL_MS: '3600000',
    SCHEDULE_MAX_FAILURES: '2',
  },
  {
    clock: { now: () => now },
    engineRunners: new Map([['nmap', instantEngine()]]),
    // A double of the target check (no DNS here) that can be broken for one name: an unexpected
    // error that is not the database's, thrown while the claim looks its targets up.
    resolver: {
      check: async (target: { value: string }) => {
        if (resolverBroken && target.value === BROKEN_NAME) {
          throw new Error('resolver bug');
        }
        return { ok: true as const, addresses: [] };
      },
    },
  },
);

let key = '';
let otherKey = '';
let tenantId = '';
const api = (path: string, init: { method?: string; json?: unknown; apiKey?: string } = {}) =>
  ctx.app.request(path, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': init.apiKey ?? key },
    ...(init.json === undefined ? {} : { json: init.json }),
  });
const schedule = async (id: string, apiKey = key) =>
  (await api(`/api/v1/schedules/${id}`, { apiKey })).body.data.schedule;
const create = async (name: string, targets: string[], apiKey = key) => {
  const response = await api('/api/v1/schedules', {
    method: 'POST',
    json: { name, scan: { scanType: 'nmap' }, targets, intervalSeconds: 3600 },
    apiKey,
  });
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
/** The stored scans of `tenant`, by target, read from the database itself. */
const storedTargets = async (tenant: string) => {
  const rows = await ctx.database.handle.db
    .selectFrom('scans')
    .select('target')
    .where('tenant_id', '=', tenant)
    .execute();
  return rows.map((row) => row.target).sort();
};

let before = '';
let poisoned = '';
let after = '';
let elsewhere = '';

beforeAll(async () => {
  const db = ctx.database.handle.db;
  // In the test's database (PGlite) or schema (PostgreSQL: the search path's first schema).
  await sql`
    create function rampart_test_poison() returns trigger language plpgsql as $$
    begin
      if new.target = ${sql.lit(POISON)} then
        raise exception 'test poison: relation secret_internals refuses %', new.target;
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger rampart_test_poison before insert on scans
    for each row execute function rampart_test_poison()`.execute(db);
  tenantId = randomUUID();
  key = (await createKey(ctx.app, await tokenFor(tenantId))).rawKey;
  otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
  // Created in this order, all due at the same time: one claim holds them all, and the tenant's
  // scans go in one batched statement with the poisoned ones.
  before = await create('before', ['203.0.113.9']);
  poisoned = await create('poisoned', ['203.0.113.10', POISON]);
  after = await create('after', ['example.com', '203.0.113.11']);
  elsewhere = await create('elsewhere', ['203.0.113.12'], otherKey);
});

afterAll(async () => {
  const db = ctx.database.handle.db;
  await sql`drop trigger if exists rampart_test_poison on scans`.execute(db);
  await sql`drop function if exists rampart_test_poison()`.execute(db);
});

describe('a schedule whose scans meet an unexpected database error', () => {
  it('fails alone: the rest of the claim commits, and it pauses after SCHEDULE_MAX_FAILURES', async () => {
    const first = await schedule(before);
    const occurrence = first.nextRunAt as string;
    expect(await tickAt(new Date(new Date(occurrence).getTime() + 1000).toISOString())).toBe(4);

    const failed = await schedule(poisoned);
    expect(failed.lastRuns).toHaveLength(1);
    expect(failed.lastRuns[0]).toMatchObject({
      occurrenceAt: occurrence,
      outcome: 'failed',
      scanIds: [],
      errors: [
        {
          target: null,
          code: 'INTERNAL_ERROR',
          message:
            'Internal error: the scans of this run could not be stored, and none was created; the service logged why',
        },
      ],
    });
    // The database's own words (and the trigger's) stay in the log.
    expect(JSON.stringify(failed.lastRuns)).not.toMatch(/poison|secret_internals|relation/);
    expect(failed).toMatchObject({ paused: false, consecutiveFailures: 1 });
    // It moved on to its next occurrence like the others: it is not claimed again until then.
    expect(failed.nextRunAt).toBe(
      new Date(new Date(occurrence).getTime() + 3_600_000).toISOString(),
    );

    for (const [id, apiKey, count] of [
      [before, key, 1],
      [after, key, 2],
      [elsewhere, otherKey, 1],
    ] as const) {
      const ok = await schedule(id, apiKey);
      expect(ok.lastRuns[0], ok.name).toMatchObject({
        occurrenceAt: occurrence,
        outcome: 'created',
      });
      expect(ok.lastRuns[0].scanIds).toHaveLength(count);
    }
    // Each good target's scan exists exactly once; none of the poisoned schedule's, not even the
    // scan of its healthy target, and the quota counts only what was kept.
    expect(await storedTargets(tenantId)).toEqual(['203.0.113.11', '203.0.113.9', 'example.com']);
    const usage = await api('/api/v1/usage');
    expect(usage.body.data.quota.used).toBe(3);
    expect(await tickAt(new Date(now.getTime() + 1000).toISOString())).toBe(0);

    // The next occurrence fails again: the second failure in a row pauses it, with the reason.
    const second = new Date(new Date(occurrence).getTime() + 3_600_000);
    expect(await tickAt(new Date(second.getTime() + 1000).toISOString())).toBe(4);
    const paused = await schedule(poisoned);
    expect(paused.lastRuns.map((run: { outcome: string }) => run.outcome)).toEqual([
      'failed',
      'failed',
    ]);
    expect(paused).toMatchObject({ paused: true, consecutiveFailures: 2 });
    expect(paused.pausedReason).toBe(
      'paused after 2 consecutive runs that created no scan; last: INTERNAL_ERROR: Internal error: the scans of this run could not be stored, and none was created; the service logged why',
    );
    expect(await storedTargets(tenantId)).toEqual([
      '203.0.113.11',
      '203.0.113.11',
      '203.0.113.9',
      '203.0.113.9',
      'example.com',
      'example.com',
    ]);

    // Paused, it is no longer claimed; the others go on, and alone in a claim they still commit.
    const third = new Date(second.getTime() + 3_600_000);
    expect(await tickAt(new Date(third.getTime() + 1000).toISOString())).toBe(3);
    expect((await schedule(poisoned)).lastRuns).toHaveLength(2);
    expect(
      (await schedule(before)).lastRuns.map((run: { outcome: string }) => run.outcome),
    ).toEqual(['created', 'created', 'created']);
  });

  it('fails alone also when it is the only schedule of its claim', async () => {
    // Written 90 minutes before the others' next occurrence, it is due 30 minutes before it.
    const othersNext = new Date((await schedule(before)).nextRunAt);
    now = new Date(othersNext.getTime() - 90 * 60_000);
    const id = await create('lonely', [POISON]);
    const due = (await schedule(id)).nextRunAt as string;
    expect(new Date(due).getTime()).toBeLessThan(othersNext.getTime());
    expect(await tickAt(new Date(new Date(due).getTime() + 1000).toISOString())).toBe(1);
    const lonely = await schedule(id);
    expect(lonely.lastRuns[0]).toMatchObject({
      occurrenceAt: due,
      outcome: 'failed',
      scanIds: [],
      errors: [{ target: null, code: 'INTERNAL_ERROR' }],
    });
    expect(lonely.consecutiveFailures).toBe(1);
  });

  it('fails alone when its target check throws unexpectedly while the claim looks targets up', async () => {
    const othersNext = new Date((await schedule(before)).nextRunAt);
    now = new Date(othersNext.getTime() + 10 * 60_000);
    const broken = await create('broken', [BROKEN_NAME]);
    const fine = await create('fine', ['fine.example', '203.0.113.20']);
    const due = (await schedule(broken)).nextRunAt as string;
    resolverBroken = true;
    try {
      expect(await tickAt(new Date(new Date(due).getTime() + 1000).toISOString())).toBeGreaterThan(
        1,
      );
    } finally {
      resolverBroken = false;
    }
    const failed = await schedule(broken);
    expect(failed.lastRuns[0]).toMatchObject({
      occurrenceAt: due,
      outcome: 'failed',
      scanIds: [],
      errors: [{ target: null, code: 'INTERNAL_ERROR' }],
    });
    expect(JSON.stringify(failed.lastRuns)).not.toContain('resolver bug');
    const created = await schedule(fine);
    expect(created.lastRuns[0]).toMatchObject({ occurrenceAt: due, outcome: 'created' });
    expect(created.lastRuns[0].scanIds).toHaveLength(2);
  });
});
