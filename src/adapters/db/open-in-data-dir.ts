/**
 * Opening the embedded database in `<DATA_DIR>/pglite` at start-up, so that a failure names
 * DATA_DIR and its cause in one line, and a start that created the directory and then failed
 * removes it again. A half-initialised database is worse than none: measured with PGlite 0.5.16,
 * a first start on a 38 MiB disk left a `pglite` directory (PG_VERSION written, initdb not
 * finished) on which the next start, with space enough, failed with "Cannot read properties of
 * undefined (reading 'call')". A directory that existed before the attempt is never removed: it
 * may hold data, and its failure is for the operator to look at.
 */
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describeDataDirFailure, errorText } from '../data-dir/data-dir-failure.js';
import { ensurePrivateDataDir } from '../data-dir/private-data-dir.js';

/** Where in DATA_DIR the embedded database lives. */
export function embeddedDatabaseDir(dataDir: string): string {
  return join(dataDir, 'pglite');
}

/** Whether `path` exists; on any doubt (e.g. EACCES) yes, so that it is never removed. */
async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * Prepares the private DATA_DIR, then runs `open` on `<dataDir>/pglite`. When `open` fails, throws
 * one line naming DATA_DIR and the cause (`no space left on DATA_DIR /x`), after removing the
 * `pglite` directory if this call's `open` created it.
 */
export async function openInDataDir<T>(
  dataDir: string,
  open: (dir: string) => Promise<T>,
): Promise<T> {
  await ensurePrivateDataDir(dataDir);
  const dir = embeddedDatabaseDir(dataDir);
  const existed = await exists(dir);
  try {
    return await open(dir);
  } catch (error) {
    // Asked before the removal, which frees the space a full disk lacked.
    let reason = await describeDataDirFailure(
      dataDir,
      error,
      `the embedded database in DATA_DIR ${dataDir} could not be opened`,
      existed ? [dataDir, dir] : [dataDir],
    );
    if (!existed) {
      try {
        await rm(dir, { recursive: true, force: true });
      } catch (removal) {
        reason += `; remove the half-created ${dir} before the next start (${errorText(removal)})`;
      }
    }
    throw new Error(reason, { cause: error });
  }
}
