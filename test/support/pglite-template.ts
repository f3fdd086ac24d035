/**
 * A migrated PGlite, dumped once per test run and loaded by every test file that asks for an
 * in-memory database: a fresh PGlite runs initdb (~2.7 s here) and the migrations (~1.5 s), while
 * loading the dump takes ~1 s, and some seventy files each start one.
 *
 * vitest's global setup writes the dump and names it in RAMPART_TEST_PGLITE_TEMPLATE, which the
 * test processes inherit; without it (the benches, a single file run by hand without the global
 * setup) createTestDatabase migrates a fresh instance as before.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { connectPglite } from '../../src/adapters/db/connect.js';
import { migrate } from '../../src/adapters/db/migrate.js';

const TEMPLATE_VARIABLE = 'RAMPART_TEST_PGLITE_TEMPLATE';

/** Writes the migrated dump, names it for the test processes, and returns its removal. */
export async function writePgliteTemplate(): Promise<() => Promise<void>> {
  const existing = process.env[TEMPLATE_VARIABLE];
  if (existing !== undefined) {
    // A second project of the same run: the dump is already there.
    return async () => {};
  }
  const pglite = await PGlite.create();
  try {
    await migrate(connectPglite(pglite, false).db);
    const dump = await pglite.dumpDataDir('none');
    const dir = await mkdtemp(join(tmpdir(), 'rampart-pglite-template-'));
    const file = join(dir, 'migrated.tar');
    await writeFile(file, Buffer.from(await dump.arrayBuffer()));
    process.env[TEMPLATE_VARIABLE] = file;
    return async () => {
      delete process.env[TEMPLATE_VARIABLE];
      await rm(dir, { recursive: true, force: true });
    };
  } finally {
    await pglite.close();
  }
}

/**
 * An in-memory PGlite holding the migrated schema: loaded from the run's dump when there is one,
 * otherwise created empty (the caller migrates either way; on the dump that finds nothing to do).
 */
export async function openTemplatePglite(): Promise<PGlite> {
  const file = process.env[TEMPLATE_VARIABLE];
  if (file === undefined) {
    return PGlite.create();
  }
  return PGlite.create({ loadDataDir: new Blob([await readFile(file)]) });
}
