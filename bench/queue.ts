/**
 * Queue benchmarks on PostgreSQL (run by bench/run.ts, or alone: `npx tsx bench/queue.ts`):
 *
 * (b) dispatch latency: with an idle worker, the time from the 201 answer of POST /api/v1/scans
 *     to the scan being `running` (the instant test engine is called right after the claim
 *     commits), over 500 scans created one after another. Targets p50 < 4 ms, p99 < 15 ms.
 * (c) claim throughput: 20,000 queued scans, 8 concurrent workers running the instant engine,
 *     scans/s from start to the last completion; next to graphile-worker (dev dependency of the
 *     benchmark only) running 20,000 no-op jobs with concurrency 8 on the same database.
 *     Target: ≥ 1.0× graphile-worker.
 *
 * (d) finishes with findings: 2,000 queued scans whose run returns 30 findings at once, 8 workers:
 *     scans/s from start to the last completion. Every finish stores its findings, so this is the
 *     finish path real scans take (the fast path of (c) serves only scans without findings).
 *
 * The instant test engine is registered here only; the service never registers it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Logger, run as runGraphile } from 'graphile-worker';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { createSecretBox } from '../src/adapters/secrets/secret-box.js';
import type { DraftFinding } from '../src/domain/findings/finding.js';
import { sentinelLifecycle } from '../src/main/workers.js';
import type { EngineRunner } from '../src/use-cases/ports/engine-runs.js';
import { NO_METRICS } from '../src/use-cases/ports/metrics.js';
import { startScanWorker } from '../src/workers/scan-worker.js';
import { DATABASE_URL, withSchema } from './support/database.js';
import type { LatencyFigures } from './support/latency.js';
import {
  createBenchKey,
  createToRunning,
  openPortFindings,
  seedQueuedScans,
  startBenchApp,
} from './support/scans.js';

const DISPATCH_SCANS = Number(process.env.BENCH_DISPATCH_SCANS ?? 500);
const CLAIM_SCANS = Number(process.env.BENCH_CLAIM_SCANS ?? 20_000);
const CLAIM_WORKERS = 8;
const FINDING_SCANS = Number(process.env.BENCH_FINDING_SCANS ?? 2_000);
const FINDINGS_PER_SCAN = 30;

export async function benchDispatch(): Promise<LatencyFigures> {
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema });
    await migrate(database.db);
    const clock = createToRunning();
    const instant: EngineRunner = {
      async run() {
        clock.started();
        return { findings: [], warnings: [], ending: 'completed', message: null };
      },
    };
    const app = await startBenchApp(database, instant, {
      SECRETS_KEY: randomBytes(32).toString('base64'),
      WORKERS: '1',
      WORKER_CONCURRENCY: '2',
    });
    try {
      // After each scan the worker is idle again.
      return await clock.measure(
        app.base,
        await createBenchKey(app.base),
        { target: '203.0.113.10', scanType: 'nmap' },
        DISPATCH_SCANS,
      );
    } finally {
      await app.close();
      await database.close();
    }
  });
}

async function seedScans(database: ReturnType<typeof connectPostgres>, count: number) {
  const tenantId = randomUUID();
  // One tenant whose cap on running scans (fair claims) is above the 8 workers' slots: this
  // measures the claim, not the cap.
  await sql`insert into tenants (id, monthly_scan_quota, max_running_scans)
    values (${tenantId}, 1000000, 10000)`.execute(database.db);
  await seedQueuedScans(database, tenantId, count, {
    name: 'bench',
    priority: 'normal',
    timeoutSeconds: 60,
  });
}

export function benchClaims(): Promise<{ scansPerSecond: number; scans: number }> {
  return benchWorkers(CLAIM_SCANS, []);
}

/** Open ports of one host, as an nmap run reports them. */
const PORT_FINDINGS = openPortFindings(FINDINGS_PER_SCAN);

export function benchFindingScans(): Promise<{ scansPerSecond: number; scans: number }> {
  return benchWorkers(FINDING_SCANS, PORT_FINDINGS);
}

