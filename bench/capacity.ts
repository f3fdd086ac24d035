/**
 * Issue 25, capacity model: the figures an operator sizes API nodes, worker nodes and PostgreSQL
 * from (README "Capacity model"). Run by bench/run.ts, or alone: `npx tsx bench/capacity.ts`
 * (builds first).
 *
 * (a) CPU of an API process per request: the real server (dist/main/server.js, WORKERS=0, so
 *     created scans stay queued) on PostgreSQL, driven from this process at 10 concurrent
 *     requests with authenticated GET /api/v1/engines, then POST /api/v1/scans; the server's
 *     on-CPU time (/proc/<pid>/schedstat, nanoseconds; all its threads, so libuv's pool and the
 *     garbage collector count) before and after, less what it burns idle over the same time; and
 *     the on-CPU time of the PostgreSQL backends serving its pool's connections (found by their
 *     client ports), not counting idle.
 * (b) PostgreSQL per queue operation, with the service's own adapter functions on one
 *     connection: claim one scan (claimScans), finish it with 0 and with 10 findings (finishScan),
 *     and one webhook delivery (claimDeliveries of one, then recordAttempt of a success). Two
 *     figures per operation: the on-CPU time of that connection's backend process (read from
 *     /proc, PostgreSQL runs on this machine), which is what PostgreSQL spends, and the wall time
 *     of the round trips, which adds the local network hop and this process's driver, and any
 *     wait for the CPU on a loaded machine. pg_stat_statements is not installed here.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { signToken } from '../src/adapters/auth-tokens/jwt.js';
import { connectPostgres, type DatabaseHandle } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { claimDeliveries } from '../src/adapters/queue/claim-deliveries.js';
import { type ClaimRequest, claimScans } from '../src/adapters/queue/claim-scans.js';
import { finishScan } from '../src/adapters/queue/finish-scan.js';
import { recordAttempt } from '../src/adapters/queue/record-attempt.js';
import { finalizeFindings } from '../src/domain/findings/fingerprint.js';
import { emptySummary, riskScore, summarizeFindings } from '../src/domain/findings/summary.js';
import { priorityRank } from '../src/domain/scans/priority.js';
import { DATABASE_URL, schemaUrl, withSchema } from './support/database.js';
import { startBuiltServer } from './support/http.js';
import { openPortFindings } from './support/scans.js';

const ROOT = new URL('../', import.meta.url).pathname;
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const PORT = 3911;
const CONNECTIONS = 10;
const REQUESTS = Number(process.env.BENCH_CAPACITY_REQUESTS ?? 10_000);
const CREATES = Number(process.env.BENCH_CAPACITY_CREATES ?? 4_000);
const OPS = Number(process.env.BENCH_CAPACITY_OPS ?? 1_000);
const KEYS = 40;
const TENANTS = 10;

export interface ApiCpu {
  readonly route: string;
  readonly requests: number;
  /** Answers other than the route's success status (any makes the figure invalid). */
  readonly failures: number;
  readonly seconds: number;
  /** The API process's CPU per request, idle burn subtracted. */
  readonly cpuMsPerRequest: number;
  /** CPU of the PostgreSQL backends of the API process's pool per request (idle not subtracted). */
  readonly pgCpuMsPerRequest: number;
  /** The backends found for that (0: the PostgreSQL figure is missing, not zero). */
  readonly pgBackends: number;
}

export interface DbOp {
  readonly op: string;
  readonly iterations: number;
  /** PostgreSQL backend on-CPU time per operation. */
  readonly pgCpuMs: number;
  /** Wall time of the operation's round trips on one connection. */
  readonly wallMs: number;
}

export interface CapacityResult {
  readonly date: string;
  readonly loadAverage: readonly number[];
  readonly cpus: number;
  /** The API process's CPU while idle (timers, pool upkeep), ms per second. */
  readonly apiIdleCpuMsPerSecond: number;
  readonly api: readonly ApiCpu[];
  readonly db: readonly DbOp[];
}

