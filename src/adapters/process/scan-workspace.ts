/**
 * What a scanner process is given besides its argv: an allowlisted environment and a private
 * working directory of its own. The service's environment holds DATABASE_URL, JWT_SECRET, REDIS_URL
 * and cloud credentials; none of it may reach a scanner, which parses hostile input.
 */
import { chmod, chown, mkdtemp } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { removeTree } from './remove-tree.js';
import { ownWorkspaceDir } from './workspace-owners.js';

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const DEFAULT_LOCALE = 'C.UTF-8';
const MAX_PREFIX_LENGTH = 48;

/**
 * The only environment a scanner sees: an allowlist, never the service's own process.env.
 *
 * Keeps PATH (a standard one when absent), LANG and LC_ALL (each `C.UTF-8` when absent, so tools
 * print the English, dot-decimal output our parsers expect unless the operator chose otherwise)
 * and TZ when present; HOME and TMPDIR point at the scan's work directory so tools write their
 * caches and temp files where they are removed with it.
 */
export function scannerEnvironment(
  parentEnv: Readonly<Record<string, string | undefined>>,
  workDir: string,
): Record<string, string> {
  if (!isAbsolute(workDir)) {
    throw new TypeError(`scannerEnvironment: workDir must be an absolute path, got "${workDir}"`);
  }
  const env: Record<string, string> = {
    PATH: present(parentEnv.PATH) ?? DEFAULT_PATH,
    LANG: present(parentEnv.LANG) ?? DEFAULT_LOCALE,
    LC_ALL: present(parentEnv.LC_ALL) ?? DEFAULT_LOCALE,
    HOME: workDir,
    TMPDIR: workDir,
  };
  const tz = present(parentEnv.TZ);
  if (tz !== undefined) {
    env.TZ = tz;
  }
  return env;
}

/** The user a sandboxed scanner runs as: its workspace is given to it (see sandbox.ts). */
export interface WorkspaceOwner {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Runs `work` with a fresh private temp directory (mode 0700) in this process's workspace
 * directory (workspace-owners.ts: `<tmpdir>/rampart-<uid>/<this process>/`, so that what a killed
 * worker leaves is recognised and removed by the next start) or in `baseDir`, removed afterwards
 * even when work throws. With `owner`, the directory belongs to that user (the
 * sandboxed scanner's only writable place); the service, as root, still reads and removes it.
 *
 * The directory is named `<prefix>-XXXXXX`, the prefix reduced to `[a-z0-9-]` so a scan id or
 * engine name cannot steer the path. If `work` throws, its error is what the caller sees, even
 * when removal fails too; if only removal fails, that error is thrown, because a left-behind
 * directory may hold scan output.
 */
export async function withScanWorkspace<T>(
  prefix: string,
  work: (dir: string) => Promise<T>,
  baseDir?: string,
  owner?: WorkspaceOwner,
): Promise<T> {
  const base = baseDir ?? (await ownWorkspaceDir());
  const dir = await mkdtemp(join(base, `${sanitizePrefix(prefix)}-`));
  let result: T;
  try {
    // mkdtemp already creates 0700 (less any umask bits); say it explicitly, it is the point.
    await chmod(dir, 0o700);
    if (owner !== undefined) {
      await chown(dir, owner.uid, owner.gid);
    }
    result = await work(dir);
  } catch (error) {
    await removeTree(dir).catch(() => undefined);
    throw error;
  }
  await removeTree(dir);
  return result;
}

function sanitizePrefix(prefix: string): string {
  const cleaned = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, MAX_PREFIX_LENGTH)
    .replace(/^-+|-+$/g, '');
  return cleaned === '' ? 'scan' : cleaned;
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
