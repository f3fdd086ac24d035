/**
 * The `pg` pool behind a PostgreSQL handle, with a deadline on every wait (issue 19): opening a
 * connection and waiting for a pooled one (`connectionTimeoutMillis`), each statement on the server
 * (`statement_timeout`) and, a little later, on the client (`queryWithin`'s read timeout), which is
 * what ends a call whose network path went silent (a partition answers nothing, not even a reset).
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { isDatabaseUnavailable } from './database-errors.js';

export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a pooled one (DATABASE_CONNECT_TIMEOUT_MS). */
  readonly connectTimeoutMs: number;
  /** The server's statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS); 0: none (migrations). */
  readonly statementTimeoutMs: number;
}

/** The configuration's defaults (config/load-config.ts), for handles opened without it (tests). */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
};

/**
 * How much longer than statement_timeout the client waits for an answer: long enough for the
 * server's own cancel (SQLSTATE 57014, the better error) to arrive first over a slow link.
 */
const READ_TIMEOUT_MARGIN_MS = 1_000;

/** TCP keepalive probes start after this much silence (the OS default is two hours). */
const KEEPALIVE_DELAY_MS = 10_000;

/** The client-side read timeout that goes with a statement timeout (0: none). */
export function readTimeoutMs(statementTimeoutMs: number): number {
  return statementTimeoutMs === 0 ? 0 : statementTimeoutMs + READ_TIMEOUT_MARGIN_MS;
}

/**
 * Connection settings shared by the pool and the LISTEN connection. No `query_timeout`: the pool's
 * statements get their client-side read timeout from `queryWithin` (see there why), the LISTEN
 * connection sets its own.
 */
export function clientSettings(
  databaseUrl: string,
  schema: string | undefined,
  timeouts: DatabaseTimeouts,
): pg.ClientConfig {
  return {
    connectionString: databaseUrl,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(timeouts.statementTimeoutMs > 0 ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
  };
}

export function createPgPool(
  databaseUrl: string,
  options: { schema?: string; poolSize?: number; timeouts: DatabaseTimeouts },
): pg.Pool {
  const pool = new pg.Pool({
    ...clientSettings(databaseUrl, options.schema, options.timeouts),
    max: options.poolSize ?? 10,
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // So must a client a transaction or query holds: `pg` emits the lost connection as an 'error'
  // event on it, which ends the process when nobody listens. The statement in flight fails with
  // the same error (its caller sees it), and the pool drops the dead client when it comes back.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

/** What a statement answers: its rows, and what it did. */
export type QueryRows = Pick<pg.QueryResult, 'command' | 'rowCount' | 'rows'>;

/** The error of a statement the client gave up on: `pg`'s own wording for its `query_timeout`. */
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * One statement on `client`, given up after `readTimeoutMs` (0: never) with the error `pg`'s
 * `query_timeout` gives ('Query read timeout', an unavailability: the caller destroys the client,
 * whose statement is still in flight).
 *
 * Not `pg`'s `query_timeout`, nor its promise form of `client.query`: with either, measured on
 * 100,000 findings read in pages of 500 (bench/sarif-export.ts), the rows of nearly every statement
 * survived the next young-generation collections and were promoted to the old generation (110 MB
 * of 270 MB allocated, against 3 MB here), though nothing reachable held them once read: both wrap
 * the callback in per-query closures (a timer's, a `.catch`'s), and a reproduction in plain Node,
 * such a wrapper around the callback of a socket read, promotes the same way. That garbage grew
 * until the next full collection, 60 to 90 MB above the live heap, and was most of the API
 * process's peak memory during an export (bench: 241 MB, now 139 MB with 135 MB before it).
 */
export function queryWithin(
  client: pg.ClientBase,
  query: pg.QueryConfig,
  readTimeoutMs: number,
): Promise<QueryRows> {
  return new Promise((resolve, reject) => {
    const timer =
      readTimeoutMs > 0
        ? setTimeout(() => reject(new Error(READ_TIMEOUT_MESSAGE)), readTimeoutMs)
        : undefined;
    // The callback form (it returns nothing; the answer comes to the callback).
    void client.query(query, (error: Error | undefined, result: pg.QueryResult) => {
      clearTimeout(timer);
      if (error) {
        reject(error);
      } else {
        resolve({ command: result.command, rowCount: result.rowCount, rows: result.rows });
      }
    });
  });
}

/**
 * One statement on a client of `pool` (`pool.query` with `queryWithin`'s read timeout): the client
 * goes back to the pool after it, and is destroyed after any error, as `pool.query` does.
 */
export async function poolQuery(
  pool: pg.Pool,
  query: pg.QueryConfig,
  readTimeoutMs: number,
): Promise<QueryRows> {
  const client = await pool.connect();
  try {
    const result = await queryWithin(client, query, readTimeoutMs);
    client.release();
    return result;
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

/** A statement refused on a client an earlier one found unavailable (its cause: that error). */
const ABANDONED_MESSAGE =
  'Connection terminated: an earlier statement found the database unavailable';

/**
 * The pool as Kysely's PostgresDialect takes it. Kysely hands clients back with `release()`, which
 * keeps them; but a client whose call timed out on the client side still has that statement in
 * flight (`pg` leaves it on the connection), and the next borrower would queue behind it on a path
 * that may be dead. A client that met an unavailability error is therefore destroyed on release,
 * and refuses any further statement at once: a transaction's ROLLBACK after its statement timed
 * out would otherwise wait a second read timeout behind that statement before the caller hears.
 */
export function poolForKysely(pool: pg.Pool, readTimeoutMs: number): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let brokenBy: { cause: unknown } | undefined;
      const query = async (sql: string, parameters: readonly unknown[]) => {
        if (brokenBy !== undefined) {
          throw new Error(ABANDONED_MESSAGE, brokenBy);
        }
        try {
          return await queryWithin(client, { text: sql, values: [...parameters] }, readTimeoutMs);
        } catch (error) {
          if (isDatabaseUnavailable(error)) {
            brokenBy = { cause: error };
          }
          if (error instanceof Error) {
            // What `pg`'s promise form does: a stack that leads back to the caller, not to the
            // socket read that brought the error.
            Error.captureStackTrace(error);
          }
          throw error;
        }
      };
      return {
        // Only the (sql, parameters) form, which is what `pg`'s own client answers (Kysely's type
        // also has a cursor form, unused: the dialect is built without a cursor class).
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(brokenBy !== undefined || undefined),
      };
    },
    end: () => pool.end(),
  };
}