/** On-CPU time of a process, all threads, in ms (schedstat: ns; else stat's clock ticks). */
function cpuMsOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
}

/** The local TCP ports of `pid`'s sockets (its fds' socket inodes, found in /proc/net/tcp*). */
function localPortsOf(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) {
        inodes.add(match[1]);
      }
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const port = fields[1]?.split(':')[1];
      if (port !== undefined && fields[9] !== undefined && inodes.has(fields[9])) {
        ports.push(Number.parseInt(port, 16));
      }
    }
  }
  return ports;
}

/** The PostgreSQL backends serving the connections of process `pid` (PostgreSQL on this machine). */
async function backendsOf(admin: pg.Client, pid: number): Promise<number[]> {
  const result = await admin.query<{ pid: number }>(
    'select pid from pg_stat_activity where client_port = any($1::int[]) and pid <> pg_backend_pid()',
    [localPortsOf(pid)],
  );
  return result.rows.map((row) => row.pid);
}

const cpuMsOfAll = (pids: readonly number[]) =>
  pids.reduce((sum, pid) => {
    try {
      return sum + cpuMsOf(pid);
    } catch {
      return sum;
    }
  }, 0);

/** `total` calls of `send`, `CONNECTIONS` at a time; resolves to the number that failed. */
async function drive(total: number, send: (i: number) => Promise<boolean>): Promise<number> {
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < total) {
        const i = next++;
        if (!(await send(i))) {
          failures += 1;
        }
      }
    }),
  );
  return failures;
}

async function measureRoute(
  server: { readonly pid: number; readonly admin: pg.Client; readonly idleMsPerSecond: number },
  route: string,
  requests: number,
  send: (i: number) => Promise<boolean>,
): Promise<ApiCpu> {
  const { pid, admin, idleMsPerSecond } = server;
  // The warm-up opens the pool's connections; their backends are then measured.
  await drive(Math.min(500, requests), send);
  const backends = await backendsOf(admin, pid);
  const pgBefore = cpuMsOfAll(backends);
  const cpuBefore = cpuMsOf(pid);
  const start = performance.now();
  const failures = await drive(requests, send);
  const seconds = (performance.now() - start) / 1000;
  const used = cpuMsOf(pid) - cpuBefore - idleMsPerSecond * seconds;
  const pgUsed = cpuMsOfAll(backends) - pgBefore;
  return {
    route,
    requests,
    failures,
    seconds: Number(seconds.toFixed(1)),
    cpuMsPerRequest: Number((used / requests).toFixed(3)),
    pgCpuMsPerRequest: Number((pgUsed / requests).toFixed(3)),
    pgBackends: backends.length,
  };
}

