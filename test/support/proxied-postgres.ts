/**
 * A migrated schema of its own on the machine's PostgreSQL (RAMPART_TEST_DATABASE_URL, or
 * 127.0.0.1:5432/test as postgres-connection-loss.test.ts uses it, whatever the suite's backend:
 * PGlite has no network to lose), with TCP proxies (tcp-proxy.ts) in front of it. The service's
 * handles and processes go through a proxy, so the test takes the database away from them and
 * from nobody else; the test's own checks use `direct`, which no fault touches.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectPostgres, type DatabaseHandle } from '../../src/adapters/db/connect.js';
import { migrate } from '../../src/adapters/db/migrate.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

export const POSTGRES_URL =
  process.env.RAMPART_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ProxiedPostgres {
  readonly schema: string;
  /** The test's own handle on the schema, straight to PostgreSQL. */
  readonly direct: DatabaseHandle;
  /** The first proxy. */
  readonly proxy: TcpProxy;
  /** A DATABASE_URL through the first proxy with the schema as search_path (for a process). */
  readonly proxiedUrl: string;
  /** Another proxy, for a second path that fails on its own (closed by destroy()). */
  startProxy(): Promise<TcpProxy>;
  /** A handle on the schema through `proxy` (default: the first one); closed by destroy(). */
  connectThroughProxy(proxy?: TcpProxy, poolSize?: number): DatabaseHandle;
  destroy(): Promise<void>;
}

export async function createProxiedPostgres(): Promise<ProxiedPostgres> {
  const schema = `outage_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
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
    return url;
  };
  const first = await startProxy();
  const proxiedUrl = through(first);
  proxiedUrl.searchParams.set('options', `-c search_path=${schema}`);
  return {
    schema,
    direct,
    proxy: first,
    proxiedUrl: proxiedUrl.toString(),
    startProxy,
    connectThroughProxy(proxy = first, poolSize = 4) {
      const handle = connectPostgres(through(proxy).toString(), { schema, poolSize });
      handles.push(handle);
      return handle;
    },
    async destroy() {
      await Promise.all(proxies.map((proxy) => proxy.close()));
      await Promise.all([...handles, direct].map((handle) => handle.close()));
      const cleanup = new pg.Client({ connectionString: POSTGRES_URL });
      await cleanup.connect();
      await cleanup.query(`drop schema ${schema} cascade`);
      await cleanup.end();
    },
  };
}
