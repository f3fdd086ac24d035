/**
 * Fair deliveries (issue 20, bench (a), delivery half), on PostgreSQL: tenant B's time from event
 * to delivery (p50, p99) alone, and while tenant A floods: A's 25 webhooks point at a receiver
 * that accepts the request and never answers, with 200 events (5,000 deliveries) queued before B's
 * first and 5 more events (125 deliveries) beside each of B's. Two dispatchers on their own pools
 * stand for two processes (API and worker), with the service's defaults: 32 attempts in flight per
 * process, 4 per tenant (WEBHOOK_TENANT_MAX_IN_FLIGHT), WEBHOOK_TIMEOUT_MS 30 s (so A's attempts
 * hang for the whole run). B's events come every 50 ms and wake one dispatcher, as a scan worker
 * wakes its own process's when a scan ends. Target: flooded p99 within 2x the unloaded p99.
 * The receiver (HTTPS, test CA) is a separate process. Run alone: `npx tsx bench/fair-deliveries.ts`.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { DATABASE_URL, withSchema } from './support/database.js';
import { quantile } from './support/latency.js';
import {
  createBenchWebhookClient,
  insertScanEvents,
  insertWebhook,
  startBenchDispatcher,
  startReceiver,
} from './support/webhooks.js';

const B_EVENTS = Number(process.env.BENCH_FAIR_EVENTS ?? 200);
const B_EVERY_MS = 50;
const A_WEBHOOKS = 25;
const A_EVENTS_BEFORE = 200;
const A_EVENTS_EACH = Number(process.env.BENCH_FAIR_FLOOD_EACH ?? 5);

export interface FairDeliveryFigures {
  readonly events: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Requests the dead receiver got (A's attempts started), when flooded. */
  readonly floodAttempts: number;
  /** A's deliveries still waiting at the end, when flooded. */
  readonly floodWaiting: number;
}

function run(flood: boolean): Promise<FairDeliveryFigures> {
  return withSchema(async (schema) => {
    const receiver = await startReceiver();
    const databases = [
      connectPostgres(DATABASE_URL, { schema }),
      connectPostgres(DATABASE_URL, { schema }),
    ];
    const [first] = databases;
    if (first === undefined) {
      throw new Error('no database');
    }
    const client = createBenchWebhookClient();
    const dispatchers: Array<ReturnType<typeof startBenchDispatcher>> = [];
    try {
      await migrate(first.db);
      const a = randomUUID();
      const b = randomUUID();
      await sql`insert into tenants (id, monthly_scan_quota) values (${a}, 1000), (${b}, 1000)`.execute(
        first.db,
      );
      const hook = (tenant: string, path: string) =>
        insertWebhook(first, tenant, 'bench', `https://127.0.0.1:${receiver.port}${path}`);
      await hook(b, '/live');
      if (flood) {
        for (let i = 0; i < A_WEBHOOKS; i += 1) {
          await hook(a, `/dead/${i}`);
        }
        await insertScanEvents(first, a, A_EVENTS_BEFORE);
      }
      for (const database of databases) {
        dispatchers.push(startBenchDispatcher(database, client));
      }
      const started = Date.now();
      for (let i = 0; i < B_EVENTS; i += 1) {
        const at = started + i * B_EVERY_MS;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
        if (flood) {
          await insertScanEvents(first, a, A_EVENTS_EACH);
        }
        await insertScanEvents(first, b, 1);
        dispatchers[0]?.wake();
      }
      const deadline = Date.now() + 60_000;
      while (receiver.receipts.length < B_EVENTS && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const waiting = await sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
        where tenant_id = ${a} and status = 'pending' and attempts = 0`.execute(first.db);
      const latencies = receiver.receipts.map(([received, event]) => received - event);
      return {
        events: latencies.length,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: Math.max(...latencies),
        floodAttempts: receiver.dead.count,
        floodWaiting: waiting.rows[0]?.n ?? 0,
      };
    } finally {
      // The dead receiver goes first: its open connections close and the hanging attempts end.
      receiver.child.kill('SIGTERM');
      await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));
      await client.close();
      await Promise.all(databases.map((database) => database.close()));
    }
  });
}

export async function benchFairDeliveries(): Promise<{
  unloaded: FairDeliveryFigures;
  flooded: FairDeliveryFigures;
  ratio: number;
  met: boolean;
}> {
  const unloaded = await run(false);
  const flooded = await run(true);
  const ratio = flooded.p99 / Math.max(1, unloaded.p99);
  return {
    unloaded,
    flooded,
    ratio: Number(ratio.toFixed(2)),
    met: flooded.events === B_EVENTS && ratio <= 2,
  };
}

export function describeFairDeliveries(result: Awaited<ReturnType<typeof benchFairDeliveries>>) {
  const { unloaded, flooded } = result;
  return [
    `  tenant B event → delivery alone:   p50 ${unloaded.p50} ms, p99 ${unloaded.p99} ms (${unloaded.events} events)`,
    `  with tenant A flooding:            p50 ${flooded.p50} ms, p99 ${flooded.p99} ms, max ${flooded.max} ms (${flooded.events} events; A: ${flooded.floodAttempts} attempts hanging, ${flooded.floodWaiting} deliveries waiting)`,
    `  p99 ratio ${result.ratio}× (target <= 2×): ${result.met ? 'met' : 'NOT met'}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchFairDeliveries();
  console.log(describeFairDeliveries(result));
}
