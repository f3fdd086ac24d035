/**
 * The delivery claim on a real database (PGlite, or PostgreSQL with RAMPART_TEST_DATABASE_URL):
 * turns over tenants, the per-tenant cap on attempts in flight, suspended tenants held.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { claimDeliveries, hasDueWork } from './claim-deliveries.js';
import { recordAttempt } from './record-attempt.js';

let database: TestDatabase;
const db = () => database.handle.db;
const LEASE_MS = 60_000;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database.destroy();
});

beforeEach(async () => {
  await sql`delete from webhook_deliveries`.execute(db());
});

async function tenantWithWebhook(): Promise<{ tenant: string; webhook: string }> {
  const tenant = randomUUID();
  const webhook = randomUUID();
  await sql`insert into tenants (id, monthly_scan_quota) values (${tenant}, 10)`.execute(db());
  await sql`insert into webhooks (id, tenant_id, name, url, secret, events)
    values (${webhook}, ${tenant}, 'w', 'https://hooks.example/', 'whsec_x', '{scan.completed}')`.execute(
    db(),
  );
  return { tenant, webhook };
}

/** `n` due deliveries of a tenant, the first `agoMs` ago and each 1 ms later than the one before. */
async function due(
  owner: { tenant: string; webhook: string },
  n: number,
  agoMs: number,
): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  for (const [i, id] of ids.entries()) {
    await sql`insert into webhook_deliveries
        (id, tenant_id, kind, webhook_id, event, event_timestamp, body, status, next_attempt_at)
      values (${id}, ${owner.tenant}, 'webhook', ${owner.webhook}, 'scan.completed', 't', '{}',
              'pending', now() - ${agoMs - i} * interval '1 millisecond')`.execute(db());
  }
  return ids;
}

const ok = { statusCode: 200, success: true, responseTimeMs: 1, error: null };

describe('claimDeliveries', () => {
  it("takes each tenant's oldest first, in turns, whoever has more waiting", async () => {
    const a = await tenantWithWebhook();
    const b = await tenantWithWebhook();
    const aIds = await due(a, 10, 10_000);
    const bIds = await due(b, 2, 1_000);
    const claimed = await claimDeliveries(db(), 3, LEASE_MS, 4);
    expect(claimed.map((d) => d.id)).toEqual([aIds[0], bIds[0], aIds[1]]);
    expect(claimed.every((d) => d.attempt === 1)).toBe(true);
  });

  it('never lets a tenant have more than its cap in flight, and frees a place when one ends', async () => {
    const a = await tenantWithWebhook();
    const b = await tenantWithWebhook();
    await due(a, 10, 10_000);
    const bIds = await due(b, 1, 1_000);
    const first = await claimDeliveries(db(), 32, LEASE_MS, 4);
    expect(first.filter((d) => d.tenantId === a.tenant)).toHaveLength(4);
    expect(first.filter((d) => d.tenantId === b.tenant).map((d) => d.id)).toEqual(bIds);
    // A second dispatcher (another connection) finds A at its cap.
    const other = database.connectAgain();
    expect(await claimDeliveries(other.db, 32, LEASE_MS, 4)).toEqual([]);
    expect(await hasDueWork(other.db, 4)).toBe(false);
    const [done] = first;
    if (done === undefined) {
      throw new Error('nothing claimed');
    }
    await recordAttempt(db(), done, ok, [0, 100, 200, 400]);
    const next = await claimDeliveries(other.db, 32, LEASE_MS, 4);
    expect(next).toHaveLength(1);
    expect(next[0]?.tenantId).toBe(a.tenant);
  });

  it('counts an attempt whose lease ran out as no longer in flight', async () => {
    const a = await tenantWithWebhook();
    await due(a, 3, 10_000);
    expect(await claimDeliveries(db(), 32, LEASE_MS, 2)).toHaveLength(2);
    // The third waits for a place.
    expect(await claimDeliveries(db(), 32, LEASE_MS, 2)).toEqual([]);
    // Their dispatcher died: the leases run out (moved into the past here), the attempts are due
    // again and no longer count as in flight.
    await sql`update webhook_deliveries
      set leased_until = now() - interval '1 second', next_attempt_at = now() - interval '1 second'
      where leased_until is not null`.execute(db());
    const again = await claimDeliveries(db(), 32, LEASE_MS, 3);
    expect(again.map((d) => d.attempt).sort()).toEqual([1, 2, 2]);
  });

  it("holds a suspended tenant's deliveries, untouched, and releases them when reinstated", async () => {
    const a = await tenantWithWebhook();
    const ids = await due(a, 2, 1_000);
    await sql`update tenants set status = 'suspended' where id = ${a.tenant}`.execute(db());
    expect(await claimDeliveries(db(), 32, LEASE_MS, 4)).toEqual([]);
    expect(await hasDueWork(db(), 4)).toBe(false);
    const rows = await sql<{ attempts: number }>`select attempts from webhook_deliveries
      where tenant_id = ${a.tenant}`.execute(db());
    expect(rows.rows.map((r) => r.attempts)).toEqual([0, 0]);
    await sql`update tenants set status = 'active' where id = ${a.tenant}`.execute(db());
    expect((await claimDeliveries(db(), 32, LEASE_MS, 4)).map((d) => d.id)).toEqual(ids);
  });

  it('leaves test deliveries to the API and skips disabled webhooks', async () => {
    const a = await tenantWithWebhook();
    const [id] = await due(a, 1, 1_000);
    await sql`update webhook_deliveries set kind = 'test' where id = ${id}`.execute(db());
    const b = await tenantWithWebhook();
    await due(b, 1, 1_000);
    await sql`update webhooks set is_active = false where id = ${b.webhook}`.execute(db());
    expect(await claimDeliveries(db(), 32, LEASE_MS, 4)).toEqual([]);
  });
});
