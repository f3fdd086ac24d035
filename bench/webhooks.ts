/**
 * Webhook fan-out (issue 4): 1,000 scan events to 10 webhooks of one tenant (10,000 deliveries) on
 * PostgreSQL, sent by one dispatcher to a local HTTPS receiver (a separate process). Reports
 * deliveries/s from the first event to the last receipt and the p50/p99 time from each event to its
 * receipt. Target: at least 500 deliveries/s on this 2-core machine.
 * Run alone: `npx tsx bench/webhooks.ts`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
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

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
const WEBHOOKS = 10;

export function benchWebhooks(): Promise<{
  deliveries: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
}> {
  return withSchema(async (schema) => {
    const receiver = await startReceiver();
    const database = connectPostgres(DATABASE_URL, { schema });
    const client = createBenchWebhookClient();
    try {
      await migrate(database.db);
      const tenantId = randomUUID();
      await sql`insert into tenants (id, monthly_scan_quota) values (${tenantId}, 1000)`.execute(
        database.db,
      );
      for (let i = 0; i < WEBHOOKS; i += 1) {
        await insertWebhook(
          database,
          tenantId,
          `hook-${i}`,
          `https://127.0.0.1:${receiver.port}/hook/${i}`,
        );
      }
      const start = performance.now();
      const startedAt = Date.now();
      // 1,000 events as the scans' finishing statements write them (the payload of the specification).
      await insertScanEvents(database, tenantId, EVENTS);
      const dispatcher = startBenchDispatcher(database, client);
      const expected = EVENTS * WEBHOOKS;
      while (receiver.receipts.length < expected) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const seconds = (performance.now() - start) / 1000;
      await dispatcher.stop();
      const latencies = receiver.receipts.map(([at, event]) => at - Math.max(event, startedAt));
      return {
        deliveries: expected,
        deliveriesPerSecond: Math.round(expected / seconds),
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
      };
    } finally {
      receiver.child.kill('SIGTERM');
      await client.close();
      await database.close();
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchWebhooks());
}
