/**
 * A scan's outcome is never lost to a database outage (issue 19): a worker whose engine finishes
 * while PostgreSQL refuses connections keeps the run (findings included) and stores it once the
 * database accepts again, without a rerun; an engine that fails meanwhile is recorded as
 * ENGINE_ERROR the same way; a worker stopped during the outage gives up after its grace and
 * leaves the scan to its lease. The workers run in this process on the held engine (a named test
 * double from test/doubles/engines.ts) with their database handle through a TCP proxy; the test's
 * own checks go straight to PostgreSQL. Always on the machine's PostgreSQL (proxied-postgres.ts).
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/adapters/http/logger.js';
import {
  claimScans,
  DEFAULT_TENANT_MAX_RUNNING_SCANS,
} from '../../src/adapters/queue/claim-scans.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startWorkers } from '../../src/main/workers.js';
import type { EngineRunner } from '../../src/use-cases/ports/engine-runs.js';
import { NO_METRICS } from '../../src/use-cases/ports/metrics.js';
import type { ScanWorker } from '../../src/workers/scan-worker.js';
import { draftFinding, heldEngine } from '../doubles/engines.js';
import { createKey, startApp, type TestApp, tokenFor } from '../support/harness.js';
import { createProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { createScan } from '../support/scans.js';
import { testSecretBox } from '../support/secrets.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

interface Setup {
  readonly pg: ProxiedPostgres;
  readonly app: TestApp;
  readonly key: string;
  readonly held: ReturnType<typeof heldEngine>;
  /** How many times the engine was started, by scan id. */
  readonly runs: Map<string, number>;
  readonly worker: ScanWorker;
  readonly logs: LogLine[];
  /** Another worker on the same engine, through `proxy`, leased for `leaseMs`. */
  startWorker(proxy: TcpProxy, leaseMs: number): Promise<ScanWorker>;
}

/**
 * One worker (through the first proxy, leased for `leaseMs`) on an engine that waits for the
 * test, and an API (direct) to create scans with. `afterRun` runs when the test releases a run,
 * before it answers.
 */
