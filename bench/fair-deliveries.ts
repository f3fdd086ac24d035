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
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { connectPostgres, type DatabaseHandle } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { createWebhookClient } from '../src/adapters/webhook-client/send-webhook.js';
import { startWebhookDispatcher } from '../src/workers/webhook-dispatcher.js';
import { readTestTls } from '../test/support/tls.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const B_EVENTS = Number(process.env.BENCH_FAIR_EVENTS ?? 200);
const B_EVERY_MS = 50;
const A_WEBHOOKS = 25;
const A_EVENTS_BEFORE = 200;
const A_EVENTS_EACH = Number(process.env.BENCH_FAIR_FLOOD_EACH ?? 5);

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

/**
 * Answers `/live/...` at once and prints receipt time and event time; reads `/dead/...` and never
 * answers (the connection stays open until the client gives up).
 */
const RECEIVER = `
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
const [cert, key] = process.argv.slice(1);
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url.startsWith('/dead')) {
      process.stdout.write('dead\\n');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString());
    process.stdout.write(Date.now() + ' ' + Date.parse(body.timestamp) + '\\n');
    res.writeHead(200, { 'content-length': '0' }).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

interface Receiver {
  child: ChildProcess;
  port: number;
  /** [receipt ms, event ms] per answered request. */
  receipts: Array<[number, number]>;
  dead: { count: number };
}

function startReceiver(): Promise<Receiver> {
  const tlsDir = new URL('../test/fixtures/tls/', import.meta.url).pathname;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', RECEIVER, `${tlsDir}server.pem`, `${tlsDir}server-key.pem`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const receipts: Array<[number, number]> = [];
  const dead = { count: 0 };
  return new Promise((resolve) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('port ')) {
          resolve({ child, port: Number(line.slice(5)), receipts, dead });
        } else if (line === 'dead') {
          dead.count += 1;
        } else if (line !== '') {
          const [at, event] = line.split(' ').map(Number);
          receipts.push([at ?? 0, event ?? 0]);
        }
      }
    });
  });
}

/** `n` scan.completed events of a tenant, as a scan's finishing statement writes them. */
function insertEvents(database: DatabaseHandle, tenantId: string, n: number) {
  return sql`insert into scan_events (id, tenant_id, scan_id, event, payload, created_at)
    select gen_random_uuid(), ${tenantId}, gen_random_uuid(), 'scan.completed',
      json_build_object('event', 'scan.completed',
        'timestamp', to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'tenantId', ${tenantId}::uuid, 'data', json_build_object('scanId', gen_random_uuid(),
        'scanType', 'nmap', 'name', 'bench', 'target', '203.0.113.10', 'status', 'completed',
        'progress', 100, 'resultCount', 0, 'durationMs', 1000, 'createdAt', '2026-01-01T00:00:00.000Z',
        'completedAt', '2026-01-01T00:00:01.000Z')), now()
    from generate_series(1, ${n})`.execute(database.db);
}

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

async function run(flood: boolean): Promise<FairDeliveryFigures> {
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const receiver = await startReceiver();
  const databases = [
    connectPostgres(DATABASE_URL, { schema }),
    connectPostgres(DATABASE_URL, { schema }),
  ];
  const [first] = databases;
  if (first === undefined) {
    throw new Error('no database');
  }
  const client = createWebhookClient({
    timeoutMs: 30_000,
    allowPrivate: true,
    ca: readTestTls().ca,
  });
  const dispatchers: Array<ReturnType<typeof startWebhookDispatcher>> = [];
  try {
    await migrate(first.db);
    const a = randomUUID();
    const b = randomUUID();
    await sql`insert into tenants (id, monthly_scan_quota) values (${a}, 1000), (${b}, 1000)`.execute(
      first.db,
    );
    const hook = (tenant: string, path: string) =>
      sql`insert into webhooks (id, tenant_id, name, url, secret, events)
        values (gen_random_uuid(), ${tenant}, 'bench', ${`https://127.0.0.1:${receiver.port}${path}`},
                'whsec_bench', '{scan.completed}')`.execute(first.db);
    await hook(b, '/live');
    if (flood) {
      for (let i = 0; i < A_WEBHOOKS; i += 1) {
        await hook(a, `/dead/${i}`);
      }
      await insertEvents(first, a, A_EVENTS_BEFORE);
    }
    for (const database of databases) {
      dispatchers.push(
        startWebhookDispatcher({
          database,
          sender: client,
          retryDelaysMs: [0, 60_000, 120_000, 240_000],
          timeoutMs: 30_000,
          logger: pino({ level: 'silent' }),
        }),
      );
    }
    const started = Date.now();
    for (let i = 0; i < B_EVENTS; i += 1) {
      const at = started + i * B_EVERY_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
      if (flood) {
        await insertEvents(first, a, A_EVENTS_EACH);
      }
      await insertEvents(first, b, 1);
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
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
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
