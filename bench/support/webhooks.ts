/**
 * Webhook delivery in the benches: an HTTPS receiver in a process of its own (the test CA's
 * server certificate), scan events as a scan's finishing statement writes them, webhooks, and a
 * dispatcher with the service's defaults.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { sql } from 'kysely';
import pino from 'pino';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import {
  createWebhookClient,
  type WebhookClient,
} from '../../src/adapters/webhook-client/send-webhook.js';
import { NO_METRICS } from '../../src/use-cases/ports/metrics.js';
import { startWebhookDispatcher } from '../../src/workers/webhook-dispatcher.js';
import { readTestTls } from '../../test/support/tls.js';

/** WEBHOOK_TIMEOUT_MS's default. */
const TIMEOUT_MS = 30_000;

/**
 * Answers `/dead/...` never: reads the request and keeps the connection open until the client
 * gives up. Answers any other path at once and prints receipt time and event time.
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

export interface Receiver {
  readonly child: ChildProcess;
  readonly port: number;
  /** [receipt ms, event ms] per answered request. */
  readonly receipts: Array<[number, number]>;
  /** Requests to `/dead/...` so far. */
  readonly dead: { count: number };
}

export function startReceiver(): Promise<Receiver> {
  const tlsDir = new URL('../../test/fixtures/tls/', import.meta.url).pathname;
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

/** A webhook of `tenantId` for scan.completed at `url`. */
export function insertWebhook(
  database: DatabaseHandle,
  tenantId: string,
  name: string,
  url: string,
) {
  return sql`insert into webhooks (id, tenant_id, name, url, secret, events)
    values (gen_random_uuid(), ${tenantId}, ${name}, ${url}, 'whsec_bench', '{scan.completed}')`.execute(
    database.db,
  );
}

/** `n` scan.completed events of a tenant, as a scan's finishing statement writes them. */
export function insertScanEvents(database: DatabaseHandle, tenantId: string, n: number) {
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

/** A webhook client that trusts the test CA and may send to 127.0.0.1. */
export function createBenchWebhookClient(): WebhookClient {
  return createWebhookClient({ timeoutMs: TIMEOUT_MS, allowPrivate: true, ca: readTestTls().ca });
}

/** A dispatcher on `database`, sending with `sender`: the service's retry delays and timeout. */
export function startBenchDispatcher(database: DatabaseHandle, sender: WebhookClient) {
  return startWebhookDispatcher({
    database,
    sender,
    retryDelaysMs: [0, 60_000, 120_000, 240_000],
    timeoutMs: TIMEOUT_MS,
    logger: pino({ level: 'silent' }),
    metrics: NO_METRICS,
  });
}
