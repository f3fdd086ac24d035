/**
 * The `pg` pool behind a PostgreSQL handle, with a deadline on every wait (issue 19): opening a
 * connection and waiting for a pooled one (`connectionTimeoutMillis`), each statement on the server
 * (`statement_timeout`) and, a little later, on the client (`query_timeout`), which is what ends a
 * call whose network path went silent (a partition answers nothing, not even a reset).
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

/** Connection settings shared by the pool and the LISTEN connection. */
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
    ...(timeouts.statementTimeoutMs > 0
      ? {
          statement_timeout: timeouts.statementTimeoutMs,
          query_timeout: readTimeoutMs(timeouts.statementTimeoutMs),
        }
      : {}),
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

/**
 * The pool as Kysely's PostgresDialect takes it. Kysely hands clients back with `release()`, which
 * keeps them; but a client whose call timed out on the client side still has that statement in
 * flight (`pg` leaves it on the connection), and the next borrower would queue behind it on a path
 * that may be dead. A client that met an unavailability error is therefore destroyed on release.
 */
export function poolForKysely(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken = false;
      const query = async (sql: string, parameters: readonly unknown[]) => {
        try {
          return await client.query(sql, [...parameters]);
        } catch (error) {
          if (isDatabaseUnavailable(error)) {
            broken = true;
          }
          throw error;
        }
      };
      return {
        // Only the (sql, parameters) form, which is what `pg`'s own client answers (Kysely's type
        // also has a cursor form, unused: the dialect is built without a cursor class).
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(broken || undefined),
      };
    },
    end: () => pool.end(),
  };
}
