/**
 * A schema of its own in the machine's PostgreSQL (RAMPART_TEST_DATABASE_URL, or
 * 127.0.0.1:5432/test as test/e2e/postgres-connection-loss.test.ts uses it whatever the backend:
 * PGlite has no network path to lose), reached through a TCP proxy the test can cut, freeze and
 * refuse (tcp-proxy.ts), migrated. `admin` reaches the server directly, past the proxy.
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
  readonly proxy: TcpProxy;
  readonly schema: string;
  /** The database through the proxy, with `password` when one was given (trust auth ignores it). */
  readonly url: string;
  /** `url` with the schema as search_path, as a spawned process's DATABASE_URL. */
  readonly urlWithSchema: string;
  readonly admin: pg.Client;
  /** A handle through the proxy on the schema (closed by destroy()). */
  connect(timeouts: DatabaseTimeouts, poolSize?: number): DatabaseHandle;
  destroy(): Promise<void>;
}

export async function createProxiedPostgres(
  options: { password?: string } = {},
): Promise<ProxiedPostgres> {
  const direct = new URL(POSTGRES_URL);
  const schema = `outage_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const through = new URL(POSTGRES_URL);
  through.hostname = '127.0.0.1';
  through.port = String(proxy.port);
  if (options.password !== undefined) {
    through.password = options.password;
  }
  const url = through.toString();
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  const migrating = connectPostgres(POSTGRES_URL, { schema, poolSize: 1 });
  await migrate(migrating.db);
  await migrating.close();
  const handles: DatabaseHandle[] = [];
  return {
    proxy,
    schema,
    url,
    urlWithSchema: withSchema.toString(),
    admin,
    connect(timeouts, poolSize = 4) {
      const handle = connectPostgres(url, { schema, poolSize, timeouts });
      handles.push(handle);
      return handle;
    },
    async destroy() {
      proxy.accept();
      proxy.thaw();
      await Promise.all(handles.map((handle) => handle.close()));
      await proxy.close();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    },
  };
}
