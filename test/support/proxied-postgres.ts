/**
 * A migrated schema of its own on the machine's PostgreSQL (RAMPART_TEST_DATABASE_URL, or
 * 127.0.0.1:5432/test as postgres-connection-loss.test.ts uses it, whatever the suite's backend:
 * PGlite has no network to lose), with TCP proxies (tcp-proxy.ts) in front of it. The service's
 * handles and processes go through a proxy, so the test takes the database away from them and
 * from nobody else; the test's own checks use `direct` and `admin`, which no fault touches.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectPostgres, type DatabaseHandle } from '../../src/adapters/db/connect.js';
import { migrate } from '../../src/adapters/db/migrate.js';
import type { DatabaseTimeouts } from '../../src/adapters/db/pg-pool.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export const POSTGRES_URL =
  process.env.RAMPART_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ProxiedPostgres {
  readonly schema: string;
  /** The first proxy. */
  readonly proxy: TcpProxy;
  /** The database through the first proxy, with `password` when one was given (trust auth ignores it). */
  readonly url: string;
  /** `url` with the schema as search_path, as a spawned process's DATABASE_URL. */
  readonly urlWithSchema: string;
  /** The test's own client, straight to PostgreSQL. */
  readonly admin: pg.Client;
  /** The test's own handle on the schema, straight to PostgreSQL. */
  readonly direct: DatabaseHandle;
  /** Another proxy, for a second path that fails on its own (closed by destroy()). */
  startProxy(): Promise<TcpProxy>;
  /** A handle on the schema through `proxy` (default: the first one); closed by destroy(). */
  connect(options?: {
    timeouts?: DatabaseTimeouts;
    poolSize?: number;
    proxy?: TcpProxy;
  }): DatabaseHandle;
  destroy(): Promise<void>;
}

export async function createProxiedPostgres(
  options: { password?: string } = {},
): Promise<ProxiedPostgres> {
  const schema = `outage_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const direct = connectPostgres(POSTGRES_URL, { schema, poolSize: 4 });
  await migrate(direct.db);
  const target = new URL(POSTGRES_URL);
  const proxies: TcpProxy[] = [];
  const handles: DatabaseHandle[] = [];
  const startProxy = async () => {
    const proxy = await startTcpProxy({
      host: target.hostname,
      port: Number(target.port || '5432'),
    });
    proxies.push(proxy);
    return proxy;
  };
  /** The database's URL with `proxy`'s address in place of the server's. */
  const through = (proxy: TcpProxy) => {
    const url = new URL(POSTGRES_URL);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    if (options.password !== undefined) {
      url.password = options.password;
    }
    return url;
  };
  const first = await startProxy();
  const withSchema = through(first);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return {
    schema,
    proxy: first,
    url: through(first).toString(),
    urlWithSchema: withSchema.toString(),
    admin,
    direct,
    startProxy,
    connect({ timeouts, poolSize = 4, proxy = first } = {}) {
      const handle = connectPostgres(through(proxy).toString(), {
        schema,
        poolSize,
        ...(timeouts ? { timeouts } : {}),
      });
      handles.push(handle);
      return handle;
    },
    async destroy() {
      for (const proxy of proxies) {
        proxy.accept();
        proxy.thaw();
      }
      await Promise.all([...handles, direct].map((handle) => handle.close()));
      await Promise.all(proxies.map((proxy) => proxy.close()));
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}