async function benchApiCpu(): Promise<{ idle: number; routes: ApiCpu[] }> {
  return withSchema(async (schema) => {
    const server = await startBuiltServer({
      root: ROOT,
      port: PORT,
      schema,
      jwtSecret: SECRET,
      env: { DEFAULT_MONTHLY_SCAN_QUOTA: '10000000', TENANT_TOKEN_REQUESTS_PER_MINUTE: '1000000' },
      stdout: 'ignore',
    });
    const admin = new pg.Client({ connectionString: schemaUrl(schema) });
    try {
      const base = `http://127.0.0.1:${PORT}`;
      await admin.connect();
      // A stand-by worker row answers the "no worker runs this engine" check (as bench/run.ts).
      await admin.query(
        `insert into workers (id, engines, hostname, pid, heartbeat_at)
         values ('bench-standby', '{nmap}', 'bench', 0, now() + interval '1 day')`,
      );
      const token = await signToken(SECRET, { subject: 'bench', tenantId: randomUUID() }, 3600);
      const keys: string[] = [];
      for (let i = 0; i < KEYS; i++) {
        const response = await fetch(`${base}/api/v1/api-keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: `capacity-${i}`,
            rateLimitPerMinute: 1000,
            rateLimitPerHour: 50000,
            rateLimitPerDay: 500000,
          }),
        });
        keys.push(((await response.json()) as { data: { rawKey: string } }).data.rawKey);
      }
      const pid = server.pid ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idleBefore = cpuMsOf(pid);
      const idleStart = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const idle = (cpuMsOf(pid) - idleBefore) / ((performance.now() - idleStart) / 1000);
      const key = (i: number) => keys[i % KEYS] ?? '';
      const measured = { pid, admin, idleMsPerSecond: idle };
      const engines = await measureRoute(measured, 'GET /api/v1/engines', REQUESTS, async (i) => {
        const response = await fetch(`${base}/api/v1/engines`, {
          headers: { 'x-api-key': key(i) },
        });
        await response.arrayBuffer();
        return response.status === 200;
      });
      const body = JSON.stringify({ target: '203.0.113.10', scanType: 'nmap' });
      const scans = await measureRoute(measured, 'POST /api/v1/scans', CREATES, async (i) => {
        const response = await fetch(`${base}/api/v1/scans`, {
          method: 'POST',
          headers: { 'x-api-key': key(i), 'content-type': 'application/json' },
          body,
        });
        await response.arrayBuffer();
        return response.status === 201;
      });
      return { idle: Number(idle.toFixed(2)), routes: [engines, scans] };
    } finally {
      server.kill('SIGTERM');
      await admin.end().catch(() => {});
      await new Promise((resolve) => {
        if (server.exitCode !== null) {
          resolve(null);
        } else {
          server.once('exit', resolve);
        }
      });
    }
  });
}

/** Open ports of one host, as an nmap run reports them. */
const TEN_FINDINGS = openPortFindings(10);

/** Sums the backend's CPU and the wall time of each call of `op`, per call. */
function opTimer(backendPid: number) {
  let cpu = 0;
  let wall = 0;
  let count = 0;
  return {
    async time<T>(op: () => Promise<T>): Promise<T> {
      const cpuBefore = cpuMsOf(backendPid);
      const start = performance.now();
      const result = await op();
      wall += performance.now() - start;
      cpu += cpuMsOf(backendPid) - cpuBefore;
      count += 1;
      return result;
    },
    result(name: string): DbOp {
      return {
        op: name,
        iterations: count,
        pgCpuMs: Number((cpu / count).toFixed(3)),
        wallMs: Number((wall / count).toFixed(3)),
      };
    },
  };
}

async function backendPid(database: DatabaseHandle): Promise<number> {
  const result = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db);
  return result.rows[0]?.pid ?? 0;
}

async function benchDbOps(): Promise<DbOp[]> {
  return withSchema(async (schema) => {
    const database = connectPostgres(DATABASE_URL, { schema, poolSize: 1 });
    try {
      await migrate(database.db);
      // Ten tenants with queued scans (a claim locks every tenant with queued work, fair
      // claims), each with room for all of its scans.
      const tenants = Array.from({ length: TENANTS }, () => randomUUID());
      await sql`insert into tenants (id, monthly_scan_quota, max_running_scans)
        select unnest(${tenants}::uuid[]), 1000000, 100000`.execute(database.db);
      const perTenant = Math.ceil((OPS * 2 + 100) / TENANTS);
      await sql`insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
                                   priority_rank, status, options, timeout_seconds)
        select gen_random_uuid(), t, 'nmap', 'capacity', '203.0.113.10', 'ip', 'normal', ${priorityRank('normal')},
               'queued', '{}'::jsonb, 60
        from unnest(${tenants}::uuid[]) t, generate_series(1, ${perTenant})`.execute(database.db);
      const webhook = randomUUID();
      const tenant = tenants[0] ?? '';
      await sql`insert into webhooks (id, tenant_id, name, url, secret, events)
        values (${webhook}, ${tenant}, 'capacity', 'https://hooks.example/', 'whsec_x',
                '{scan.completed}')`.execute(database.db);
      await sql`insert into webhook_deliveries
          (id, tenant_id, kind, webhook_id, event, event_timestamp, body, status, next_attempt_at)
        select gen_random_uuid(), ${tenant}, 'webhook', ${webhook}, 'scan.completed',
               '2026-01-01T00:00:00Z', '{"type":"scan.completed"}', 'pending',
               now() - interval '1 minute' + n * interval '1 millisecond'
        from generate_series(1, ${OPS + 100}) n`.execute(database.db);
      await sql`analyze`.execute(database.db);
      const pid = await backendPid(database);
      const request: ClaimRequest = {
        engines: ['nmap'],
        limit: 1,
        leaseMs: 60_000,
        tenantMaxRunningScans: 4,
      };
      const findings = finalizeFindings('nmap', TEN_FINDINGS);
      const summary = summarizeFindings(findings);
      const withFindings = { findings, summary, riskScore: riskScore(summary) };
      const none = { findings: [], summary: emptySummary(), riskScore: 0 };
      const claims = opTimer(pid);
      const finishes0 = opTimer(pid);
      const finishes10 = opTimer(pid);
      const deliveries = opTimer(pid);
      // Warm-up (prepared statements, caches), then the measured rounds: each claims one scan,
      // finishes it (every other one with ten findings), and sends one delivery.
      const round = async (measured: boolean, i: number) => {
        const run = <T>(timer: ReturnType<typeof opTimer>, op: () => Promise<T>) =>
          measured ? timer.time(op) : op();
        const [scan] = await run(claims, () => claimScans(database, 'capacity', request));
        if (scan === undefined) {
          throw new Error('capacity bench: the queue ran dry');
        }
        const results = i % 2 === 0 ? none : withFindings;
        await run(i % 2 === 0 ? finishes0 : finishes10, () =>
          finishScan(database, 'capacity', scan.id, { kind: 'completed' }, results),
        );
        await run(deliveries, async () => {
          const [delivery] = await claimDeliveries(database.db, 1, 30_000, 4);
          if (delivery === undefined) {
            throw new Error('capacity bench: no delivery due');
          }
          await recordAttempt(
            database.db,
            delivery,
            { statusCode: 200, success: true, responseTimeMs: 5, error: null },
            [0, 60_000],
          );
        });
      };
      for (let i = 0; i < 50; i++) {
        await round(false, i);
      }
      for (let i = 0; i < OPS; i++) {
        await round(true, i);
      }
      if ((await backendPid(database)) !== pid) {
        throw new Error('capacity bench: the connection changed; backend CPU is not its own');
      }
      return [
        claims.result('claim one scan'),
        finishes0.result('finish, 0 findings'),
        finishes10.result('finish, 10 findings'),
        deliveries.result('delivery (claim + record)'),
      ];
    } finally {
      await database.close();
    }
  });
}

export async function benchCapacity(): Promise<CapacityResult> {
  const date = new Date().toISOString();
  const loadAverage = loadavg().map((value) => Number(value.toFixed(2)));
  const api = await benchApiCpu();
  const db = await benchDbOps();
  return {
    date,
    loadAverage,
    cpus: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()),
    apiIdleCpuMsPerSecond: api.idle,
    api: api.routes,
    db,
  };
}

export function reportCapacity(result: CapacityResult): void {
  console.log(
    `\ncapacity (${result.date}, ${result.cpus} CPUs, load average ${result.loadAverage.join(' ')}):`,
  );
  console.log(
    `API process, ${CONNECTIONS} concurrent requests, idle burn ${result.apiIdleCpuMsPerSecond} ms/s subtracted:`,
  );
  console.table(result.api);
  console.log('PostgreSQL per operation, one connection (backend CPU; wall time of round trips):');
  console.table(result.db);
  if (result.api.some((row) => row.failures > 0)) {
    console.log('INVALID: some API requests failed; their CPU is not the route’s');
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  benchCapacity()
    .then((result) => {
      reportCapacity(result);
      if (process.argv.includes('--json')) {
        console.log(JSON.stringify(result));
      }
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
