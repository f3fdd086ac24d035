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
import { signToken } from '../src/adapters/auth-tokens/jwt.js';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { createSecretBox } from '../src/adapters/secrets/secret-box.js';
import { loadConfig } from '../src/config/load-config.js';
import type { DraftFinding } from '../src/domain/findings/finding.js';
import { composeApp } from '../src/main/compose.js';
import { sentinelLifecycle } from '../src/main/workers.js';
import type { EngineRunner } from '../src/use-cases/ports/engine-runs.js';
import { startScanWorker } from '../src/workers/scan-worker.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const DISPATCH_SCANS = Number(process.env.BENCH_DISPATCH_SCANS ?? 500);
const CLAIM_SCANS = Number(process.env.BENCH_CLAIM_SCANS ?? 20_000);
const CLAIM_WORKERS = 8;
const FINDING_SCANS = Number(process.env.BENCH_FINDING_SCANS ?? 2_000);
const FINDINGS_PER_SCAN = 30;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

async function withSchema<T>(work: (schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    return await work(schema);
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

export async function benchDispatch(): Promise<{ p50: number; p99: number; scans: number }> {
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema });
    await migrate(database.db);
    let started: (at: number) => void = () => {};
    const instant: EngineRunner = {
      async run() {
        started(performance.now());
        return { findings: [], warnings: [], ending: 'completed', message: null };
      },
    };
    const config = loadConfig({
      JWT_SECRET: SECRET,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'silent',
      WORKERS: '1',
      WORKER_CONCURRENCY: '2',
    });
    const composed = await composeApp(config, {
      database,
      engineRunners: new Map([['nmap', instant]]),
    });
    await composed.app.listen({ host: '127.0.0.1', port: 0 });
    const address = composed.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const base = `http://127.0.0.1:${port}`;
    const tenantId = randomUUID();
    const token = await signToken(SECRET, { subject: 'bench', tenantId }, 3600);
    const keyResponse = await fetch(`${base}/api/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', rateLimitPerMinute: 1000, rateLimitPerHour: 50000 }),
    });
    const key = ((await keyResponse.json()) as { data: { rawKey: string } }).data.rawKey;
    const latencies: number[] = [];
    try {
      for (let i = 0; i < DISPATCH_SCANS + 20; i += 1) {
        const running = new Promise<number>((resolve) => {
          started = resolve;
        });
        const response = await fetch(`${base}/api/v1/scans`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ target: '203.0.113.10', scanType: 'nmap' }),
        });
        await response.arrayBuffer();
        const answered = performance.now();
        if (response.status !== 201) {
          throw new Error(`POST /api/v1/scans answered ${response.status}`);
        }
        const runningAt = await running;
        // The first 20 warm the connections and the JIT.
        if (i >= 20) {
          // The worker may claim before the client has read the answer: that is 0 ms.
          latencies.push(Math.max(0, runningAt - answered));
        }
        // Let the run finish so that the worker is idle again.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    } finally {
      await composed.close();
      await database.close();
    }
    return {
      p50: Number(quantile(latencies, 0.5).toFixed(2)),
      p99: Number(quantile(latencies, 0.99).toFixed(2)),
      scans: latencies.length,
    };
  });
}

async function seedScans(database: ReturnType<typeof connectPostgres>, count: number) {
  const tenantId = randomUUID();
  // One tenant whose cap on running scans (fair claims) is above the 8 workers' slots: this
  // measures the claim, not the cap.
  await sql`insert into tenants (id, monthly_scan_quota, max_running_scans)
    values (${tenantId}, 1000000, 10000)`.execute(database.db);
  await sql`
    insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
                       priority_rank, status, options, timeout_seconds)
    select gen_random_uuid(), ${tenantId}, 'nmap', 'bench', '203.0.113.10', 'ip', 'normal', 2,
           'queued', '{}'::jsonb, 60
    from generate_series(1, ${count})`.execute(database.db);
  // A live queue has table statistics (autovacuum analyzes it); a bulk-seeded one must be told.
  await sql`analyze scans`.execute(database.db);
}

export function benchClaims(): Promise<{ scansPerSecond: number; scans: number }> {
  return benchWorkers(CLAIM_SCANS, []);
}

/** 30 open ports of one host, as an nmap run would report them. */
const PORT_FINDINGS: readonly DraftFinding[] = Array.from(
  { length: FINDINGS_PER_SCAN },
  (_, i) => ({
    ruleId: 'open-port',
    title: `Open port ${8000 + i}/tcp (http)`,
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    location: { host: '203.0.113.10', port: 8000 + i, protocol: 'tcp', url: null },
    identifiers: { cve: [], cwe: [] },
    description: 'nginx 1.22.1',
    evidence: null,
    remediation: null,
    references: [],
    raw: { portid: String(8000 + i) },
  }),
);

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
