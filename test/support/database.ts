/**
 * A fresh database per test file: an in-memory PGlite by default, or, when
 * RAMPART_TEST_DATABASE_URL is set, a new schema in that PostgreSQL (dropped afterwards), so runs
 * and files never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  connectPglite,
  connectPostgres,
  type DatabaseHandle,
} from '../../src/adapters/db/connect.js';
import { migrate } from '../../src/adapters/db/migrate.js';
import { openTemplatePglite } from './pglite-template.js';

export const TEST_DATABASE_URL = process.env.RAMPART_TEST_DATABASE_URL ?? null;
export const BACKEND = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDatabase {
  readonly handle: DatabaseHandle;
  /** Opens another handle on the same database (a second "node"); closed by destroy(). */
  connectAgain(): DatabaseHandle;
  destroy(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DATABASE_URL) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const extra: DatabaseHandle[] = [];
    const handle = connectPostgres(TEST_DATABASE_URL, { schema, poolSize: 5 });
    await migrate(handle.db);
    return {
      handle,
      connectAgain() {
        const again = connectPostgres(TEST_DATABASE_URL, { schema, poolSize: 5 });
        extra.push(again);
        return again;
      },
      async destroy() {
        await Promise.all([handle, ...extra].map((h) => h.close()));
        const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await cleanup.connect();
        await cleanup.query(`drop schema ${schema} cascade`);
        await cleanup.end();
      },
    };
  }
  const pglite = await openTemplatePglite();
  const handle = connectPglite(pglite, false);
  await migrate(handle.db);
  return {
    handle,
    // PGlite lives in this process: a second "node" is a second Kysely over the same instance.
    connectAgain: () => connectPglite(pglite, false),
    async destroy() {
      await handle.close();
      await pglite.close();
    },
  };
}

/** A database for spawned service processes, as their environment names it. */
export interface ServiceDatabase {
  /** DATA_DIR (the embedded database) or DATABASE_URL (a schema of its own as search_path). */
  readonly env: Readonly<Record<string, string>>;
  /** Removes the directory or drops the schema; the processes must be gone. */
  destroy(): Promise<void>;
}

/**
 * An empty database for `npm start` / `npm run worker` processes, on the suite's backend: a new
 * DATA_DIR, or a new schema in RAMPART_TEST_DATABASE_URL. The processes migrate it as they start.
 * `name` (lower case letters) marks the directory and the schema.
 */
export async function createServiceDatabase(name: string): Promise<ServiceDatabase> {
  if (TEST_DATABASE_URL === null) {
    const dataDir = await mkdtemp(join(tmpdir(), `rampart-${name}-`));
    return {
      env: { DATA_DIR: dataDir },
      destroy: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const url = TEST_DATABASE_URL;
  const schema = `${name}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const separator = url.includes('?') ? '&' : '?';
  return {
    env: {
      DATABASE_URL: `${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    },
    async destroy() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}
