/**
 * Three scheduler processes on one PostgreSQL, one killed with SIGKILL in the middle of a claim:
 * once while its transaction holds a batch of due schedules and is still resolving their targets
 * (nothing written yet), once after it has reserved the batch's occurrences and stored scans in
 * its transaction (test/support/scheduler-process.ts, RAMPART_TEST_HOLD_AFTER_SCANS). Either way
 * every occurrence creates its scans exactly once, and nothing of the killed claim is left.
 * PostgreSQL only (PGlite is one process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKEND, TEST_DATABASE_URL } from '../support/database.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';

const T0 = new Date('2026-05-04T10:00:00Z');
const DUE = '2026-05-04T10:01:05Z';
const SCHEDULES = 60;
const ctx = useTestApp({}, { clock: { now: () => T0 } });
const processes: ChildProcess[] = [];
/** What each started process printed so far. */
const printed = new Map<ChildProcess, string>();

/** Starts test/support/scheduler-process.ts; resolves once it printed a whole line with `until`. */
async function startScheduler(env: Record<string, string>, until = 'ready'): Promise<ChildProcess> {
  const schema = await sql<{ s: string }>`select current_schema() as s`.execute(
    ctx.database.handle.db,
  );
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('../support/scheduler-process.ts', import.meta.url).pathname],
    {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: TEST_DATABASE_URL ?? '',
        RAMPART_TEST_SCHEMA: schema.rows[0]?.s ?? '',
        RAMPART_TEST_NOW: DUE,
        SCHEDULER_POLL_MS: '50',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  processes.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      printed.set(child, out);
      const at = out.indexOf(until);
      if (at !== -1 && out.indexOf('\n', at) !== -1) {
        resolve();
      }
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`scheduler process ended (${code ?? signal}) before "${until}"`)),
    );
  });
  return child;
}

afterEach(async () => {
  await Promise.all(
    processes.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          child.once('exit', () => resolve());
          // A process held mid-claim never finishes a graceful stop.
          child.kill('SIGKILL');
        }),
    ),
  );
});

describe.runIf(BACKEND === 'postgres')('scheduler processes on PostgreSQL', () => {
  /** SCHEDULES schedules of a new tenant, due at 10:01:00 (two targets each). */
  async function seed(): Promise<string> {
    const tenantId = randomUUID();
    const tenantKey = (await createKey(ctx.app, await tokenFor(tenantId))).rawKey;
    for (let index = 0; index < SCHEDULES; index += 1) {
      const response = await ctx.app.request('/api/v1/schedules', {
        method: 'POST',
        headers: { 'x-api-key': tenantKey },
        json: {
          name: `s${index}`,
          scan: { scanType: 'nmap' },
          targets: [`a${index}.example.com`, `b${index}.example.com`],
          intervalSeconds: 60,
        },
      });
      expect(response.status, response.text).toBe(201);
    }
    return tenantId;
  }

  /** The committed runs of the tenant's schedules. */
  const runsOf = async (tenantId: string) =>
    ctx.database.handle.db
      .selectFrom('schedule_runs')
      .innerJoin('schedules', 'schedules.id', 'schedule_runs.schedule_id')
      .selectAll('schedule_runs')
      .where('schedules.tenant_id', '=', tenantId)
      .execute();

  async function waitForRuns(tenantId: string, count: number, deadline: number) {
    while ((await runsOf(tenantId)).length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return runsOf(tenantId);
  }

  /** Every occurrence ran once: its runs, scans, quota use and next run times, nothing else. */
  async function expectEachOccurrenceOnce(tenantId: string) {
    const db = ctx.database.handle.db;
    const recorded = await runsOf(tenantId);
    expect(recorded).toHaveLength(SCHEDULES);
    for (const run of recorded) {
      expect(run.outcome).toBe('created');
      expect(run.occurrence_at.toISOString()).toBe('2026-05-04T10:01:00.000Z');
      expect(run.scan_ids).toHaveLength(2);
    }
    const scanIds = recorded.flatMap((run) => run.scan_ids);
    const scans = await db
      .selectFrom('scans')
      .select(['id', 'target'])
      .where('tenant_id', '=', tenantId)
      .execute();
    // Exactly the recorded scans: none twice, none left by the killed claim.
    expect(scans).toHaveLength(2 * SCHEDULES);
    expect(new Set(scans.map((scan) => scan.target)).size).toBe(2 * SCHEDULES);
    expect(new Set(scanIds)).toEqual(new Set(scans.map((scan) => scan.id)));
    const usage = await db
      .selectFrom('tenant_monthly_scans')
      .select('scans')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect(usage.scans).toBe(2 * SCHEDULES);
    const next = await db
      .selectFrom('schedules')
      .select('next_run_at')
      .where('tenant_id', '=', tenantId)
      .execute();
    expect(new Set(next.map((row) => row.next_run_at?.toISOString()))).toEqual(
      new Set(['2026-05-04T10:02:00.000Z']),
    );
  }

  async function kill(victim: ChildProcess) {
    const killed = new Promise((resolve) => victim.once('exit', resolve));
    victim.kill('SIGKILL');
    await killed;
  }

  it('creates each occurrence once although one process dies mid-claim', async () => {
    const tenantId = await seed();
    // The victim claims the first batch and hangs on its third target check, with the batch
    // locked and nothing written (the checks come before the first write).
    const victim = await startScheduler({ RAMPART_TEST_HANG_AT: '3' }, 'holding');
    await Promise.all([startScheduler({}), startScheduler({})]);
    // The others take what the victim does not hold, and skip what it does.
    const deadline = Date.now() + 30_000;
    expect(await waitForRuns(tenantId, SCHEDULES - 50, deadline)).toHaveLength(SCHEDULES - 50);
    await kill(victim);
    // Its transaction is rolled back when its connection drops; the others claim the batch.
    await waitForRuns(tenantId, SCHEDULES, deadline + 30_000);
    await expectEachOccurrenceOnce(tenantId);
  }, 90_000);

  it('leaves no scan and no reserved occurrence of a claim killed after storing scans', async () => {
    const tenantId = await seed();
    // The victim claims the first batch (50 schedules), reserves their occurrences, stores
    // scans, reads them back in its transaction and holds there, uncommitted.
    const victim = await startScheduler({ RAMPART_TEST_HOLD_AFTER_SCANS: '1' }, 'holding');
    const out = printed.get(victim) ?? '';
    const line = out.slice(out.indexOf('holding after scans '));
    const written = JSON.parse(line.slice(line.indexOf('['), line.indexOf(']') + 1)) as string[];
    expect(written.length).toBeGreaterThan(0);
    const db = ctx.database.handle.db;
    // Outside its transaction nothing of the claim is visible yet.
    expect(await runsOf(tenantId)).toEqual([]);
    expect(await db.selectFrom('scans').select('id').where('id', 'in', written).execute()).toEqual(
      [],
    );
    // The others claim the rest of the batch, but their scans of this tenant wait for the
    // tenant's quota row, which the victim's scan inserts hold until its transaction ends.
    await Promise.all([startScheduler({}), startScheduler({})]);
    await kill(victim);
    await waitForRuns(tenantId, SCHEDULES, Date.now() + 60_000);
    await expectEachOccurrenceOnce(tenantId);
    // The scans the killed claim had stored never appear; its reservations went with them.
    expect(await db.selectFrom('scans').select('id').where('id', 'in', written).execute()).toEqual(
      [],
    );
  }, 90_000);
});
