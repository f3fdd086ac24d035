/**
 * The group commits of the hot paths, on the real database: creates of one tenant that arrive
 * while one is being written go in one statement (quota, rows, NOTIFY), and key lookups that
 * arrive while one is in flight go in one query. What a client sees must not change: order of
 * arrival, exact quota, errors only for the create that caused them, a key revoked before a
 * request is refused to it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyStore } from '../../src/adapters/db/api-keys.repository.js';
import { createScanStore } from '../../src/adapters/db/scans.repository.js';
import { claimScans } from '../../src/adapters/queue/claim-scans.js';
import { finishScan } from '../../src/adapters/queue/finish-scan.js';
import { emptySummary } from '../../src/domain/findings/summary.js';
import type { NewScan } from '../../src/use-cases/ports/scans.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

const MONTH = '2026-11-01';

function newScan(tenantId: string, index: number, extra: Partial<NewScan> = {}): NewScan {
  return {
    id: randomUUID(),
    tenantId,
    apiKeyId: null,
    scanType: 'nmap',
    name: `scan ${index}`,
    target: '203.0.113.10',
    targetType: 'ip',
    priority: 'normal',
    tags: [`n${index}`, 'batch'],
    options: { ports: '22', timing: 'T3' },
    config: { index },
    timeoutSeconds: 600 + index,
    traceContext: null,
    assetId: null,
    callbackUrl: null,
    callbackSecret: null,
    templateId: null,
    parentScanId: null,
    ...extra,
  };
}

describe('batched scan inserts', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.destroy();
  });

  async function tenant(quota: number): Promise<string> {
    const id = randomUUID();
    await sql`insert into tenants (id, monthly_scan_quota) values (${id}, ${quota})`.execute(
      database.handle.db,
    );
    return id;
  }

  async function stored(tenantId: string) {
    const rows = await sql<{ id: string; name: string; count: number }>`
      select s.id, s.name, m.scans as count from scans s
      left join tenant_monthly_scans m on m.tenant_id = s.tenant_id and m.month = ${MONTH}::date
      where s.tenant_id = ${tenantId} order by s.seq`.execute(database.handle.db);
    return rows.rows;
  }

  it('stores concurrent creates of one tenant in order of arrival, each exactly as sent', async () => {
    const store = createScanStore(database.handle);
    const tenantId = await tenant(1000);
    const scans = Array.from({ length: 30 }, (_, index) => newScan(tenantId, index));
    const records = await Promise.all(scans.map((scan) => store.insert(scan, MONTH)));
    const rows = await stored(tenantId);
    expect(rows.map((row) => row.id)).toEqual(scans.map((scan) => scan.id));
    expect(rows[0]?.count).toBe(30);
    // The first went alone; the 29 that arrived while it was written went in one statement (one
    // transaction, so one now()).
    const times = await sql<{ n: number }>`
      select count(distinct created_at)::int as n from scans where tenant_id = ${tenantId}`.execute(
      database.handle.db,
    );
    expect(times.rows[0]?.n).toBe(2);
    // What the insert answers is what a read of the row answers.
    for (const [index, record] of records.entries()) {
      const read = await store.get(tenantId, scans[index]?.id ?? '');
      expect(record).toEqual(read);
    }
  });

  it('admits exactly what the quota leaves, the earliest creates first', async () => {
    const store = createScanStore(database.handle);
    const tenantId = await tenant(10);
    const scans = Array.from({ length: 25 }, (_, index) => newScan(tenantId, index));
    const records = await Promise.all(scans.map((scan) => store.insert(scan, MONTH)));
    expect(records.map((record) => record !== null)).toEqual(scans.map((_, index) => index < 10));
    const rows = await stored(tenantId);
    expect(rows.map((row) => row.id)).toEqual(scans.slice(0, 10).map((scan) => scan.id));
    expect(rows[0]?.count).toBe(10);
  });

  it('fails only the create whose row is refused, and stores the others of its batch', async () => {
    const store = createScanStore(database.handle);
    const tenantId = await tenant(1000);
    const scans = Array.from({ length: 6 }, (_, index) =>
      // A parent that does not exist breaks the foreign key of this one row.
      newScan(tenantId, index, index === 3 ? { parentScanId: randomUUID() } : {}),
    );
    const results = await Promise.allSettled(scans.map((scan) => store.insert(scan, MONTH)));
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const rows = await stored(tenantId);
    expect(rows.map((row) => row.id)).toEqual(
      scans.filter((_, index) => index !== 3).map((scan) => scan.id),
    );
    expect(rows[0]?.count).toBe(5);
  });

  it('keeps the quota of different tenants apart when their creates interleave', async () => {
    const store = createScanStore(database.handle);
    const [a, b] = [await tenant(3), await tenant(1000)];
    const scans = Array.from({ length: 20 }, (_, index) => newScan(index % 2 === 0 ? a : b, index));
    const records = await Promise.all(scans.map((scan) => store.insert(scan, MONTH)));
    expect(records.filter((record) => record?.tenantId === a)).toHaveLength(3);
    expect(records.filter((record) => record?.tenantId === b)).toHaveLength(10);
    expect((await stored(a)).length).toBe(3);
    expect((await stored(b)).length).toBe(10);
  });

  it('finds keys looked up together, each with its own answer, unknown ones as null', async () => {
    const keys = createApiKeyStore(database.handle.db, database.handle.prepared);
    const tenantId = await tenant(10);
    const hashes = Array.from({ length: 7 }, () =>
      createHash('sha256').update(randomUUID()).digest('hex'),
    );
    for (const [index, hash] of hashes.entries()) {
      if (index % 3 === 2) {
        continue; // never stored
      }
      await sql`insert into api_keys (id, tenant_id, name, key_hash, key_prefix, scopes,
          allowed_scan_types, allowed_ip_addresses, rate_limit_per_minute, rate_limit_per_hour,
          rate_limit_per_day, rate_limit_bucket, created_at)
        values (${randomUUID()}, ${tenantId}, ${`key ${index}`}, ${hash}, 'rmp_sk_abcd',
          '{scans:read}', '{}', '{}', 60, 1000, 10000, ${randomUUID()}, now())`.execute(
        database.handle.db,
      );
    }
    // Twelve lookups at once (one key twice): one goes alone, the others go together.
    const asked = [...hashes, hashes[0] ?? '', ...hashes.slice(0, 4)];
    const found = await Promise.all(asked.map((hash) => keys.findForAuth(hash)));
    expect(found.map((entry) => entry?.key.name ?? null)).toEqual(
      asked.map((hash) => {
        const index = hashes.indexOf(hash);
        return index % 3 === 2 ? null : `key ${index}`;
      }),
    );
    expect(found.every((entry) => entry === null || entry.key.tenantId === tenantId)).toBe(true);
  });
});

describe('batched finishes of several workers', () => {
  // A database of its own: the queue is shared by every tenant, and the scans stored above wait in it.
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.destroy();
  });

  it('completes each scan and hands each worker the next scans it asked for, in queue order', async () => {
    const db = database.handle.db;
    const tenantId = randomUUID();
    await sql`insert into tenants (id, monthly_scan_quota) values (${tenantId}, 100)`.execute(db);
    const priorities = ['low', 'normal', 'critical', 'high', 'normal', 'low', 'critical', 'normal'];
    const ranks: Record<string, number> = { critical: 0, high: 1, normal: 2, low: 3 };
    const ids: string[] = [];
    for (const priority of priorities) {
      const id = randomUUID();
      ids.push(id);
      await sql`insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
          priority_rank, status, options, timeout_seconds)
        values (${id}, ${tenantId}, 'nmap', 'q', '203.0.113.10', 'ip', ${priority},
          ${ranks[priority] ?? 2}, 'queued', '{}', 60)`.execute(db);
    }
    // The queue order: critical, high, normal, low; first in, first out within each.
    const queueOrder = ids
      .map((id, index) => ({ id, index, rank: ranks[priorities[index] ?? 'normal'] ?? 2 }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map((entry) => entry.id);
    const workers = ['w1', 'w2', 'w3'];
    const running: string[] = [];
    for (const worker of workers) {
      const [scan] = await claimScans(database.handle, worker, {
        engines: ['nmap'],
        limit: 1,
        leaseMs: 60_000,
        tenantMaxRunningScans: 4,
      });
      running.push(scan?.id ?? '');
    }
    expect(running).toEqual(queueOrder.slice(0, 3));
    // w2's scan went to another worker meanwhile (a lost lease): its finish must not move it.
    await sql`update scans set lease_owner = 'elsewhere' where id = ${running[1] ?? ''}`.execute(
      db,
    );
    const limits = [1, 2, 1];
    const finished = await Promise.all(
      workers.map((worker, index) =>
        finishScan(
          database.handle,
          worker,
          running[index] ?? '',
          { kind: 'completed' },
          { findings: [], summary: emptySummary(), riskScore: 0 },
          // A cap above the scans this tenant runs here: the test is of the batch, not the cap.
          {
            engines: ['nmap'],
            limit: limits[index] ?? 1,
            leaseMs: 60_000,
            tenantMaxRunningScans: 10,
          },
        ),
      ),
    );
    expect(finished.map((result) => result.outcome)).toEqual(['finished', 'lost', 'finished']);
    expect(finished.map((result) => result.claimed.length)).toEqual(limits);
    const claimed = finished.flatMap((result) => result.claimed.map((scan) => scan.id));
    expect(claimed.sort()).toEqual(queueOrder.slice(3, 7).sort());
    const rows = await sql<{ id: string; status: string; lease_owner: string | null }>`
      select id, status, lease_owner from scans where tenant_id = ${tenantId}`.execute(db);
    const byId = new Map(rows.rows.map((row) => [row.id, row]));
    expect(byId.get(running[0] ?? '')?.status).toBe('completed');
    expect(byId.get(running[1] ?? '')?.status).toBe('running');
    expect(byId.get(running[2] ?? '')?.status).toBe('completed');
    for (const [index, result] of finished.entries()) {
      for (const scan of result.claimed) {
        expect(byId.get(scan.id)).toMatchObject({ status: 'running', lease_owner: workers[index] });
      }
    }
    expect(byId.get(queueOrder[7] ?? '')?.status).toBe('queued');
    const events = await sql<{ scan_id: string; event: string }>`
      select scan_id, event from scan_events where tenant_id = ${tenantId}`.execute(db);
    const completedEvents = events.rows.filter((row) => row.event === 'scan.completed');
    expect(completedEvents.map((row) => row.scan_id).sort()).toEqual(
      [running[0] ?? '', running[2] ?? ''].sort(),
    );
    const startedEvents = events.rows.filter((row) => row.event === 'scan.started');
    expect(startedEvents.map((row) => row.scan_id).sort()).toEqual(queueOrder.slice(0, 7).sort());
  });
});

describe('batched key lookups through the API', () => {
  const ctx = useTestApp({ WORKERS: '0' });

  it('refuses a key revoked before the request, even among many concurrent lookups', async () => {
    const token = await tokenFor(randomUUID());
    const keys = await Promise.all(
      Array.from({ length: 4 }, () => createKey(ctx.app, token, { rateLimitPerMinute: 1000 })),
    );
    const [revoked, ...others] = keys;
    if (revoked === undefined) {
      throw new Error('no key');
    }
    // Keep lookups in flight the whole time, so the request after the revocation is batched.
    let running = true;
    const background = (async () => {
      let answered = 0;
      while (running) {
        await Promise.all(
          others.map((key) =>
            ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } }),
          ),
        );
        answered += others.length;
      }
      return answered;
    })();
    expect(
      (await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': revoked.rawKey } }))
        .status,
    ).toBe(200);
    const revoke = await ctx.app.request(`/api/v1/api-keys/${revoked.id}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(revoke.status).toBe(200);
    // The very next requests, sent while other lookups are in flight.
    const after = await Promise.all(
      Array.from({ length: 10 }, () =>
        ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': revoked.rawKey } }),
      ),
    );
    running = false;
    expect(await background).toBeGreaterThan(0);
    expect(after.map((response) => response.status)).toEqual(Array(10).fill(401));
    expect(after[0]?.body.code).toBe('KEY_REVOKED');
  });
});
