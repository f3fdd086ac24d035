import { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { withPrivateUmask } from '../data-dir/private-data-dir.js';
import type { Database } from './database.js';
import { openInDataDir } from './open-in-data-dir.js';
import { PgliteDialect, withPgliteLock } from './pglite-dialect.js';

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
   * dedicated connection per handle carries every subscription (it reconnects after an error;
   * callers keep a slow poll as a safety net for notifications missed meanwhile).
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
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
  // So must a client a transaction or query holds: `pg` emits the lost connection as an 'error'
  // event on it, which ends the process when nobody listens. The statement in flight fails with
  // the same error (its caller sees it), and the pool drops the dead client when it comes back.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const listener = createPgListener(databaseUrl, options.schema);
  return {
    db,
    kind: 'postgres',
    listen: (channel, onNotify) => listener.listen(channel, onNotify),
    async prepared<R>(query: PreparedQuery) {
      const result = await pool.query({
        name: query.name,
        text: query.text,
        values: [...query.values],
      });
      return result.rows as R[];
    },
    ping: () => pingWith(() => pool.query('select 1')),
    close: async () => {
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
    async listen(channel, onNotify) {
      const unlisten = await withPgliteLock(pglite, () => pglite.listen(channel, onNotify));
      return () => withPgliteLock(pglite, () => unlisten());
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

type Handler = (payload: string) => void;

/**
 * LISTEN on PostgreSQL needs a connection of its own (a pooled one would be handed to other
 * queries). Created on the first subscription; after a connection error it reconnects once a
 * second and subscribes again to every channel.
 */
function createPgListener(databaseUrl: string, schema: string | undefined) {
  const handlers = new Map<string, Set<Handler>>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const quote = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client({
      connectionString: databaseUrl,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    next.on('notification', (message) => {
      for (const handler of handlers.get(message.channel) ?? []) {
        handler(message.payload ?? '');
      }
    });
    next.on('error', () => {
      if (client === next) {
        client = null;
        connecting = null;
        next.end().catch(() => {});
        scheduleReconnect();
      }
    });
    await next.connect();
    for (const channel of handlers.keys()) {
      await next.query(`listen ${quote(channel)}`);
    }
    client = next;
    return next;
  }

  function scheduleReconnect(): void {
    if (closed || retry !== null) {
      return;
    }
    retry = setTimeout(() => {
      retry = null;
      ensure().catch(() => scheduleReconnect());
    }, 1000);
    retry.unref();
  }

  function ensure(): Promise<pg.Client> {
    if (client !== null) {
      return Promise.resolve(client);
    }
    connecting ??= connect().catch((error: unknown) => {
      connecting = null;
      throw error;
    });
    return connecting;
  }

  return {
    async listen(channel: string, onNotify: Handler): Promise<() => Promise<void>> {
      const first = !handlers.has(channel);
      const set = handlers.get(channel) ?? new Set<Handler>();
      set.add(onNotify);
      handlers.set(channel, set);
      const active = await ensure();
      if (first && active === client) {
        await active.query(`listen ${quote(channel)}`);
      }
      return async () => {
        set.delete(onNotify);
        if (set.size === 0) {
          handlers.delete(channel);
          await client?.query(`unlisten ${quote(channel)}`).catch(() => {});
        }
      };
    },
    async close(): Promise<void> {
      closed = true;
      if (retry !== null) {
        clearTimeout(retry);
      }
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
