/**
 * LISTEN on PostgreSQL needs a connection of its own (a pooled one would be handed to other
 * queries). It is opened on the first subscription and kept until the database goes away, then
 * replaced, as often as it takes, until the database is back:
 *
 * - a cut or reset connection emits an error: dropped at once;
 * - a silent one (a partition, a frozen path) emits nothing, so a `select 1` runs on it every
 *   `connectTimeoutMs` and must answer within as long; a late answer drops it;
 * - each reconnect attempt must open within `connectTimeoutMs`; a refused or silent attempt is
 *   retried a second later, and the new connection subscribes to every channel again.
 *
 * Notifications sent while no connection listens are lost; callers keep a slow poll for those.
 */
import pg from 'pg';
import { clientSettings, type DatabaseTimeouts } from './pg-pool.js';

type Handler = (payload: string) => void;

const RECONNECT_DELAY_MS = 1_000;

export interface PgListener {
  listen(channel: string, onNotify: Handler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export function createPgListener(
  databaseUrl: string,
  schema: string | undefined,
  timeouts: DatabaseTimeouts,
): PgListener {
  const handlers = new Map<string, Set<Handler>>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  let checking = false;
  const settings: pg.ClientConfig = {
    ...clientSettings(databaseUrl, schema, { ...timeouts, statementTimeoutMs: 0 }),
    // Its statements (listen, unlisten, the check) are tiny: each must answer as fast as a connect.
    query_timeout: timeouts.connectTimeoutMs,
  };

  const quote = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  /** Ends a connection that failed (a client with a statement in flight is destroyed at once). */
  function drop(which: pg.Client): void {
    which.end().catch(() => {});
    if (client === which) {
      client = null;
      scheduleReconnect();
    }
  }

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client(settings);
    next.on('notification', (message) => {
      for (const handler of handlers.get(message.channel) ?? []) {
        handler(message.payload ?? '');
      }
    });
    next.on('error', () => drop(next));
    try {
      await next.connect();
      for (const channel of handlers.keys()) {
        await next.query(`listen ${quote(channel)}`);
      }
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    }
    if (closed) {
      await next.end().catch(() => {});
      throw new Error('the listener is closed');
    }
    client = next;
    return next;
  }

  function ensure(): Promise<pg.Client> {
    if (client !== null) {
      return Promise.resolve(client);
    }
    connecting ??= connect().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  function scheduleReconnect(): void {
    if (closed || retry !== null) {
      return;
    }
    retry = setTimeout(() => {
      retry = null;
      ensure().catch(() => scheduleReconnect());
    }, RECONNECT_DELAY_MS);
    retry.unref();
  }

  async function check(): Promise<void> {
    const current = client;
    if (current === null || checking) {
      return;
    }
    checking = true;
    try {
      await current.query('select 1');
    } catch {
      drop(current);
    } finally {
      checking = false;
    }
  }

  const checkTimer = setInterval(() => void check(), timeouts.connectTimeoutMs);
  checkTimer.unref();

  return {
    async listen(channel, onNotify) {
      const first = !handlers.has(channel);
      const set = handlers.get(channel) ?? new Set<Handler>();
      set.add(onNotify);
      handlers.set(channel, set);
      // A connection opened from now on subscribes to the channel by itself; one open already
      // needs telling. While the database is away the subscription waits for the reconnect.
      try {
        const active = await ensure();
        if (first) {
          await active.query(`listen ${quote(channel)}`).catch((error: unknown) => {
            drop(active);
            throw error;
          });
        }
      } catch {
        scheduleReconnect();
      }
      return async () => {
        set.delete(onNotify);
        if (set.size === 0) {
          handlers.delete(channel);
          await client?.query(`unlisten ${quote(channel)}`).catch(() => {});
        }
      };
    },
    async close() {
      closed = true;
      clearInterval(checkTimer);
      if (retry !== null) {
        clearTimeout(retry);
      }
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
