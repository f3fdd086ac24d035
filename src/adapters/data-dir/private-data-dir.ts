/**
 * DATA_DIR holds the embedded database and the generated JWT secret: whoever reads it can forge an
 * admin token. It is created 0700 and, when it exists already, must not be open to its group or
 * to others; the service refuses to start otherwise rather than loosen or tighten it silently (an
 * operator who made it 0755 may have reasons, and must decide). A scanner runs as another user
 * (README, "Scanner isolation"), so the directory's mode is what keeps it out.
 */
import { mkdir, stat } from 'node:fs/promises';
import { describeDataDirFailure } from './data-dir-failure.js';

const PRIVATE_DIR_MODE = 0o700;
const GROUP_OR_OTHERS = 0o077;

/** Why a directory of this mode may not hold the service's data, or null when it may. */
export function dataDirModeProblem(dir: string, mode: number): string | null {
  if ((mode & GROUP_OR_OTHERS) === 0) {
    return null;
  }
  const shown = (mode & 0o777).toString(8).padStart(4, '0');
  return `DATA_DIR ${dir} is open to its group or others (mode ${shown}); it holds the database and the JWT secret: run chmod 700 ${dir}`;
}

/**
 * Creates `dir` (mode 0700, parents as needed) unless it exists, then checks its mode. Throws with
 * the reason, in one line naming DATA_DIR, when it cannot be created (read-only, full, not ours),
 * is not a directory or is open to its group or others.
 */
export async function ensurePrivateDataDir(dir: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    info = await stat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new Error(`DATA_DIR ${dir} is not a directory`, { cause: error });
    }
    const reason = await describeDataDirFailure(dir, error, `DATA_DIR ${dir} could not be created`);
    throw new Error(reason, { cause: error });
  }
  if (!info.isDirectory()) {
    throw new Error(`DATA_DIR ${dir} is not a directory`);
  }
  const problem = dataDirModeProblem(dir, info.mode);
  if (problem !== null) {
    throw new Error(problem);
  }
}

/**
 * Runs `create` with the process umask at 077, so that what it creates at once (PGlite's files)
 * is private to this user; the umask is restored afterwards. Only for start-up, while nothing
 * else in the process creates files.
 */
export async function withPrivateUmask<T>(create: () => Promise<T>): Promise<T> {
  const previous = process.umask(0o077);
  try {
    return await create();
  } finally {
    process.umask(previous);
  }
}
