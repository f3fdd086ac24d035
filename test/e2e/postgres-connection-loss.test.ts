/**
 * A PostgreSQL connection lost while a transaction holds it (a restart, an administrator's
 * pg_terminate_backend, a network fault) must fail that transaction, not the process: `pg` emits
 * the loss as an 'error' event on the checked-out client, which ends the process when nobody
 * listens (issue 19). Always on the real PostgreSQL of this machine (RAMPART_TEST_DATABASE_URL, or
 * 127.0.0.1:5432/test as the Redis tests use the Redis there): PGlite has no connections to lose.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { connectPostgres, type DatabaseHandle } from '../../src/adapters/db/connect.js';

const URL = process.env.RAMPART_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const opened: Array<DatabaseHandle | pg.Client> = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((each) => (each instanceof pg.Client ? each.end() : each.close())),
  );
});

async function admin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  opened.push(client);
  return client;
}

describe('a PostgreSQL connection lost under a transaction', () => {
  it('fails that transaction only; the pool replaces the connection and goes on', async () => {
    const handle = connectPostgres(URL, { poolSize: 1 });
    opened.push(handle);
    const killer = await admin();
    let killedPid = 0;
    const lost = handle.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      killedPid = rows[0]?.pid ?? 0;
      await killer.query('select pg_terminate_backend($1)', [killedPid]);
      await sql`select pg_sleep(0.2)`.execute(trx);
    });
    await expect(lost).rejects.toThrow();
    expect(killedPid).toBeGreaterThan(0);
    // One connection in the pool: the next query needs the dead one replaced.
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db);
    expect(rows[0]?.pid).not.toBe(killedPid);
    expect(await handle.health()).toEqual({ ok: true });
  });
});
