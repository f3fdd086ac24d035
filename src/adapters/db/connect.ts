import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { PgliteDialect } from './pglite-dialect.js';

/** A statement run as a named prepared statement where the driver supports it (pg does). */
export interface PreparedQuery {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
}

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs one hot-path statement without Kysely's query building. On PostgreSQL it is a named
   * prepared statement (parsed and planned once per connection); on PGlite it goes through the
   * dialect's connection lock like every other query.
   */
  prepared<R>(query: PreparedQuery): Promise<R[]>;
  /** Answers whether the database responds (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Connects to PostgreSQL through `pg` with a pool; `schema` sets the search_path (tests). */
export function connectPostgres(
  databaseUrl: string,
  options: { schema?: string; poolSize?: number } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? 10,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'postgres',
    async prepared<R>(query: PreparedQuery) {
      const result = await pool.query({
        name: query.name,
        text: query.text,
        values: [...query.values],
      });
      return result.rows as R[];
    },
    ping: () => pingWith(() => pool.query('select 1')),
    close: () => db.destroy(),
  };
}

/** Opens the embedded database: in memory when `dataDir` is null, else under `<dataDir>/pglite`. */
export async function openPglite(dataDir: string | null): Promise<{ pglite: PGlite }> {
  if (dataDir === null) {
    return { pglite: await PGlite.create() };
  }
  const dir = join(dataDir, 'pglite');
  await mkdir(dir, { recursive: true });
  return { pglite: await PGlite.create(dir) };
}

/** Wraps an open PGlite instance; `ownsInstance` decides whether close() closes it. */
export function connectPglite(pglite: PGlite, ownsInstance = true): DatabaseHandle {
  const db = new Kysely<Database>({ dialect: new PgliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    async prepared<R>(query: PreparedQuery) {
      const result = await db.executeQuery<R>(CompiledQuery.raw(query.text, [...query.values]));
      return result.rows;
    },
    ping: () => pingWith(() => pglite.query('select 1')),
    close: async () => {
      await db.destroy();
      if (ownsInstance) {
        await pglite.close();
      }
    },
  };
}

async function pingWith(query: () => Promise<unknown>): Promise<boolean> {
  try {
    await Promise.race([
      query(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
    ]);
    return true;
  } catch {
    return false;
  }
}
