/**
 * Whose scan workspaces are whose, so that what a killed worker left is removed by the next start
 * and a live process's workspace never is. Every workspace lives in a directory of the process
 * that made it:
 *
 *   <tmpdir>/rampart-<uid>/<pid>-<start>-<pid namespace>-<boot id>/<prefix>-XXXXXX
 *
 * Short on purpose: a tool's Unix sockets live in its workspace (Python's multiprocessing, which
 * sublist3r uses, puts `pymp-XXXXXXXX/listener-XXXXXXXX` in TMPDIR), and a socket path has at most
 * 107 bytes; so the boot id is its first 8 hex digits (a later boot with the same 8 is a 1 in 4
 * billion chance, and then the pid and start time must match too).
 *
 * A pid alone is no name: pids are reused. With the start time (field 22 of /proc/<pid>/stat, in
 * clock ticks after boot), the pid namespace it counts in and the boot it counts from, the name
 * belongs to one process ever. Such a process is gone when the machine booted since, or its pid
 * is free, a zombie, or taken by a process with another start; a directory of another pid
 * namespace (a container sharing the temporary directory) cannot be judged from here and is kept,
 * as is any name that is not of this form.
 *
 * The root is per user (the service as root and a developer's instance never share it), created
 * 0700 and refused when it is not a private directory of ours: in a world-writable /tmp another
 * user could otherwise have planted it, or a link in its place.
 *
 * Linux only: where /proc does not name this process, workspaces go straight into the temporary
 * directory as before, and nothing is cleaned.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCode, parseProcStat } from './process-group.js';
import { removeTree } from './remove-tree.js';

/** One process, for as long as the machine runs. */
export interface ProcessOwner {
  readonly pid: number;
  /** Clock ticks after boot, as /proc/<pid>/stat writes it. */
  readonly startTime: string;
  /** The inode of the pid namespace the pid counts in (`/proc/self/ns/pid`). */
  readonly pidNamespace: string;
  /** The first 8 hex digits of /proc/sys/kernel/random/boot_id. */
  readonly bootId: string;
}

const OWNER_NAME = /^(\d+)-(\d+)-(\d+)-([0-9a-f]{8})$/;

/** The directory name of `owner`'s workspaces. */
export function ownerDirName(owner: ProcessOwner): string {
  return `${owner.pid}-${owner.startTime}-${owner.pidNamespace}-${owner.bootId}`;
}

/** The owner a directory name stands for, or null when it is no owner's name. */
export function parseOwnerDirName(name: string): ProcessOwner | null {
  const match = OWNER_NAME.exec(name);
  if (match === null) {
    return null;
  }
  const [, pid = '', startTime = '', pidNamespace = '', bootId = ''] = match;
  return { pid: Number(pid), startTime, pidNamespace, bootId };
}

/**
 * Whether `owner` still runs, as seen by `here` (this process) with `statOf` reading
 * /proc/<pid>/stat (null: no such process; it throws when /proc would not say).
 */
export function ownerState(
  owner: ProcessOwner,
  here: ProcessOwner,
  statOf: (pid: number) => string | null,
): 'running' | 'gone' | 'unknown' {
  if (owner.bootId !== here.bootId) {
    return 'gone';
  }
  if (owner.pidNamespace !== here.pidNamespace) {
    return 'unknown';
  }
  let stat: string | null;
  try {
    stat = statOf(owner.pid);
  } catch {
    return 'unknown';
  }
  const entry = stat === null ? undefined : parseProcStat(stat);
  if (entry === undefined || entry.state === 'Z' || entry.state === 'X') {
    return stat !== null && entry === undefined ? 'unknown' : 'gone';
  }
  return entry.startTime === owner.startTime ? 'running' : 'gone';
}

function readStat(pid: number | 'self'): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      return null;
    }
    throw error;
  }
}

let cachedThisProcess: ProcessOwner | null | undefined;