async function setUp(options: { afterRun?: () => void; leaseMs?: number } = {}): Promise<Setup> {
  const afterRun = options.afterRun ?? (() => {});
  const pg = await createProxiedPostgres();
  cleanups.push(() => pg.destroy());
  const app = await startApp(pg.direct);
  cleanups.push(() => app.close());
  const key = (await createKey(app, await tokenFor(randomUUID()))).rawKey;
  const held = heldEngine();
  const runs = new Map<string, number>();
  const engine: EngineRunner = {
    async run(request) {
      runs.set(request.scan.id, (runs.get(request.scan.id) ?? 0) + 1);
      const output = await held.engine.run(request);
      afterRun();
      return output;
    },
  };
  const logs: LogLine[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        logs.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  const logger = createLogger('debug', destination);
  const startWorker = async (proxy: TcpProxy, leaseMs: number) => {
    const [worker] = await startWorkers({
      config: loadConfig({
        WORKERS: '1',
        WORKER_CONCURRENCY: '2',
        WORKER_LEASE_MS: String(leaseMs),
      }),
      database: pg.connect({ proxy }),
      runners: new Map([['nmap', engine]]),
      resolver: { check: async () => ({ ok: true, addresses: [] }) },
      secrets: testSecretBox(),
      logger,
      metrics: NO_METRICS,
    });
    if (worker === undefined) {
      throw new Error('no worker started');
    }
    cleanups.push(() => worker.stop(0));
    return worker;
  };
  const worker = await startWorker(pg.proxy, options.leaseMs ?? 30_000);
  return { pg, app, key, held, runs, worker, logs, startWorker };
}

async function scanRow(pg: ProxiedPostgres, id: string) {
  const { rows } = await sql<{
    status: string;
    attempts: number;
    error_code: string | null;
    result_count: number;
    lease_owner: string | null;
    lease_left_ms: number | null;
    findings: number;
    started: number;
  }>`select status, attempts, error_code, result_count, lease_owner,
      (extract(epoch from lease_expires_at - now()) * 1000)::int as lease_left_ms,
      (select count(*)::int from findings where scan_id = scans.id) as findings,
      (select count(*)::int from scan_events
        where scan_id = scans.id and event = 'scan.started') as started
    from scans where id = ${id}`.execute(pg.direct.db);
  const row = rows[0];
  if (row === undefined) {
    throw new Error(`no scan ${id}`);
  }
  return row;
}

const lines = (logs: readonly LogLine[], msg: string) => logs.filter((line) => line.msg === msg);

/** Resolves once the worker has failed to store the end of `scanId` `times` times. */
function storeRetries(logs: readonly LogLine[], scanId: string, times: number) {
  return until(
    () =>
      lines(logs, 'the database is away: storing the end of a scan later').filter(
        (line) => line.scanId === scanId,
      ).length,
    (count) => count >= times,
  );
}

describe('a scan that ends while PostgreSQL refuses connections', () => {
  it('is stored completed with its findings once the database is back, never rerun', async () => {
    const { pg, app, key, held, runs, worker, logs } = await setUp();
    const { id } = await createScan(app, key, { target: '203.0.113.10', scanType: 'nmap' });
    await held.waitFor(id);
    pg.proxy.refuse();
    held.release(id, {
      findings: [
        draftFinding(),
        draftFinding({
          title: 'Open port 80/tcp (http)',
          location: { host: '203.0.113.10', port: 80, protocol: 'tcp', url: null },
          raw: { portid: '80' },
        }),
      ],
    });
    // Tried three times (0.25 + 0.5 s of backoff), all refused: the run is held in memory.
    await storeRetries(logs, id, 3);
    expect(await scanRow(pg, id)).toMatchObject({ status: 'running', lease_owner: worker.id });
    expect(worker.running()).toEqual([id]);

    pg.proxy.accept();
    await until(
      () => scanRow(pg, id),
      (row) => row.status !== 'running',
    );
    expect(await scanRow(pg, id)).toEqual({
      status: 'completed',
      attempts: 1,
      error_code: null,
      result_count: 2,
      lease_owner: null,
      lease_left_ms: null,
      findings: 2,
      started: 1,
    });
    expect(runs.get(id)).toBe(1);
    await until(
      () => worker.running(),
      (running) => running.length === 0,
    );
    expect(lines(logs, 'database unreachable')).toHaveLength(1);
    expect(lines(logs, 'database unreachable')[0]).toMatchObject({
      level: 40,
      during: expect.any(String),
      error: expect.any(String),
    });
    expect(lines(logs, 'database unreachable')[0]).not.toHaveProperty('err');
    expect(lines(logs, 'database reachable again')).toHaveLength(1);
    expect(lines(logs, 'database reachable again')[0]?.awayMs).toBeGreaterThan(0);
    expect(logs.filter((line) => line.level >= 50)).toEqual([]);
  });

  it("runs a scan whose claim committed while the claim's answer was lost, once", async () => {
    const { pg, app, key, held, runs, worker, logs } = await setUp({ leaseMs: 30_000 });
    // The worker's path is down: its claim round fails, and the claim below stands for that
    // round's statement, committed in the database with its answer lost on the way back (what a
    // cut right after COMMIT leaves).
    pg.proxy.refuse();
    const { id } = await createScan(app, key, { target: '203.0.113.12', scanType: 'nmap' });
    const claimed = await claimScans(pg.direct, worker.id, {
      engines: ['nmap'],
      limit: 1,
      leaseMs: 30_000,
      tenantMaxRunningScans: DEFAULT_TENANT_MAX_RUNNING_SCANS,
    });
    expect(claimed.map((scan) => scan.id)).toEqual([id]);
    worker.wake();
    await until(
      () => worker.readiness().reason,
      (reason) => reason === 'its last claim round could not reach the database',
    );
    expect(worker.running()).toEqual([]);

    pg.proxy.accept();
    // Its next claim round (the slow poll: nothing wakes it) finds the scan leased to it, and runs
    // it, long before the lease ends.
    await held.waitFor(id, 15_000);
    held.release(id, { findings: [draftFinding()] });
    const row = await until(
      () => scanRow(pg, id),
      (current) => current.status !== 'running',
    );
    expect(row).toMatchObject({ status: 'completed', attempts: 1, findings: 1, started: 1 });
    expect(runs.get(id)).toBe(1);
    expect(lines(logs, 'running a scan claimed while the database answer was lost')).toHaveLength(
      1,
    );
  });

  it('records an engine that fails meanwhile as ENGINE_ERROR once the database is back', async () => {
    const { pg, app, key, held, runs, logs } = await setUp({
      afterRun: () => {
        throw new Error('the engine broke (test double)');
      },
    });
    const { id } = await createScan(app, key, { target: '203.0.113.11', scanType: 'nmap' });
    await held.waitFor(id);
    pg.proxy.refuse();
    held.release(id);
    await storeRetries(logs, id, 2);
    expect((await scanRow(pg, id)).status).toBe('running');

    pg.proxy.accept();
    const row = await until(
      () => scanRow(pg, id),
      (current) => current.status !== 'running',
    );
    expect(row).toMatchObject({ status: 'failed', error_code: 'ENGINE_ERROR', started: 1 });
    expect(runs.get(id)).toBe(1);
    // The engine's failure is an error of its own; the outage is not.
    expect(lines(logs, 'scan run failed')).toHaveLength(1);
    expect(lines(logs, 'database unreachable')).toHaveLength(1);
  });

  it('gives the end up when the worker stops during the outage, leaving the scan to its lease', async () => {
    const { pg, app, key, held, worker, logs } = await setUp();
    const { id } = await createScan(app, key, { target: '203.0.113.12', scanType: 'nmap' });
    await held.waitFor(id);
    pg.proxy.refuse();
    held.release(id, { findings: [draftFinding()] });
    await storeRetries(logs, id, 1);

    const started = Date.now();
    await worker.stop(500);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(
      lines(
        logs,
        'gave up storing the end of a scan: the worker stopped while the database was away; its lease decides',
      ).map((line) => line.scanId),
    ).toEqual([id]);
    // Neither stored nor handed back: still this worker's until its lease runs out.
    expect(await scanRow(pg, id)).toMatchObject({ status: 'running', lease_owner: worker.id });
  });
});

describe('a lease that runs out while PostgreSQL is away', () => {
  // Lease 6 s: heartbeats every 2 s, housekeeping every 3 s.
  const LEASE_MS = 6_000;

  it('is renewed by its live worker, not reclaimed by another that was cut off too', async () => {
    const { pg, app, key, held, runs, worker, startWorker } = await setUp({ leaseMs: LEASE_MS });
    const { id } = await createScan(app, key, { target: '203.0.113.13', scanType: 'nmap' });
    await held.waitFor(id);
    // A second worker on a path of its own, started once the first holds the only scan.
    const otherProxy = await pg.startProxy();
    const other = await startWorker(otherProxy, LEASE_MS);
    expect(other.running()).toEqual([]);

    // Both lose the database for longer than the lease.
    pg.proxy.refuse();
    otherProxy.refuse();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 1_000));
    const lapsed = await scanRow(pg, id);
    expect(lapsed).toMatchObject({ status: 'running', lease_owner: worker.id });
    expect(lapsed.lease_left_ms).toBeLessThan(0);

    // The other worker gets it back first, and its housekeeping (every 3 s) runs while the
    // holder is still cut off: it must leave the lapsed lease to its holder for one lease.
    otherProxy.accept();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2 + 200));
    expect(await scanRow(pg, id)).toMatchObject({
      status: 'running',
      lease_owner: worker.id,
      attempts: 1,
    });
    pg.proxy.accept();
    // The holder's next heartbeat (within 2 s) renews it.
    const renewed = await until(
      () => scanRow(pg, id),
      (row) => (row.lease_left_ms ?? 0) > 0,
    );
    expect(renewed).toMatchObject({ status: 'running', lease_owner: worker.id, attempts: 1 });

    held.release(id, { findings: [draftFinding()] });
    const row = await until(
      () => scanRow(pg, id),
      (current) => current.status !== 'running',
    );
    expect(row).toMatchObject({ status: 'completed', attempts: 1, started: 1, findings: 1 });
    expect(runs.get(id)).toBe(1);
  }, 60_000);
});
