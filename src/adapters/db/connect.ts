import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import { withPrivateUmask } from '../data-dir/private-data-dir.js';
import type { Database } from './database.js';
import { answersWithin, dataDirHasRoom, HEALTHY, type HealthCheck } from './database-health.js';
import { openInDataDir } from './open-in-data-dir.js';
import { createPgListener } from './pg-listener.js';
import {
  createPgPool,
  type DatabaseTimeouts,
  DEFAULT_DATABASE_TIMEOUTS,
  poolForKysely,
  poolQuery,
  readTimeoutMs,
} from './pg-pool.js';
import { PgliteDialect, withPgliteLock } from './pglite-dialect.js';
import { createSessionLock, type SessionLock } from './session-lock.js';

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
  /**
   * Subscribes to a NOTIFY channel; the returned function unsubscribes. On PostgreSQL one
   * dedicated connection per handle carries every subscription (it reconnects after a loss, see
   * pg-listener.ts; callers keep a slow poll as a safety net for notifications missed meanwhile).
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Whether the database can serve now, and why not (for /readyz): PostgreSQL answers `select 1`
   * within the connect timeout; the embedded database does too, and its DATA_DIR has room.
   */
  health(): Promise<HealthCheck>;
  /**
   * Whether this handle holds the session advisory lock `name` now (taking it when free): on
   * PostgreSQL on a connection of its own (session-lock.ts), so that one process of many does a
   * job; the embedded database has one process, which always holds it.
   */
  holdsLock(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Connects to PostgreSQL through `pg` with a pool; `schema` sets the search_path (tests). Every wait
 * has a deadline (`timeouts`, pg-pool.ts); the LISTEN connection reconnects by itself
 * (pg-listener.ts).
 */
export function connectPostgres(
  databaseUrl: string,
  options: { schema?: string; poolSize?: number; timeouts?: DatabaseTimeouts } = {},
): DatabaseHandle {
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const pool = createPgPool(databaseUrl, { ...options, timeouts });
  const readTimeout = readTimeoutMs(timeouts.statementTimeoutMs);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: poolForKysely(pool, readTimeout) }),
  });
  const listener = createPgListener(databaseUrl, options.schema, timeouts);
  const locks = new Map<string, SessionLock>();
  return {
    db,
    kind: 'postgres',
    listen: (channel, onNotify) => listener.listen(channel, onNotify),
    async prepared<R>(query: PreparedQuery) {
      const result = await poolQuery(
        pool,
        { name: query.name, text: query.text, values: [...query.values] },
        readTimeout,
      );
      return result.rows as R[];
    },
    health: () =>
      answersWithin(
        () => poolQuery(pool, { text: 'select 1' }, readTimeout),
        timeouts.connectTimeoutMs,
      ),
    holdsLock(name) {
      let lock = locks.get(name);
      if (lock === undefined) {
        lock = createSessionLock(databaseUrl, options.schema, timeouts, name);
        locks.set(name, lock);
      }
      return lock.held();
    },
    close: async () => {
      await Promise.all([...locks.values()].map((lock) => lock.close()));
      await listener.close();
      await db.destroy();
    },
  };
}

/**
 * Opens the embedded database: in memory when `dataDir` is null, else under `<dataDir>/pglite`,
 * in a private DATA_DIR (private-data-dir.ts; refused when open to others). A failure names
 * DATA_DIR and its cause, and leaves no half-created database (open-in-data-dir.ts).
 */
export async function openPglite(dataDir: string | null): Promise<{ pglite: PGlite }> {
  if (dataDir === null) {
    return { pglite: await PGlite.create() };
  }
  return {
    pglite: await openInDataDir(dataDir, (dir) => withPrivateUmask(() => PGlite.create(dir))),
  };
}

/**
 * Wraps an open PGlite instance; `ownsInstance` decides whether close() closes it. `dataDir` (the
 * DATA_DIR it lives in; none in memory) is watched for free space by health().
 */
export function connectPglite(
  pglite: PGlite,
  ownsInstance = true,
  options: { dataDir?: string | null } = {},
): DatabaseHandle {
  const db = new Kysely<Database>({ dialect: new PgliteDialect(pglite) });
  const dataDir = options.dataDir ?? null;
  return {
    db,
    kind: 'pglite',
    async prepared<R>(query: PreparedQuery) {
      const result = await db.executeQuery<R>(CompiledQuery.raw(query.text, [...query.values]));
      return result.rows;
    },
    async listen(channel, onNotify) {
      const unlisten = await withPgliteLock(pglite, () => pglite.listen(channel, onNotify));
      return () => withPgliteLock(pglite, () => unlisten());
    },
    holdsLock: async () => true,
    async health() {
      const room = dataDir === null ? HEALTHY : await dataDirHasRoom(dataDir);
      if (!room.ok) {
        return room;
      }
      return answersWithin(
        () => pglite.query('select 1'),
        DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs,
      );
    },
    close: async () => {
      await db.destroy();
      if (ownsInstance) {
        await pglite.close();
      }
    },
  };
}