/** This process as an owner, or null where /proc does not say (not Linux). */
export function thisProcess(): ProcessOwner | null {
  if (cachedThisProcess !== undefined) {
    return cachedThisProcess;
  }
  try {
    const stat = parseProcStat(readStat('self') ?? '');
    const namespace = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().slice(0, 8);
    cachedThisProcess =
      stat?.pid === process.pid &&
      stat.startTime !== undefined &&
      namespace !== undefined &&
      /^[0-9a-f]{8}$/.test(bootId)
        ? { pid: process.pid, startTime: stat.startTime, pidNamespace: namespace, bootId }
        : null;
  } catch {
    cachedThisProcess = null;
  }
  return cachedThisProcess;
}

/** `<tmpdir>/rampart-<uid>`: where every process of this user keeps its workspaces. */
export function workspaceRoot(): string {
  return join(tmpdir(), `rampart-${process.getuid?.() ?? 'user'}`);
}

/** Creates `dir` (0700) unless it exists; then it must be a private directory of this user. */
async function ensurePrivateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') {
      throw error;
    }
  }
  const info = await lstat(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) {
    throw new Error(
      `the scan workspace directory ${dir} is not a private directory of uid ${uid}: remove it (it is made again)`,
    );
  }
}

const ownDirs = new Map<string, Promise<string>>();

/**
 * This process's workspace directory under `root` (made on first use), or the temporary
 * directory itself where the process cannot be named.
 */
export function ownWorkspaceDir(root: string = workspaceRoot()): Promise<string> {
  const owner = thisProcess();
  if (owner === null) {
    return Promise.resolve(tmpdir());
  }
  let dir = ownDirs.get(root);
  if (dir === undefined) {
    dir = (async () => {
      await ensurePrivateDir(root);
      const own = join(root, ownerDirName(owner));
      await ensurePrivateDir(own);
      return own;
    })();
    ownDirs.set(root, dir);
    // A failure is not remembered: the next workspace tries again (the caller sees the error).
    void dir.catch(() => ownDirs.delete(root));
  }
  return dir;
}

export interface LeftoverCleanup {
  /** Directories of processes that are gone, removed. */
  readonly removed: readonly string[];
  /** Processes that still ran in a removed directory (a scanner of a worker killed earlier). */
  readonly killed: readonly number[];
  /** Directories of gone processes that could not be removed, with why. */
  readonly failed: ReadonlyArray<{ readonly dir: string; readonly error: string }>;
}

/**
 * Processes whose TMPDIR lies in `dir`: the runner gives every scanner its workspace as TMPDIR
 * (scan-workspace.ts), and the tools' own children inherit it. Unreadable processes are skipped.
 */
function processesWorkingIn(dir: string): number[] {
  const marker = `TMPDIR=${dir}/`;
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) {
      continue;
    }
    try {
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8');
      if (environ.split('\0').some((entry) => entry.startsWith(marker))) {
        found.push(Number(name));
      }
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/**
 * Removes the workspace directories under `root` whose process is gone, after killing whatever
 * still runs in them (a scanner that outlived its worker: no parent-death signal without setpriv,
 * or a child the tool started). Running and unknown owners' directories, and names that are no
 * owner's, are left alone. Throws only when `root` is not a private directory of this user.
 */
export async function removeLeftoverWorkspaces(
  root: string = workspaceRoot(),
): Promise<LeftoverCleanup> {
  const here = thisProcess();
  const removed: string[] = [];
  const killed: number[] = [];
  const failed: Array<{ dir: string; error: string }> = [];
  if (here === null) {
    return { removed, killed, failed };
  }
  await ensurePrivateDir(root);
  for (const name of await readdir(root)) {
    const owner = parseOwnerDirName(name);
    if (owner === null || ownerState(owner, here, readStat) !== 'gone') {
      continue;
    }
    const dir = join(root, name);
    try {
      for (const pid of processesWorkingIn(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
          killed.push(pid);
        } catch {
          // Ended meanwhile.
        }
      }
      await removeTree(dir);
      removed.push(dir);
    } catch (error) {
      failed.push({ dir, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { removed, killed, failed };
}
