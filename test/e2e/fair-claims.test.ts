/**
 * Fair claims and the kill switch, over real HTTP with workers running the HELD TEST ENGINE (a
 * named test double, test/doubles/engines.ts: each run waits until the test releases it):
 * tenants take turns within a priority, each tenant is held to its cap on running scans with
 * several workers claiming at once, and suspending a tenant stops its running scans within 2 s
 * (failed, TENANT_SUSPENDED) while its queued scans wait, unclaimed, until it is reinstated.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import type { EngineRunner, EngineRunRequest } from '../../src/use-cases/ports/engine-runs.js';
import type { ScanWorker } from '../../src/workers/scan-worker.js';
import { heldEngine } from '../doubles/engines.js';
import { BACKEND, createTestDatabase, type TestDatabase } from '../support/database.js';
import { bearer, createKey, type TestApp, tokenFor } from '../support/harness.js';
import { startQueueApp, startTestWorker } from '../support/queue.js';
import { createScan } from '../support/scans.js';
import { until } from '../support/until.js';

let database: TestDatabase;
let app: TestApp;
let admin = '';
const workers: ScanWorker[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  app = await startQueueApp(database);
  admin = await tokenFor(randomUUID(), { admin: true, subject: 'root' });
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(100)));
  await sql`update scans set status = 'cancelled' where status in ('queued', 'running')`.execute(
    database.handle.db,
  );
});

afterAll(async () => {
  await app.close();
  await database.destroy();
});

/** The held engine, with every start in order and the most runs of each tenant held at once. */
function recordingEngine() {
  const held = heldEngine();
  const starts: EngineRunRequest[] = [];
  const most = new Map<string, number>();
  const runningOf = (tenantId: string) =>
    [...held.held.values()].filter((run) => run.request.scan.tenantId === tenantId).length;
  const engine: EngineRunner = {
    run(request) {
      starts.push(request);
      const output = held.engine.run(request);
      const tenantId = request.scan.tenantId;
      most.set(tenantId, Math.max(most.get(tenantId) ?? 0, runningOf(tenantId)));
      return output;
    },
  };
  return {
    engine,
    held: held.held,
    release: held.release,
    waitFor: held.waitFor,
    starts,
    most,
    runningOf,
  };
}

type Recording = ReturnType<typeof recordingEngine>;

/** `count` workers of `concurrency` slots; on PostgreSQL each on its own pool (its own node). */
async function startWorkers(engine: EngineRunner, count: number, concurrency: number) {
  for (let index = 0; index < count; index += 1) {
    const handle: DatabaseHandle =
      BACKEND === 'postgres' && index > 0 ? database.connectAgain() : database.handle;
    workers.push(await startTestWorker(handle, engine, { name: `fair-${index}`, concurrency }));
  }
}

/** A tenant with a key, and the cap an admin set for it (none: the default of 4). */
async function tenant(maxRunningScans?: number) {
  const id = randomUUID();
  const { rawKey } = await createKey(app, await tokenFor(id), {
    rateLimitPerMinute: 1000,
    rateLimitPerHour: 50_000,
  });
  if (maxRunningScans !== undefined) {
    const response = await app.request(`/api/v1/admin/tenants/${id}/max-running-scans`, {
      method: 'PUT',
      headers: bearer(admin),
      json: { maxRunningScans },
    });
    expect(response.status, response.text).toBe(200);
  }
  return { id, key: rawKey };
}

/** Creates `count` scans of one priority over HTTP, in order; their ids. */
async function queue(key: string, count: number, priority: string, name: string) {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const scan = await createScan(app, key, {
      target: '203.0.113.10',
      scanType: 'nmap',
      priority,
      name: `${name}-${index}`,
    });
    ids.push(scan.id);
  }
  return ids;
}

/** Releases one held run of `tenantId` and waits for the next start anywhere: that start. */
async function releaseOne(engine: Recording, tenantId: string): Promise<EngineRunRequest> {
  const before = engine.starts.length;
  const run = [...engine.held.values()].find((held) => held.request.scan.tenantId === tenantId);
  if (run === undefined) {
    throw new Error(`no run of tenant ${tenantId} is held`);
  }
  engine.release(run.request.scan.id);
  await until(
    () => engine.starts.length,
    (length) => length > before,
  );
  return engine.starts[before] as EngineRunRequest;
}

async function statusOf(id: string) {
  const rows = await sql<{ status: string; error_code: string | null }>`
    select status, error_code from scans where id = ${id}`.execute(database.handle.db);
  return rows.rows[0];
}