/** `count` queued scans run by 8 workers whose engine returns `findings` at once: scans/s. */
async function benchWorkers(
  count: number,
  findings: readonly DraftFinding[],
): Promise<{ scansPerSecond: number; scans: number }> {
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema, poolSize: CLAIM_WORKERS + 2 });
    await migrate(database.db);
    await seedScans(database, count);
    let done = 0;
    let finished: () => void = () => {};
    const allDone = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const counting: EngineRunner = {
      async run() {
        done += 1;
        if (done === count) {
          finished();
        }
        return { findings, warnings: [], ending: 'completed', message: null };
      },
    };
    const logger = pino({ level: 'silent' });
    const start = performance.now();
    const workers = await Promise.all(
      Array.from({ length: CLAIM_WORKERS }, (_, index) =>
        startScanWorker({
          id: `bench-${index}`,
          database,
          runners: new Map([['nmap', counting]]),
          resolver: { check: async () => ({ ok: true, addresses: [] }) },
          // Benchmark scans carry no credentials; the key is never used.
          secrets: createSecretBox(randomBytes(32)),
          allowPrivateTargets: true,
          concurrency: 1,
          leaseMs: 60_000,
          pollMs: 1_000,
          logger,
          metrics: NO_METRICS,
          parents: sentinelLifecycle(database),
        }),
      ),
    );
    await allDone;
    // The last finish-scan transactions commit after the engine returns.
    for (;;) {
      const left = await sql<{ n: number }>`
        select count(*)::int as n from scans where status <> 'completed'`.execute(database.db);
      if (left.rows[0]?.n === 0) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const seconds = (performance.now() - start) / 1000;
    await Promise.all(workers.map((worker) => worker.stop(1000)));
    await database.close();
    return { scansPerSecond: Math.round(count / seconds), scans: count };
  });
}

// graphile-worker logs every job at info level; its console output would be what we measure.
const quiet = new Logger(() => () => {});

export async function benchGraphile(): Promise<{ jobsPerSecond: number; jobs: number }> {
  return withSchema(async (schema) => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: CLAIM_WORKERS + 2 });
    pool.on('error', () => {});
    let done = 0;
    let finished: () => void = () => {};
    const allDone = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const runner = await runGraphile({
      pgPool: pool,
      schema: `${schema}_graphile`,
      concurrency: CLAIM_WORKERS,
      noHandleSignals: true,
      pollInterval: 1000,
      logger: quiet,
      taskList: {
        scan: async () => {
          done += 1;
          if (done === CLAIM_SCANS) {
            finished();
          }
        },
      },
    });
    await runner.stop();
    // Seed with the queue stopped, then time a fresh runner on the full queue, as for Rampart.
    await pool.query(
      `select ${schema}_graphile.add_jobs(array(select row('scan', '{}'::json, null, null, null, null, null, null)::${schema}_graphile.job_spec from generate_series(1, $1)))`,
      [CLAIM_SCANS],
    );
    await pool.query(`analyze ${schema}_graphile._private_jobs`);
    const start = performance.now();
    const timed = await runGraphile({
      pgPool: pool,
      schema: `${schema}_graphile`,
      concurrency: CLAIM_WORKERS,
      noHandleSignals: true,
      pollInterval: 1000,
      logger: quiet,
      taskList: {
        scan: async () => {
          done += 1;
          if (done === CLAIM_SCANS) {
            finished();
          }
        },
      },
    });
    await allDone;
    for (;;) {
      const left = await pool.query(
        `select count(*)::int as n from ${schema}_graphile._private_jobs`,
      );
      if (left.rows[0]?.n === 0) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const seconds = (performance.now() - start) / 1000;
    await timed.stop();
    await pool.query(`drop schema if exists ${schema}_graphile cascade`);
    await pool.end();
    return { jobsPerSecond: Math.round(CLAIM_SCANS / seconds), jobs: CLAIM_SCANS };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dispatch = await benchDispatch();
  console.log('dispatch', dispatch);
  const claims = await benchClaims();
  console.log('claims', claims);
  console.log('finishes with findings', await benchFindingScans());
  const graphile = await benchGraphile();
  console.log('graphile-worker', graphile);
  console.log(
    `claim throughput ratio: ${(claims.scansPerSecond / graphile.jobsPerSecond).toFixed(2)}×`,
  );
}
