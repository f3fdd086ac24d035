/**
 * Why DATA_DIR could not be used, in one line that names the setting and the cause, for the start-up
 * message (`Rampart failed to start: DATA_DIR /x is read-only`).
 *
 * Errors reach us in three shapes, each seen on this machine (README, "Start-up failures"):
 * Node's own (`code: 'EROFS'` from a mkdir or a write), PGlite's Emscripten file system
 * (`ErrnoError`, not an Error at all: `{ name: 'ErrnoError', errno: 51 }` for a full disk, 2 for a
 * pglite directory of another user), and PGlite's bare "PGlite failed to initialize properly" when
 * its server gave up on an existing database (a read-only mount, a full disk). The last says
 * nothing, so the directory itself is then asked: can we write to it, is there space left.
 */
import { constants } from 'node:fs';
import { access, statfs } from 'node:fs/promises';

/**
 * Emscripten's errno numbers (WASI's, the table in PGlite's build) for the codes we explain, so a
 * PGlite ErrnoError reads like Node's error codes.
 */
const EMSCRIPTEN_ERRNO: Readonly<Record<number, string>> = {
  2: 'EACCES',
  19: 'EDQUOT',
  29: 'EIO',
  44: 'ENOENT',
  51: 'ENOSPC',
  54: 'ENOTDIR',
  63: 'EPERM',
  69: 'EROFS',
};

/** SQLSTATE disk_full: PostgreSQL's own words for a full disk (PGlite reports it too). */
const DISK_FULL_SQLSTATE = '53100';

/**
 * The errno name of a file-system error: Node's `code`, an Emscripten ErrnoError's number, or
 * SQLSTATE disk_full as ENOSPC. Undefined for anything else.
 */
export function fileSystemErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) {
    return undefined;
  }
  const { code, errno, name } = error as { code?: unknown; errno?: unknown; name?: unknown };
  if (code === DISK_FULL_SQLSTATE) {
    return 'ENOSPC';
  }
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return code;
  }
  if (name === 'ErrnoError' && typeof errno === 'number') {
    return EMSCRIPTEN_ERRNO[errno] ?? `errno ${errno}`;
  }
  return undefined;
}

/** What the error says, on one line, whatever its shape (an ErrnoError has no message). */
export function errorText(error: unknown): string {
  let text: string;
  if (error instanceof AggregateError && error.message === '') {
    // Node's connect to every address of a name (`localhost`: ::1 and 127.0.0.1) fails this way.
    text = error.errors.map(errorText).join(', ') || error.name;
  } else if (error instanceof Error) {
    text = error.message || error.name;
  } else if (typeof error === 'object' && error !== null) {
    const { name, errno } = error as { name?: unknown; errno?: unknown };
    text = [name, errno].filter((part) => part !== undefined).join(' ') || 'unknown error';
  } else {
    text = String(error);
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** The cause named by an errno, as the end of `DATA_DIR /x …`; null when it names none of ours. */
function causeOf(code: string | undefined, dataDir: string): string | null {
  switch (code) {
    case 'EROFS':
      return `DATA_DIR ${dataDir} is read-only`;
    case 'ENOSPC':
      return `no space left on DATA_DIR ${dataDir}`;
    case 'EDQUOT':
      return `the disk quota of DATA_DIR ${dataDir} is used up`;
    case 'EACCES':
    case 'EPERM':
      return `DATA_DIR ${dataDir} is not writable (permission denied for uid ${process.getuid?.() ?? 'unknown'})`;
    case 'ENOTDIR':
      return `a part of the path of DATA_DIR ${dataDir} is not a directory`;
    default:
      return null;
  }
}

/**
 * Asks the directory why it could not be used: not writable (read-only mount, permissions), or
 * no space or inodes left. Null when it answers that all is well, or cannot be asked.
 */
async function probeCause(dataDir: string, paths: readonly string[]): Promise<string | null> {
  for (const path of paths) {
    try {
      await access(path, constants.W_OK);
    } catch (error) {
      const cause = causeOf(fileSystemErrorCode(error), dataDir);
      if (cause !== null) {
        return cause;
      }
    }
  }
  try {
    const space = await statfs(dataDir);
    // Root may write into the blocks reserved for it; others only into the available ones.
    const freeBlocks = process.getuid?.() === 0 ? space.bfree : space.bavail;
    if (freeBlocks === 0 || space.ffree === 0) {
      return causeOf('ENOSPC', dataDir);
    }
  } catch {
    // Nothing more to learn.
  }
  return null;
}

/**
 * The one-line reason why work in DATA_DIR failed with `error`: the cause when the error or the
 * directory names one, else `failed` (`the embedded database in DATA_DIR /x could not be opened`)
 * and what the error says. `paths` are those the work writes to (DATA_DIR and what it made
 * there), asked when the error itself names no cause.
 */
export async function describeDataDirFailure(
  dataDir: string,
  error: unknown,
  failed: string,
  paths: readonly string[] = [dataDir],
): Promise<string> {
  const named = causeOf(fileSystemErrorCode(error), dataDir);
  if (named !== null) {
    return named;
  }
  const probed = await probeCause(dataDir, paths);
  if (probed !== null) {
    return probed;
  }
  return `${failed}: ${errorText(error)}`;
}
