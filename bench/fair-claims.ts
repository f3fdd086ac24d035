/**
 * Fair claims, scan half of bench (a) of issue 20, on PostgreSQL: tenant B's time from the 201
 * answer of POST /api/v1/scans to its scan being `running` (the test engine is called right after
 * the claim commits), p50 and p99 over 200 scans created one after another, with tenant A flooding
 * the queue (1,000 queued `critical` scans, each run holding its slot for 50 ms) next to the same
 * without the flood. B's scans are `normal` and complete at once. Two workers of four slots
 * each, TENANT_MAX_RUNNING_SCANS at its default (4). Target: B's p99 under the flood within 2x
 * the unloaded p99. Run alone: `npx tsx bench/fair-claims.ts`.
 *
 * The engine is a test double registered here only; the service never registers it.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { signToken } from '../src/adapters/auth-tokens/jwt.js';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { loadConfig } from '../src/config/load-config.js';
import { composeApp } from '../src/main/compose.js';
import type { EngineRunner } from '../src/use-cases/ports/engine-runs.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const FLOOD_SCANS = 1_000;
const FLOOD_RUN_MS = 50;
const MEASURED_SCANS = Number(process.env.BENCH_FAIR_SCANS ?? 200);
const WARM_UP = 20;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

export interface LatencyFigures {
  readonly p50: number;
  readonly p99: number;
  readonly scans: number;
  /** Scans of the flooding tenant still queued when the measurement ended (0 without a flood). */
  readonly floodLeft: number;
}

/** B's 201 → running latency, with or without A's flood, in a schema of its own. */
async function measure(flood: boolean): Promise<LatencyFigures> {
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const database = connectPostgres(DATABASE_URL, { schema, poolSize: 10 });
  try {
    await migrate(database.db);
    const flooder = randomUUID();
    let started: (at: number) => void = () => {};
    const engine: EngineRunner = {
      async run(request) {
        if (request.scan.tenantId === flooder) {
          await new Promise((resolve) => setTimeout(resolve, FLOOD_RUN_MS));
        } else {
          started(performance.now());
        }
        return { findings: [], warnings: [], ending: 'completed', message: null };
      },
    };
    const config = loadConfig({
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'silent',
      WORKERS: '2',
      WORKER_CONCURRENCY: '4',
      WORKER_SHUTDOWN_GRACE_MS: '100',
    });
    if (flood) {
      await sql`insert into tenants (id, monthly_scan_quota) values (${flooder}, 1000000)`.execute(
        database.db,
      );
      await sql`
        insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
                           priority_rank, status, options, timeout_seconds)
        select gen_random_uuid(), ${flooder}, 'nmap', 'flood', '203.0.113.10', 'ip', 'critical',
               0, 'queued', '{}'::jsonb, 86400
        from generate_series(1, ${FLOOD_SCANS})`.execute(database.db);
      await sql`analyze scans`.execute(database.db);
    }
    const composed = await composeApp(config, {
      database,
      engineRunners: new Map([['nmap', engine]]),
    });
    await composed.app.listen({ host: '127.0.0.1', port: 0 });
    const address = composed.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const base = `http://127.0.0.1:${port}`;
    const token = await signToken(SECRET, { subject: 'bench', tenantId: randomUUID() }, 3600);
    const keyResponse = await fetch(`${base}/api/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', rateLimitPerMinute: 1000, rateLimitPerHour: 50000 }),
    });
    const key = ((await keyResponse.json()) as { data: { rawKey: string } }).data.rawKey;
    const latencies: number[] = [];
    let floodLeft = 0;
    try {
      for (let i = 0; i < MEASURED_SCANS + WARM_UP; i += 1) {
        const running = new Promise<number>((resolve) => {
          started = resolve;
        });
        const response = await fetch(`${base}/api/v1/scans`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ target: '203.0.113.10', scanType: 'nmap', priority: 'normal' }),
        });
        await response.arrayBuffer();
        const answered = performance.now();
        if (response.status !== 201) {
          throw new Error(`POST /api/v1/scans answered ${response.status}`);
        }
        const runningAt = await running;
        if (i >= WARM_UP) {
          // The worker may claim before the client has read the answer: that is 0 ms.
          latencies.push(Math.max(0, runningAt - answered));
        }
        // Let the run finish so that B holds no slot when its next scan comes.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      const left = await sql<{ n: number }>`
        select count(*)::int as n from scans where tenant_id = ${flooder} and status = 'queued'`.execute(
        database.db,
      );
      floodLeft = left.rows[0]?.n ?? 0;
    } finally {
      await composed.close();
    }
    return {
      p50: Number(quantile(latencies, 0.5).toFixed(2)),
      p99: Number(quantile(latencies, 0.99).toFixed(2)),
      scans: latencies.length,
      floodLeft,
    };
  } finally {
    await database.close();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

export async function benchFairClaims(): Promise<{
  readonly unloaded: LatencyFigures;
  readonly flooded: LatencyFigures;
  readonly ratio: number;
}> {
  const unloaded = await measure(false);
  const flooded = await measure(true);
  return { unloaded, flooded, ratio: Number((flooded.p99 / unloaded.p99).toFixed(2)) };
}

export function describeFairClaims(result: Awaited<ReturnType<typeof benchFairClaims>>): string {
  const { unloaded, flooded, ratio } = result;
  return [
    `  B alone:                 201 → running p50 ${unloaded.p50} ms, p99 ${unloaded.p99} ms`,
    `  B with A's flood:        201 → running p50 ${flooded.p50} ms, p99 ${flooded.p99} ms (A's scans still queued at the end: ${flooded.floodLeft})`,
    `  p99 ratio ${ratio}× (target <= 2): ${ratio <= 2 ? 'met' : 'NOT met'}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log('fair claims: tenant B while tenant A floods the queue (1,000 critical scans)…');
  console.log(describeFairClaims(await benchFairClaims()));
}
