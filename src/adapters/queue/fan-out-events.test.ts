/** The outbox fan-out on a real database: events are taken in turns over tenants. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { fanOutEvents } from './fan-out-events.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database.destroy();
});

async function events(tenant: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const id = randomUUID();
    ids.push(id);
    await sql`insert into scan_events (id, tenant_id, scan_id, event, payload)
      values (${id}, ${tenant}, ${randomUUID()}, 'scan.completed', '{"timestamp":"t"}')`.execute(
      database.handle.db,
    );
  }
  return ids;
}

const dispatched = async () =>
  (
    await sql<{ id: string }>`select id from scan_events where dispatched_at is not null`.execute(
      database.handle.db,
    )
  ).rows.map((row) => row.id);

describe('fanOutEvents', () => {
  it("takes each tenant's oldest event first, in turns, whoever has more waiting", async () => {
    const a = await events(randomUUID(), 5);
    const b = await events(randomUUID(), 1);
    expect((await fanOutEvents(database.handle.db, 0, 2)).events).toBe(2);
    expect((await dispatched()).sort()).toEqual([a[0], b[0]].sort());
    expect((await fanOutEvents(database.handle.db, 0, 200)).events).toBe(4);
    expect((await fanOutEvents(database.handle.db, 0, 200)).events).toBe(0);
  });

  it("takes no more of a tenant's events than keep its deliveries within the bound", async () => {
    const flooder = randomUUID();
    await sql`insert into tenants (id, monthly_scan_quota) values (${flooder}, 1000)`.execute(
      database.handle.db,
    );
    for (let i = 0; i < 5; i += 1) {
      await sql`insert into webhooks (id, tenant_id, name, url, secret, events)
        values (${randomUUID()}, ${flooder}, 'hook', 'https://receiver.test/', 'whsec_x',
          '{scan.completed}')`.execute(database.handle.db);
    }
    await events(flooder, 7);
    const quiet = await events(randomUUID(), 1);
    // Five webhooks, at most 10 deliveries: two of the flooder's events, and the other tenant's.
    expect(await fanOutEvents(database.handle.db, 0, 200, 10)).toEqual({
      events: 3,
      deliveries: 10,
    });
    expect(await dispatched()).toEqual(expect.arrayContaining(quiet));
    // Fewer webhooks than the bound's share still move one event a call.
    expect((await fanOutEvents(database.handle.db, 0, 200, 1)).events).toBe(1);
    expect((await fanOutEvents(database.handle.db, 0, 200, 10)).events).toBe(2);
  });
});
