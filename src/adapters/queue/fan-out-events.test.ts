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
});
