/**
 * A session-level advisory lock held on a PostgreSQL connection of its own, so that one process
 * of many does a job (the metrics read from the database are reported by the one that holds it).
 * The lock lasts as long as the connection: when the holder ends or its connection drops, the next
 * process that asks takes it. Named per schema, like the other advisory locks (migrate.ts).
 */
import pg from 'pg';
import type { DatabaseTimeouts } from './pg-pool.js';
import { clientSettings } from './pg-pool.js';

export interface SessionLock {
  /** Whether this process holds the lock now; tries to take it when it does not. */
  held(): Promise<boolean>;
  close(): Promise<void>;
}

export function createSessionLock(
  databaseUrl: string,
  schema: string | undefined,
  timeouts: DatabaseTimeouts,
  name: string,
): SessionLock {
  const settings: pg.ClientConfig = {
    ...clientSettings(databaseUrl, schema, { ...timeouts, statementTimeoutMs: 0 }),
    query_timeout: timeouts.connectTimeoutMs,
  };
  let client: pg.Client | null = null;
  let holding = false;
  let closed = false;

  function drop(which: pg.Client): void {
    which.end().catch(() => {});
    if (client === which) {
      client = null;
      holding = false;
    }
  }

  async function connected(): Promise<pg.Client> {
    if (client !== null) {
      return client;
    }
    const next = new pg.Client(settings);
    next.on('error', () => drop(next));
    await next.connect().catch((error: unknown) => {
      next.end().catch(() => {});
      throw error;
    });
    client = next;
    return next;
  }

  return {
    async held() {
      if (closed) {
        return false;
      }
      try {
        const current = await connected();
        if (holding) {
          // The lock lives as long as the connection; this checks that the connection does.
          await current.query('select 1');
          return client === current;
        }
        const result = await current.query<{ locked: boolean }>(
          "select pg_try_advisory_lock(hashtext($1::text || ':' || current_schema())) as locked",
          [name],
        );
        holding = result.rows[0]?.locked === true;
        return holding;
      } catch {
        if (client !== null) {
          drop(client);
        }
        return false;
      }
    },
    async close() {
      closed = true;
      const current = client;
      client = null;
      holding = false;
      await current?.end().catch(() => {});
    },
  };
}
