/**
 * `rampart migrate` (`npm run migrate`, the Kubernetes migration Job's command) as a real process
 * on the suite's backend: it applies every migration to an empty database and exits 0; run again,
 * it finds nothing to do and exits 0 too.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { connectPglite, openPglite } from '../../src/adapters/db/connect.js';
import { MIGRATIONS } from '../../src/adapters/db/migrations/index.js';
import { builtEntry } from '../support/builds.js';
import { createServiceDatabase, type ServiceDatabase } from '../support/database.js';

const run = promisify(execFile);

async function migrateCommand(env: Readonly<Record<string, string>>) {
  return run(process.execPath, [builtEntry('cli/main'), 'migrate'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 60_000,
  });
}

/** The versions in rampart_migrations, read without going through the migrator. */
async function appliedVersions(env: Readonly<Record<string, string>>): Promise<number[]> {
  if (env.DATABASE_URL !== undefined) {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    try {
      const result = await client.query<{ version: number }>(
        'select version from rampart_migrations order by version',
      );
      return result.rows.map((row) => row.version);
    } finally {
      await client.end();
    }
  }
  const dataDir = env.DATA_DIR ?? '';
  const handle = connectPglite((await openPglite(dataDir)).pglite, true);
  try {
    const result = await sql<{ version: number }>`
      select version from rampart_migrations order by version`.execute(handle.db);
    return result.rows.map((row) => row.version);
  } finally {
    await handle.close();
  }
}

describe('rampart migrate', () => {
  let database: ServiceDatabase | null = null;
  afterAll(async () => {
    await database?.destroy();
  });

  it('applies every migration to an empty database and exits; a second run changes nothing', async () => {
    database = await createServiceDatabase('migrate');
    const first = await migrateCommand(database.env);
    expect(first.stderr).toMatch(/^migrated: /m);
    const versions = MIGRATIONS.map((migration) => migration.version);
    expect(await appliedVersions(database.env)).toEqual(versions);
    await migrateCommand(database.env);
    expect(await appliedVersions(database.env)).toEqual(versions);
  }, 120_000);

  it('refuses arguments as a usage error, exit code 2 (README "CLI")', async () => {
    await expect(
      run(process.execPath, [builtEntry('cli/main'), 'migrate', '--now'], {
        env: { PATH: process.env.PATH ?? '' },
      }),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option '--now'") });
  });
});
