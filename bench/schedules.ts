/**
 * Issue 24: 10,000 due schedules (100 tenants × 100, one target each) and three scheduler
 * processes (test/support/scheduler-process.ts: the production scheduler with a fixed clock) on
 * one PostgreSQL. The processes start first with nothing due; then one statement makes every
 * schedule due and the clock starts. Reports the time until every occurrence has its run record,
 * the share each process claimed, and checks that no occurrence created its scans twice.
 *
 * The floor it is compared with (benchCreateScanFloor): the same 10,000 scans (same tenants,
 * engine and targets) created by createScan, the use case of POST /api/v1/scans and of the
 * scheduler, in this one process with no schedule at all, 50 at a time (a claim's size), tenants
 * mixed as in a claim: once with each 50 in one transaction, as a claim commits them (the floor
 * proper: what the scheduler adds on top is the claim, the reservation, the run record and the
 * next run time of each occurrence), and once committing each scan by itself, as 10,000 calls of
 * POST /api/v1/scans would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createAssetStore } from '../src/adapters/db/assets.repository.js';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { createScanStore } from '../src/adapters/db/scans.repository.js';
import { createTemplateStore } from '../src/adapters/db/templates.repository.js';
import { transactionHandle } from '../src/adapters/queue/claim-schedules.js';
import { loadConfig } from '../src/config/load-config.js';
import { ENGINE_NAMES } from '../src/engines/engine.js';
import { sentinelLifecycle } from '../src/main/workers.js';
import { NO_METRICS } from '../src/use-cases/ports/metrics.js';
import { NO_TRACING } from '../src/use-cases/ports/tracing.js';
import { type CreateScanDeps, createScan } from '../src/use-cases/scans/create-scan.js';
import { testSecretBox } from '../test/support/secrets.js';
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
  /** The same scans through createScan in one process, no schedules, 50 per transaction. */
  readonly floorSeconds: number;
  /** The same again, each scan committed by itself (as POST /api/v1/scans). */
  readonly autocommitSeconds: number;
}

/** The bench's tenants (quota large enough) in a migrated schema. */
async function seedTenants(client: pg.Client): Promise<string[]> {
  const tenants = Array.from({ length: TENANTS }, () => randomUUID());
  await client.query(
    `insert into tenants (id, status, monthly_scan_quota)
     select unnest($1::uuid[]), 'active', 1000000`,
    [tenants],
  );
  return tenants;
}

/** The n-th target of a tenant, as the schedules below name it. */
const targetOf = (n: number) => `203.0.${Math.floor(n / 250)}.${(n % 250) + 1}`;

/**
 * The floor: `tenants` × `perTenant` scans created by createScan in this process (the deps the
 * scheduler gives it: every engine runnable, names admitted, this PostgreSQL), 50 at a time,
 * each round taking one scan of 50 different tenants, in one transaction per round
 * (`inTransactions`, as a claim) or each committed alone. Resolves to the seconds it took.
 */
export async function benchCreateScanFloor(
  inTransactions: boolean,
  tenantCount = TENANTS,
  perTenant = PER_TENANT,
): Promise<number> {
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema, poolSize: 4 });
    await migrate(database.db);
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      await client.query(`set search_path to ${schema}`);
      const tenants = (await seedTenants(client)).slice(0, tenantCount);
      const config = loadConfig({ ...process.env, WORKERS: '1', LOG_LEVEL: 'warn' });
      const runnable = new Map(ENGINE_NAMES.map((name) => [name, { sandboxed: false }]));
      const deps: CreateScanDeps = {
        scans: createScanStore(database),
        templates: createTemplateStore(database.db),
        assets: createAssetStore(database.db),
        childScans: sentinelLifecycle(database),
        workers: { runnableEngines: async () => runnable },
        resolver: { check: async () => ({ ok: true, addresses: ['203.0.113.7'] }) },
        urls: { check: async () => ({ ok: true }) },
        ids: { uuid: randomUUID },
        randomBytes: (size: number) => Buffer.alloc(size, 7),
        allowPrivateTargets: config.allowPrivateTargets,
        requireVerifiedTargets: 'off',
        secrets: testSecretBox(),
        clock: { now: () => new Date(NOW) },
        metrics: NO_METRICS,
        tracing: NO_TRACING,
      };
      const requests = Array.from({ length: perTenant }, (_, n) =>
        tenants.map((tenantId) => ({ tenantId, target: targetOf(n) })),
      ).flat();
      const started = performance.now();
      const round = (roundDeps: CreateScanDeps, at: number) =>
        Promise.all(
          requests
            .slice(at, at + 50)
            .map(({ tenantId, target }) =>
              createScan(
                roundDeps,
                { tenantId, apiKeyId: null, allowedScanTypes: null },
                { scanType: 'nmap', target },
              ),
            ),
        );
      for (let at = 0; at < requests.length; at += 50) {
        if (inTransactions) {
          await database.db.transaction().execute(async (trx) => {
            await round(
              {
                ...deps,
                scans: createScanStore(transactionHandle(trx, database.kind)),
                templates: createTemplateStore(trx),
                assets: createAssetStore(trx),
              },
              at,
            );
          });
        } else {
          await round(deps, at);
        }
      }
      const seconds = (performance.now() - started) / 1000;
      const stored = (await client.query('select count(*)::int as n from scans')).rows[0].n;
      if (stored !== requests.length) {
        throw new Error(`the floor stored ${stored} scans, not ${requests.length}`);
      }
      return seconds;
    } finally {
      await client.end();
      await database.close();
    }
  });
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
  const floorSeconds = await benchCreateScanFloor(true);
  const autocommitSeconds = await benchCreateScanFloor(false);
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema, poolSize: 2 });
    await migrate(database.db);
    await database.db.destroy();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`set search_path to ${schema}`);
    const tenants = await seedTenants(client);
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
      return { schedules: total, seconds, scans, duplicates, floorSeconds, autocommitSeconds };
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
  console.log(
    `  floor: the same ${result.schedules} scans through createScan in one process, no schedules, 50 per transaction: ${result.floorSeconds.toFixed(2)} s (${Math.round(result.schedules / result.floorSeconds)} scans/s); the scheduler takes ${(result.seconds / result.floorSeconds).toFixed(2)}× the floor`,
  );
  console.log(
    `  each scan committed alone (as POST /api/v1/scans): ${result.autocommitSeconds.toFixed(2)} s (${Math.round(result.schedules / result.autocommitSeconds)} scans/s)`,
  );
}

if (process.argv[1]?.endsWith('bench/schedules.ts')) {
  reportSchedules(await benchSchedules());
}
