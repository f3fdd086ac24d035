/**
 * The queue: priority order, leases and their loss (kill -9), a stopping worker, NOTIFY wake-ups,
 * cancels across nodes, and no scan run twice at once with several workers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import { claimScans } from '../../src/adapters/queue/claim-scans.js';
import { reclaimLostScans } from '../../src/adapters/queue/reclaim-lost-scans.js';
import type { EngineRunner } from '../../src/use-cases/ports/engine-runs.js';
import type { ScanWorker } from '../../src/workers/scan-worker.js';
import { heldEngine, instantEngine } from '../doubles/engines.js';
import {
  BACKEND,
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
} from '../support/database.js';
import { createKey, type TestApp, tokenFor } from '../support/harness.js';
import { startQueueApp, startTestWorker, type TestWorkerOptions } from '../support/queue.js';
import { createScan, getScan, waitForStatus } from '../support/scans.js';

let database: TestDatabase;
let app: TestApp;
let key = '';

beforeAll(async () => {
  database = await createTestDatabase();
  app = await startQueueApp(database);
  key = (
    await createKey(app, await tokenFor(randomUUID()), {
      rateLimitPerMinute: 1000,
      rateLimitPerHour: 50_000,
    })
  ).rawKey;
});

afterAll(async () => {
  await app.close();
  await database.destroy();
});

function worker(
  runner: EngineRunner,
  options: TestWorkerOptions & { handle?: DatabaseHandle } = {},
): Promise<ScanWorker> {
  return startTestWorker(options.handle ?? database.handle, runner, options);
}

async function drainQueue(): Promise<void> {
  // Leftovers of an earlier test would change the order a later test observes.
  await sql`update scans set status = 'cancelled' where status in ('queued', 'running')`.execute(
    database.handle.db,
  );
}

async function scanRow(id: string) {
  const rows = await sql<{ status: string; attempts: number; error_code: string | null }>`
    select status, attempts, error_code from scans where id = ${id}`.execute(database.handle.db);
  return rows.rows[0];
}

async function startedEvents(id: string): Promise<number> {
  const rows = await sql<{ n: number }>`
    select count(*)::int as n from scan_events where scan_id = ${id} and event = 'scan.started'`.execute(
    database.handle.db,
  );
  return rows.rows[0]?.n ?? 0;
}

describe('queue order', () => {
  it('runs critical, then high, then normal, then low, first in first out within each', async () => {
    await drainQueue();
    const plan = ['low', 'normal', 'critical', 'high', 'normal', 'critical', 'low', 'high'];
    const ids: Record<string, string> = {};
    for (const [index, priority] of plan.entries()) {
      const scan = await createScan(app, key, {
        target: `203.0.113.${index + 1}`,
        scanType: 'nmap',
        priority,
        name: `${priority}-${index}`,
      });
      ids[scan.id] = `${priority}-${index}`;
    }
    const engine = instantEngine();
    const one = await worker(engine, { concurrency: 1 });
    try {
      const deadline = Date.now() + 10_000;
      while (engine.runs.length < plan.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(engine.runs.map((run) => ids[run.scan.id])).toEqual([
        'critical-2',
        'critical-5',
        'high-3',
        'high-7',
        'normal-1',
        'normal-4',
        'low-0',
        'low-6',
      ]);
    } finally {
      await one.stop(100);
    }
  });
});

describe('wake-ups and cancels', () => {
  it('starts a scan on NOTIFY, long before the safety-net poll', async () => {
    await drainQueue();
    const held = heldEngine();
    const idle = await worker(held.engine, { pollMs: 60_000 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const created = Date.now();
      const { id } = await createScan(app, key, { target: '203.0.113.40', scanType: 'nmap' });
      await held.waitFor(id, 2_000);
      expect(Date.now() - created).toBeLessThan(2_000);
      held.release(id);
      await waitForStatus(app, key, id, ['completed']);
    } finally {
      await idle.stop(100);
    }
  });

  it('still finds work that arrived without a notification, by the slow poll', async () => {
    await drainQueue();
    const held = heldEngine();
    const polling = await worker(held.engine, { pollMs: 300 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { id } = await createScan(app, key, { target: '203.0.113.42', scanType: 'nmap' });
      await held.waitFor(id);
      held.release(id);
      // A queued row written without NOTIFY (as after a lost notification).
      await sql`update scans set status = 'queued', attempts = 0, lease_owner = null
        where id = ${id}`.execute(database.handle.db);
      await held.waitFor(id, 3_000);
      held.release(id);
    } finally {
      await polling.stop(100);
    }
  });

  it('carries a cancel made through another node to the worker running the scan', async () => {
    await drainQueue();
    const held = heldEngine();
    const otherNode = database.connectAgain();
    const remote = await worker(held.engine, { handle: otherNode });
    try {
      const { id } = await createScan(app, key, { target: '203.0.113.41', scanType: 'nmap' });
      const run = await held.waitFor(id);
      const aborted = new Promise<number>((resolve) =>
        run.signal.addEventListener('abort', () => resolve(Date.now())),
      );
      const cancelledAt = Date.now();
      const response = await app.request(`/api/v1/scans/${id}/cancel`, {
        method: 'POST',
        headers: { 'x-api-key': key },
      });
      expect(response.status).toBe(200);
      expect((await aborted) - cancelledAt).toBeLessThan(2_000);
    } finally {
      await remote.stop(100);
    }
  });
});

describe('leases', () => {
  it('puts the scan of a silent worker back once, then fails it with WORKER_LOST and scan.failed', async () => {
    await drainQueue();
    const { id } = await createScan(app, key, { target: '203.0.113.50', scanType: 'nmap' });
    const db = database.handle.db;
    const expire = () =>
      sql`update scans set lease_expires_at = now() - interval '1 second' where id = ${id}`.execute(
        db,
      );

    expect(
      (
        await claimScans(database.handle, 'ghost-1', {
          engines: ['nmap'],
          limit: 1,
          leaseMs: 60_000,
          tenantMaxRunningScans: 4,
        })
      ).map((s) => s.id),
    ).toEqual([id]);
    expect(await reclaimLostScans(db)).toEqual({ requeued: 0, failed: 0, failedScans: [] });
    await expire();
    expect(await reclaimLostScans(db)).toEqual({ requeued: 1, failed: 0, failedScans: [] });
    expect(await scanRow(id)).toMatchObject({ status: 'queued', attempts: 1 });

    expect(
      (
        await claimScans(database.handle, 'ghost-2', {
          engines: ['nmap'],
          limit: 1,
          leaseMs: 60_000,
          tenantMaxRunningScans: 4,
        })
      ).map((s) => s.id),
    ).toEqual([id]);
    await expire();
    expect(await reclaimLostScans(db)).toEqual({
      requeued: 0,
      failed: 1,
      failedScans: [{ engine: 'nmap', priority: 'normal' }],
    });
    const scan = await getScan(app, key, id);
    expect(scan.status).toBe('failed');
    expect(scan.error.code).toBe('WORKER_LOST');
    const events = await sql<{ event: string }>`
      select event from scan_events where scan_id = ${id} order by seq`.execute(db);
    expect(events.rows.map((row) => row.event)).toEqual([
      'scan.started',
      'scan.started',
      'scan.failed',
    ]);
  });

  it('keeps the lease of a long scan alive with heartbeats', async () => {
    await drainQueue();
    const held = heldEngine();
    const slow = await worker(held.engine, { leaseMs: 1_000 });
    // Another worker whose housekeeping reclaims expired leases; it runs another engine, so it
    // never claims this scan itself.
    const housekeeper = await worker(instantEngine(), {
      name: 'housekeeper',
      engine: 'zap',
      leaseMs: 1_000,
    });
    try {
      const { id } = await createScan(app, key, { target: '203.0.113.53', scanType: 'nmap' });
      await held.waitFor(id);
      // Three lease lengths, with the other worker's housekeeping reclaiming expired leases.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await reclaimLostScans(database.handle.db)).toEqual({
        requeued: 0,
        failed: 0,
        failedScans: [],
      });
      expect(await scanRow(id)).toMatchObject({ status: 'running', attempts: 1 });
      held.release(id);
      await waitForStatus(app, key, id, ['completed']);
    } finally {
      await Promise.all([slow.stop(100), housekeeper.stop(100)]);
    }
  });

  it('hands unfinished scans back to the queue when a worker stops, without counting the attempt', async () => {
    await drainQueue();
    const held = heldEngine();
    const stopping = await worker(held.engine);
    const { id } = await createScan(app, key, { target: '203.0.113.51', scanType: 'nmap' });
    await held.waitFor(id);
    expect(await scanRow(id)).toMatchObject({ status: 'running', attempts: 1 });
    await stopping.stop(100);
    expect(await scanRow(id)).toMatchObject({ status: 'queued', attempts: 0 });
    const next = await worker(instantEngine());
    try {
      await waitForStatus(app, key, id, ['completed']);
    } finally {
      await next.stop(100);
    }
  });

  it('lets running scans finish within the grace period of a stop', async () => {
    await drainQueue();
    const held = heldEngine();
    const stopping = await worker(held.engine);
    const { id } = await createScan(app, key, { target: '203.0.113.52', scanType: 'nmap' });
    await held.waitFor(id);
    const stopped = stopping.stop(5_000);
    setTimeout(() => held.release(id), 100);
    await stopped;
    expect(await scanRow(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });
});

if (BACKEND === 'postgres') {
  describe('worker processes on PostgreSQL', () => {
    const processes: ChildProcess[] = [];
    const logDir = mkdtempSync(join(tmpdir(), 'rampart-queue-test-'));

    async function startWorkerProcess(
      env: Record<string, string>,
    ): Promise<{ child: ChildProcess; id: string }> {
      const searchPath = await sql<{ s: string }>`select current_schema() as s`.execute(
        database.handle.db,
      );
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', new URL('../support/worker-process.ts', import.meta.url).pathname],
        {
          env: {
            PATH: process.env.PATH ?? '',
            DATABASE_URL: TEST_DATABASE_URL ?? '',
            RAMPART_TEST_SCHEMA: searchPath.rows[0]?.s ?? '',
            WORKER_SHUTDOWN_GRACE_MS: '100',
            ...env,
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      processes.push(child);
      const id = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /ready (\S+)/.exec(out);
          if (match?.[1]) {
            resolve(match[1]);
          }
        });
        child.once('exit', (code) => reject(new Error(`worker process exited with ${code}`)));
      });
      return { child, id };
    }

    /** Stops every worker process of the test (SIGTERM: they unregister) and waits for them. */
    async function stopProcesses(): Promise<void> {
      await Promise.all(
        processes.splice(0).map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) {
                resolve();
                return;
              }
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
    }

    afterEach(stopProcesses);

    it('retries on another worker process the scan of a worker killed with SIGKILL mid-scan', async () => {
      await drainQueue();
      const runLog = join(logDir, 'kill.jsonl');
      const doomed = await startWorkerProcess({
        WORKER_LEASE_MS: '1500',
        RAMPART_TEST_SLEEP_MS: '60000',
        RAMPART_TEST_RUN_LOG: runLog,
      });
      const { id } = await createScan(app, key, { target: '203.0.113.60', scanType: 'nmap' });
      await waitForStatus(app, key, id, ['running']);
      const owner = await sql<{ lease_owner: string }>`
        select lease_owner from scans where id = ${id}`.execute(database.handle.db);
      expect(owner.rows[0]?.lease_owner).toBe(doomed.id);
      doomed.child.kill('SIGKILL');
      const survivor = await startWorkerProcess({
        WORKER_LEASE_MS: '1500',
        RAMPART_TEST_SLEEP_MS: '0',
        RAMPART_TEST_RUN_LOG: runLog,
      });
      await waitForStatus(app, key, id, ['completed'], 20_000);
      expect(await scanRow(id)).toMatchObject({ status: 'completed', attempts: 2 });
      expect(await startedEvents(id)).toBe(2);
      const runs = readFileSync(runLog, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(runs.map((run) => run.pid)).toEqual([survivor.child.pid]);
    }, 40_000);

    it('on SIGTERM, a worker process hands its running scan back to the queue', async () => {
      await drainQueue();
      const runLog = join(logDir, 'term.jsonl');
      const stopping = await startWorkerProcess({
        RAMPART_TEST_SLEEP_MS: '60000',
        RAMPART_TEST_RUN_LOG: runLog,
        WORKER_SHUTDOWN_GRACE_MS: '300',
      });
      const { id } = await createScan(app, key, { target: '203.0.113.61', scanType: 'nmap' });
      await waitForStatus(app, key, id, ['running']);
      const exited = new Promise((resolve) => stopping.child.once('exit', resolve));
      stopping.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(await scanRow(id)).toMatchObject({ status: 'queued', attempts: 0 });
      const registered = await sql<{ n: number }>`
        select count(*)::int as n from workers where id = ${stopping.id}`.execute(
        database.handle.db,
      );
      expect(registered.rows[0]?.n).toBe(0);
    }, 30_000);

    it('never runs a scan twice at once: 3 worker processes, 200 scans', async () => {
      await drainQueue();
      const runLog = join(logDir, 'many.jsonl');
      // The three processes are up before the scans are queued, so all three compete for them
      // (queued first, the scans were once all taken by the two processes that started first).
      const children = await Promise.all(
        [1, 2, 3].map(() =>
          startWorkerProcess({
            WORKER_CONCURRENCY: '4',
            RAMPART_TEST_SLEEP_MS: '10',
            RAMPART_TEST_RUN_LOG: runLog,
          }),
        ),
      );
      const ids = new Set<string>();
      for (let i = 0; i < 200; i += 1) {
        ids.add(
          (await createScan(app, key, { target: `203.0.113.${(i % 250) + 1}`, scanType: 'nmap' }))
            .id,
        );
      }
      const deadline = Date.now() + 60_000;
      for (;;) {
        const done = await sql<{ n: number }>`
          select count(*)::int as n from scans where id in (${sql.join([...ids])}) and status = 'completed'`.execute(
          database.handle.db,
        );
        if (done.rows[0]?.n === 200) {
          break;
        }
        if (Date.now() > deadline) {
          throw new Error(`only ${done.rows[0]?.n} of 200 scans completed`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const runs = readFileSync(runLog, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(runs).toHaveLength(200);
      expect(new Set(runs.map((run) => run.scanId))).toEqual(ids);
      const byPid = new Set(runs.map((run) => run.pid));
      expect(byPid.size).toBe(3);
      for (const child of children) {
        expect(byPid.has(child.child.pid)).toBe(true);
      }
      const attempts = await sql<{ n: number }>`
        select count(*)::int as n from scans where id in (${sql.join([...ids])}) and attempts <> 1`.execute(
        database.handle.db,
      );
      expect(attempts.rows[0]?.n).toBe(0);
      expect(existsSync(runLog)).toBe(true);
    }, 90_000);
  });
} else {
  describe('several workers on the embedded database', () => {
    it('never runs a scan twice at once: 3 workers, 200 scans', async () => {
      await drainQueue();
      const running = new Set<string>();
      const runsPerScan = new Map<string, number>();
      let overlap = false;
      const engine: EngineRunner = {
        async run(request) {
          if (running.has(request.scan.id)) {
            overlap = true;
          }
          running.add(request.scan.id);
          runsPerScan.set(request.scan.id, (runsPerScan.get(request.scan.id) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 2));
          running.delete(request.scan.id);
          return { findings: [], warnings: [], ending: 'completed', message: null };
        },
      };
      const ids: string[] = [];
      for (let i = 0; i < 200; i += 1) {
        ids.push(
          (await createScan(app, key, { target: `203.0.113.${(i % 250) + 1}`, scanType: 'nmap' }))
            .id,
        );
      }
      const workers = await Promise.all(
        [1, 2, 3].map(() => worker(engine, { concurrency: 4, handle: database.connectAgain() })),
      );
      try {
        const deadline = Date.now() + 60_000;
        while (runsPerScan.size < 200 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await waitForStatus(app, key, ids.at(-1) ?? '', ['completed']);
      } finally {
        await Promise.all(workers.map((w) => w.stop(1_000)));
      }
      expect(overlap).toBe(false);
      expect(runsPerScan.size).toBe(200);
      expect([...runsPerScan.values()].every((count) => count === 1)).toBe(true);
    }, 90_000);
  });
}
