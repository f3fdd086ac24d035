import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/**
 * Applies pending migrations in one transaction under a transaction-scoped advisory lock, so
 * several processes starting at once apply each migration exactly once: the first takes the lock
 * and migrates; the others wait, then find nothing left to do. The lock key includes the schema, so
 * test runs in separate schemas of one database do not wait for each other.
 */
export async function migrate(
  db: Kysely<Database>,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('rampart-migrate:' || current_schema()))`.execute(
      trx,
    );
    await sql`create table if not exists rampart_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`.execute(trx);
    const applied = await sql<{ version: number }>`select version from rampart_migrations`.execute(
      trx,
    );
    const done = new Set(applied.rows.map((row) => row.version));
    const appliedNow: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) {
        continue;
      }
      for (const statement of migration.statements) {
        await sql.raw(statement).execute(trx);
      }
      await sql`insert into rampart_migrations (version, name) values (${migration.version}, ${migration.name})`.execute(
        trx,
      );
      appliedNow.push(migration.version);
    }
    return appliedNow;
  });
}
