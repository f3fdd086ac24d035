/**
 * Webhook fan-out (issue 4): 1,000 scan events to 10 webhooks of one tenant (10,000 deliveries) on
 * PostgreSQL, sent by one dispatcher to a local HTTPS receiver (a separate process). Reports
 * deliveries/s from the first event to the last receipt and the p50/p99 time from each event to its
 * receipt. Target: at least 500 deliveries/s on this 2-core machine.
 * Run alone: `npx tsx bench/webhooks.ts`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { createWebhookClient } from '../src/adapters/webhook-client/send-webhook.js';
import { startWebhookDispatcher } from '../src/workers/webhook-dispatcher.js';
import { readTestTls } from '../test/support/tls.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
const WEBHOOKS = 10;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

/** The receiver runs in its own process and prints one line per request: receipt time and event time. */
const RECEIVER = `
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
const [cert, key] = process.argv.slice(1);
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString());
    process.stdout.write(Date.now() + ' ' + Date.parse(body.timestamp) + '\\n');
    res.writeHead(200, { 'content-length': '0' }).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

function startReceiver(): Promise<{
  child: ChildProcess;
  port: number;
  receipts: Array<[number, number]>;
}> {
  const tlsDir = new URL('../test/fixtures/tls/', import.meta.url).pathname;
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', RECEIVER, `${tlsDir}server.pem`, `${tlsDir}server-key.pem`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const receipts: Array<[number, number]> = [];
  return new Promise((resolve) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('port ')) {
          resolve({ child, port: Number(line.slice(5)), receipts });
        } else if (line !== '') {
          const [at, event] = line.split(' ').map(Number);
          receipts.push([at ?? 0, event ?? 0]);
        }
      }
    });
  });
}

export async function benchWebhooks(): Promise<{
  deliveries: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
}> {
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const receiver = await startReceiver();
  const database = connectPostgres(DATABASE_URL, { schema });
  const client = createWebhookClient({
    timeoutMs: 30_000,
    allowPrivate: true,
    ca: readTestTls().ca,
  });
  try {
    await migrate(database.db);
    const tenantId = randomUUID();
    await sql`insert into tenants (id, monthly_scan_quota) values (${tenantId}, 1000)`.execute(
      database.db,
    );
    for (let i = 0; i < WEBHOOKS; i += 1) {
      await sql`insert into webhooks (id, tenant_id, name, url, secret, events)
        values (gen_random_uuid(), ${tenantId}, ${`hook-${i}`}, ${`https://127.0.0.1:${receiver.port}/hook/${i}`},
                'whsec_bench', '{scan.completed}')`.execute(database.db);
    }
    const start = performance.now();
    const startedAt = Date.now();
    // 1,000 events as the scans' finishing statements write them (the payload of the specification).
    await sql`insert into scan_events (id, tenant_id, scan_id, event, payload, created_at)
      select gen_random_uuid(), ${tenantId}, gen_random_uuid(), 'scan.completed',
        json_build_object('event', 'scan.completed',
          'timestamp', to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'tenantId', ${tenantId}::uuid, 'data', json_build_object('scanId', gen_random_uuid(),
          'scanType', 'nmap', 'name', 'bench', 'target', '203.0.113.10', 'status', 'completed',
          'progress', 100, 'resultCount', 0, 'durationMs', 1000, 'createdAt', '2026-01-01T00:00:00.000Z',
          'completedAt', '2026-01-01T00:00:01.000Z')), now()
      from generate_series(1, ${EVENTS})`.execute(database.db);
    const dispatcher = startWebhookDispatcher({
      database,
      sender: client,
      retryDelaysMs: [0, 60_000, 120_000, 240_000],
      timeoutMs: 30_000,
      logger: pino({ level: 'silent' }),
    });
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
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchWebhooks());
}
