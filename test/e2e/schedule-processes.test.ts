/**
 * Three scheduler processes on one PostgreSQL, one killed with SIGKILL in the middle of a claim
 * (its transaction has locked a batch of due schedules and inserted scans for one of them): every
 * occurrence still creates its scans exactly once. PostgreSQL only (PGlite is one process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND, TEST_DATABASE_URL } from '../support/database.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';

const T0 = new Date('2026-05-04T10:00:00Z');
const DUE = '2026-05-04T10:01:05Z';
const SCHEDULES = 60;
const ctx = useTestApp({}, { clock: { now: () => T0 } });
const processes: ChildProcess[] = [];

/** Starts test/support/scheduler-process.ts; resolves once it printed `until`. */
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
      if (out.includes(until)) {
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
  let tenantId = '';
  beforeAll(async () => {
    tenantId = randomUUID();
    const key = (await createKey(ctx.app, await tokenFor(tenantId))).rawKey;
    for (let index = 0; index < SCHEDULES; index += 1) {
      const response = await ctx.app.request('/api/v1/schedules', {
        method: 'POST',
        headers: { 'x-api-key': key },
        json: {
          name: `s${index}`,
          scan: { scanType: 'nmap' },
          targets: [`a${index}.example.com`, `b${index}.example.com`],
          intervalSeconds: 60,
        },
      });
      expect(response.status, response.text).toBe(201);
    }
  });

  it('creates each occurrence once although one process dies mid-claim', async () => {
    const db = ctx.database.handle.db;
    // The victim claims the first batch, stores the scans of its first schedule, then hangs on
    // the next target check with the batch locked and nothing committed.
    const victim = await startScheduler({ RAMPART_TEST_HANG_AT: '3' }, 'holding');
    await Promise.all([startScheduler({}), startScheduler({})]);
    const runs = async () =>
      Number(
        (await sql<{ n: string }>`select count(*) as n from schedule_runs`.execute(db)).rows[0]?.n,
      );
    // The others take what the victim does not hold, and skip what it does.
    const deadline = Date.now() + 30_000;
    while ((await runs()) < SCHEDULES - 50 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await runs()).toBe(SCHEDULES - 50);
    const killed = new Promise((resolve) => victim.once('exit', resolve));
    victim.kill('SIGKILL');
    await killed;
    // Its transaction is rolled back when its connection drops; the others claim the batch.
    while ((await runs()) < SCHEDULES && Date.now() < deadline + 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const recorded = await db.selectFrom('schedule_runs').selectAll().execute();
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
    const next = await db.selectFrom('schedules').select('next_run_at').execute();
    expect(new Set(next.map((row) => row.next_run_at?.toISOString()))).toEqual(
      new Set(['2026-05-04T10:02:00.000Z']),
    );
  }, 90_000);
});
