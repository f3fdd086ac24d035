/**
 * The service in the bench's process (composeApp, with a test engine the service never
 * registers), an API key, queued scans seeded in bulk, and the time from a scan's 201 answer to
 * its run starting.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { signToken } from '../../src/adapters/auth-tokens/jwt.js';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import { type Priority, priorityRank } from '../../src/domain/scans/priority.js';
import { composeApp } from '../../src/main/compose.js';
import type { EngineRunner } from '../../src/use-cases/ports/engine-runs.js';
import { type LatencyFigures, latencyFigures } from './latency.js';

export const SECRET = 'bench-secret-bench-secret-bench-secret-0123';

/** Scans created before the measured ones: they warm the connections and the JIT. */
const WARM_UP = 20;

export interface BenchApp {
  /** http://127.0.0.1:<port> */
  readonly base: string;
  close(): Promise<void>;
}

/**
 * The service on `database`, listening on a free port of 127.0.0.1, its nmap scans run by
 * `engine`; `env` is its configuration besides JWT_SECRET (SECRET) and LOG_LEVEL (silent).
 */
export async function startBenchApp(
  database: DatabaseHandle,
  engine: EngineRunner,
  env: Readonly<Record<string, string>>,
): Promise<BenchApp> {
  const config = loadConfig({ JWT_SECRET: SECRET, LOG_LEVEL: 'silent', ...env });
  const composed = await composeApp(config, {
    database,
    engineRunners: new Map([['nmap', engine]]),
  });
  await composed.app.listen({ host: '127.0.0.1', port: 0 });
  const address = composed.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { base: `http://127.0.0.1:${port}`, close: () => composed.close() };
}

/** A new tenant's API key (1,000 requests a minute, 50,000 an hour), made with a dashboard token. */
export async function createBenchKey(base: string): Promise<string> {
  const token = await signToken(SECRET, { subject: 'bench', tenantId: randomUUID() }, 3600);
  const response = await fetch(`${base}/api/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', rateLimitPerMinute: 1000, rateLimitPerHour: 50000 }),
  });
  return ((await response.json()) as { data: { rawKey: string } }).data.rawKey;
}

/** `count` queued nmap scans of `tenantId` (a tenants row already), as the queue holds them. */
export async function seedQueuedScans(
  database: DatabaseHandle,
  tenantId: string,
  count: number,
  scan: { readonly name: string; readonly priority: Priority; readonly timeoutSeconds: number },
): Promise<void> {
  await sql`
    insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
                       priority_rank, status, options, timeout_seconds)
    select gen_random_uuid(), ${tenantId}, 'nmap', ${scan.name}, '203.0.113.10', 'ip',
           ${scan.priority}, ${priorityRank(scan.priority)}, 'queued', '{}'::jsonb,
           ${scan.timeoutSeconds}
    from generate_series(1, ${count})`.execute(database.db);
  // A live queue has table statistics (autovacuum analyzes it); a bulk-seeded one must be told.
  await sql`analyze scans`.execute(database.db);
}

/** The time from each 201 answer of POST /api/v1/scans to the scan's run starting. */
export interface CreateToRunning {
  /** The engine's part: a measured scan's run starts now (right after its claim committed). */
  started(): void;
  /**
   * Creates `scans` scans of `body` one after another (after WARM_UP more), each once the one
   * before has started and had 2 ms to finish, so that it finds the workers as it left them.
   */
  measure(base: string, key: string, body: object, scans: number): Promise<LatencyFigures>;
}

export function createToRunning(): CreateToRunning {
  let started: (at: number) => void = () => {};
  return {
    started: () => started(performance.now()),
    async measure(base, key, body, scans) {
      const latencies: number[] = [];
      for (let i = 0; i < scans + WARM_UP; i += 1) {
        const running = new Promise<number>((resolve) => {
          started = resolve;
        });
        const response = await fetch(`${base}/api/v1/scans`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
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
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return latencyFigures(latencies);
    },
  };
}

/** `count` open ports of one host, as an nmap run reports them (the benches' finding rows). */
export function openPortFindings(count: number): DraftFinding[] {
  return Array.from({ length: count }, (_, i) => ({
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
  }));
}
