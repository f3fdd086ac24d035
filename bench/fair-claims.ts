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
import { sql } from 'kysely';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import type { EngineRunner } from '../src/use-cases/ports/engine-runs.js';
import { DATABASE_URL, withSchema } from './support/database.js';
import type { LatencyFigures as ScanLatencies } from './support/latency.js';
import {
  createBenchKey,
  createToRunning,
  seedQueuedScans,
  startBenchApp,
} from './support/scans.js';

const FLOOD_SCANS = 1_000;
const FLOOD_RUN_MS = 50;
const MEASURED_SCANS = Number(process.env.BENCH_FAIR_SCANS ?? 200);

export interface LatencyFigures extends ScanLatencies {
  /** Scans of the flooding tenant still queued when the measurement ended (0 without a flood). */
  readonly floodLeft: number;
}

/** B's 201 → running latency, with or without A's flood, in a schema of its own. */
function measure(flood: boolean): Promise<LatencyFigures> {
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema, poolSize: 10 });
    try {
      await migrate(database.db);
      const flooder = randomUUID();
      const clock = createToRunning();
      const engine: EngineRunner = {
        async run(request) {
          if (request.scan.tenantId === flooder) {
            await new Promise((resolve) => setTimeout(resolve, FLOOD_RUN_MS));
          } else {
            clock.started();
          }
          return { findings: [], warnings: [], ending: 'completed', message: null };
        },
      };
      if (flood) {
        await sql`insert into tenants (id, monthly_scan_quota) values (${flooder}, 1000000)`.execute(
          database.db,
        );
        await seedQueuedScans(database, flooder, FLOOD_SCANS, {
          name: 'flood',
          priority: 'critical',
          timeoutSeconds: 86400,
        });
      }
      const app = await startBenchApp(database, engine, {
        WORKERS: '2',
        WORKER_CONCURRENCY: '4',
        WORKER_SHUTDOWN_GRACE_MS: '100',
      });
      try {
        const key = await createBenchKey(app.base);
        // B's scans complete at once: after each, B holds no slot when its next scan comes.
        const latencies = await clock.measure(
          app.base,
          key,
          { target: '203.0.113.10', scanType: 'nmap', priority: 'normal' },
          MEASURED_SCANS,
        );
        const left = await sql<{ n: number }>`
          select count(*)::int as n from scans where tenant_id = ${flooder} and status = 'queued'`.execute(
          database.db,
        );
        return { ...latencies, floodLeft: left.rows[0]?.n ?? 0 };
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  });
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
