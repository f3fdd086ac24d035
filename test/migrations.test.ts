/** Migrations: applied once even when several processes (here: connections) start at once. */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connectPglite, connectPostgres, openPglite } from '../src/adapters/db/connect.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { MIGRATIONS } from '../src/adapters/db/migrations/index.js';
import { createTestDatabase, TEST_DATABASE_URL } from './support/database.js';

describe('migrate', () => {
  it('applies every migration once when three starters race, and nothing on a later start', async () => {
    if (TEST_DATABASE_URL) {
      const schema = `m_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      const handles = [1, 2, 3].map(() =>
        connectPostgres(TEST_DATABASE_URL ?? '', { schema, poolSize: 2 }),
      );
      try {
        const applied = await Promise.all(handles.map((h) => migrate(h.db)));
        expect(applied.flat().sort()).toEqual(MIGRATIONS.map((m) => m.version).sort());
        const first = handles[0];
        if (!first) {
          throw new Error('no handle');
        }
        expect(await migrate(first.db)).toEqual([]);
        const rows = await sql<{
          n: number;
        }>`select count(*)::int as n from rampart_migrations`.execute(first.db);
        expect(rows.rows[0]?.n).toBe(MIGRATIONS.length);
      } finally {
        await Promise.all(handles.map((h) => h.close()));
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      }
      return;
    }
    const { pglite } = await openPglite(null);
    const handles = [1, 2, 3].map(() => connectPglite(pglite, false));
    try {
      const applied = await Promise.all(handles.map((h) => migrate(h.db)));
      expect(applied.flat().sort()).toEqual(MIGRATIONS.map((m) => m.version).sort());
      expect(await migrate(connectPglite(pglite, false).db)).toEqual([]);
    } finally {
      await pglite.close();
    }
  });
});

describe('migration 0002', () => {
  it('leaves room on api_keys pages so lastUsedAt updates can stay on the page', async () => {
    const database = await createTestDatabase();
    try {
      const rows = await sql<{ options: string[] | null }>`
        select reloptions as options from pg_class
        where relname = 'api_keys' and relnamespace = current_schema()::regnamespace
      `.execute(database.handle.db);
      expect(rows.rows[0]?.options).toContain('fillfactor=70');
    } finally {
      await database.destroy();
    }
  });
});