describe('fair claims', () => {
  it("gives B's critical scan the next free slot, and B's normal scan before A's remaining normal ones", async () => {
    // Four slots, and A's cap (the default, 4) would fill them all.
    const engine = recordingEngine();
    const a = await tenant();
    const b = await tenant();
    const aCritical = await queue(a.key, 200, 'critical', 'a-critical');
    const aNormal = await queue(a.key, 3, 'normal', 'a-normal');
    await startWorkers(engine.engine, 2, 2);
    await until(
      () => engine.held.size,
      (size) => size === 4,
    );
    expect(engine.runningOf(a.id)).toBe(4);
    const [bCritical] = await queue(b.key, 1, 'critical', 'b-critical');
    const [bNormal] = await queue(b.key, 1, 'normal', 'b-normal');

    // The next free slot: B's critical scan, not A's fifth (older) one.
    expect((await releaseOne(engine, a.id)).scan.id).toBe(bCritical);
    expect(await statusOf(aCritical[4] as string)).toMatchObject({ status: 'queued' });
    // Then A's critical scans, before any normal one (the priority order holds across tenants).
    engine.release(bCritical as string);
    await until(
      () => engine.runningOf(a.id),
      (running) => running === 4,
    );
    while (engine.starts.filter((run) => aCritical.includes(run.scan.id)).length < 200) {
      const next = await releaseOne(engine, a.id);
      expect(next.scan.priority).toBe('critical');
    }
    // A's critical scans are all started: the next slot goes to B's normal scan (B got a scan
    // longer ago than A), although A's normal scans were queued first.
    const next = await releaseOne(engine, a.id);
    expect(next.scan.id).toBe(bNormal);
    const order = engine.starts.map((run) => run.scan.id);
    for (const id of aNormal) {
      expect(order.indexOf(id) === -1 || order.indexOf(id) > order.indexOf(bNormal as string)).toBe(
        true,
      );
    }
    expect(engine.most.get(a.id)).toBe(4);
  }, 120_000);

  it('never runs more of a tenant than its cap, with several workers claiming at once', async () => {
    // Twelve slots over four workers (four nodes on PostgreSQL); A's cap, set by an admin, is 3.
    const engine = recordingEngine();
    const a = await tenant(3);
    const b = await tenant();
    const aScans = await queue(a.key, 60, 'critical', 'a');
    await startWorkers(engine.engine, 4, 3);
    await until(
      () => engine.runningOf(a.id),
      (running) => running === 3,
    );
    // A worker has free slots and A has older critical scans, yet B's scan starts: the claim
    // that took it held A to its cap.
    const [bScan] = await queue(b.key, 1, 'critical', 'b');
    await engine.waitFor(bScan as string);
    expect(engine.runningOf(a.id)).toBe(3);
    // A's runs end in bursts, so that several workers finish and claim at the same moment.
    while (engine.starts.filter((run) => aScans.includes(run.scan.id)).length < aScans.length) {
      const before = engine.starts.length;
      for (const run of [...engine.held.values()]) {
        if (run.request.scan.tenantId === a.id) {
          engine.release(run.request.scan.id);
        }
      }
      // Every worker claims now too, beside the finishing ones' complete-and-claim.
      for (const worker of workers) {
        worker.wake();
      }
      await until(
        () => engine.starts.length,
        (length) => length > before,
      );
    }
    expect(engine.most.get(a.id)).toBe(3);
  }, 120_000);
});

describe('the kill switch', () => {
  it("stops a suspended tenant's running scans within 2 s and claims its queued scans only once reinstated", async () => {
    const engine = recordingEngine();
    const c = await tenant(2);
    const d = await tenant(2);
    const [running1, running2, ...cQueued] = await queue(c.key, 4, 'critical', 'c');
    await startWorkers(engine.engine, 2, 2);
    const runs = await Promise.all([
      engine.waitFor(running1 as string),
      engine.waitFor(running2 as string),
    ]);
    const dScans = await queue(d.key, 6, 'low', 'd');
    await until(
      () => engine.runningOf(d.id),
      (running) => running === 2,
    );

    const suspendedAt = Date.now();
    const suspended = await app.request(`/api/v1/admin/tenants/${c.id}/suspend`, {
      method: 'POST',
      headers: bearer(admin),
    });
    expect(suspended.status).toBe(200);
    for (const id of [running1, running2] as string[]) {
      await until(
        () => statusOf(id),
        (row) => row?.status === 'failed',
        5_000,
      );
    }
    const endedAfterMs = Date.now() - suspendedAt;
    expect(endedAfterMs).toBeLessThan(2_000);
    // The runs were aborted (the worker was told), not left running.
    expect(runs.every((run) => run.signal.aborted)).toBe(true);
    for (const id of [running1, running2] as string[]) {
      expect(await statusOf(id)).toEqual({ status: 'failed', error_code: 'TENANT_SUSPENDED' });
    }

    // C's critical scans are older and higher than D's low ones: were C's claimed, they would
    // start first. D's queue drains through the freed slots; C's scans stay queued.
    while (engine.starts.filter((run) => dScans.includes(run.scan.id)).length < dScans.length) {
      await releaseOne(engine, d.id);
    }
    for (const run of [...engine.held.values()]) {
      engine.release(run.request.scan.id);
    }
    await until(
      () => Promise.all(dScans.map(statusOf)),
      (rows) => rows.every((row) => row?.status === 'completed'),
    );
    for (const id of cQueued) {
      expect(await statusOf(id)).toMatchObject({ status: 'queued' });
      expect(engine.starts.some((run) => run.scan.id === id)).toBe(false);
    }

    const reinstated = await app.request(`/api/v1/admin/tenants/${c.id}/reinstate`, {
      method: 'POST',
      headers: bearer(admin),
    });
    expect(reinstated.status).toBe(200);
    await Promise.all(cQueued.map((id) => engine.waitFor(id)));
    // Over HTTP, the stopped scan reads as the contract's failed scan.
    const stopped = await app.request(`/api/v1/scans/${running1}`, {
      headers: { 'x-api-key': c.key },
    });
    expect(stopped.body.data.scan).toMatchObject({
      status: 'failed',
      error: { code: 'TENANT_SUSPENDED', message: 'Tenant account is suspended' },
    });
  }, 60_000);
});
