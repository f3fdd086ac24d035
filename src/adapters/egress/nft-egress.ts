/**
 * Loads the scanner user's egress rules (egress-ruleset.ts) into the kernel while a worker process
 * runs, and removes them when the last worker process of this machine stops.
 *
 * Several worker processes share one table, since they share the scanner user. Each registers as a
 * holder: a file `<pid>.<random>` under `<stateDir>/<table>.d` holding its process's start time, so
 * a holder whose process died (or whose pid was reused) is recognised and ignored. Registering and
 * loading the rules, and unregistering and deleting the table when no live holder is left, each
 * happen under an exclusive flock(1) on `<stateDir>/<table>.lock`: a worker stopping can then never
 * delete the table another one has just loaded. The kernel drops the lock with the process holding
 * it, so a crash leaves no stale lock; a crashed worker's table stays (refusing, as before) until
 * the next worker start replaces it or the last worker stops.
 *
 * `nft` and `flock` run with argument arrays and their input on stdin, never through a shell.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deleteEgressTable, type EgressPolicy, egressRuleset } from './egress-ruleset.js';

export const DEFAULT_EGRESS_STATE_DIR = '/run/rampart/egress';

export interface EgressRulesOptions {
  readonly policy: EgressPolicy;
  /** Where holder files and the lock live; default /run/rampart/egress. */
  readonly stateDir?: string;
  /** The PATH `nft` and `flock` are found on. */
  readonly pathEnv: string;
}

/** The rules one worker process holds; release once, after its workers stopped. */
export interface EgressRules {
  readonly table: string;
  release(): Promise<void>;
}

const LOCK_TIMEOUT_MS = 30_000;

/** Runs `command args` with `input` on stdin; rejects with its first stderr line on failure. */
function run(command: string, args: readonly string[], input: string, pathEnv: string) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, [...args], {
      env: { PATH: pathEnv, LANG: 'C' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    // A command that fails at once closes its stdin; its exit code tells why, not the EPIPE.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      if (code === 0) {
        resolve();
      } else {
        const line = stderr.split('\n').find((text) => text.trim() !== '') ?? '';
        reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${line.trim()}`));
      }
    });
    child.stdin.end(input);
  });
}

/** Loads a ruleset text in one nft transaction. */
export function loadRuleset(text: string, pathEnv: string): Promise<void> {
  return run('nft', ['-f', '-'], text, pathEnv);
}

/**
 * Holds an exclusive flock on `path` while `work` runs. flock(1) takes the lock, then runs cat,
 * whose echo of a line says the lock is held; closing cat's stdin ends it and frees the lock.
 */
async function withLock<T>(path: string, pathEnv: string, work: () => Promise<T>): Promise<T> {
  const child: ChildProcess = spawn('flock', ['--exclusive', '--timeout', '30', path, 'cat'], {
    env: { PATH: pathEnv, LANG: 'C' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', resolve);
    child.on('error', () => resolve(null));
  });
  const locked = new Promise<boolean>((resolve) => {
    child.stdout?.once('data', () => resolve(true));
    void exited.then(() => resolve(false));
    setTimeout(() => resolve(false), LOCK_TIMEOUT_MS).unref();
  });
  child.stdin?.on('error', () => undefined);
  child.stdin?.write('locked\n');
  try {
    if (!(await locked)) {
      throw new Error(`could not lock ${path} (flock, util-linux)`);
    }
    return await work();
  } finally {
    child.stdin?.end();
    await exited;
  }
}

/** The start time of a process (field 22 of /proc/<pid>/stat), or null when it is gone. */
async function startTimeOf(pid: number | 'self'): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; the fields after it do not.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Removes the files of holders whose process is gone; answers how many live ones remain. */
async function pruneHolders(dir: string): Promise<number> {
  let live = 0;
  for (const name of await readdir(dir)) {
    const pid = Number(name.split('.')[0]);
    const recorded = await readFile(join(dir, name), 'utf8').catch(() => null);
    if (Number.isInteger(pid) && recorded !== null && (await startTimeOf(pid)) === recorded) {
      live += 1;
    } else {
      await unlink(join(dir, name)).catch(() => undefined);
    }
  }
  return live;
}

/**
 * Registers this process as a holder of `policy.table` and loads the rules (replacing whatever the
 * table held). Rejects when nft or flock fails; nothing is left registered then.
 */
export async function holdEgressRules(options: EgressRulesOptions): Promise<EgressRules> {
  const { policy, pathEnv } = options;
  const stateDir = options.stateDir ?? DEFAULT_EGRESS_STATE_DIR;
  const dir = join(stateDir, `${policy.table}.d`);
  const lock = join(stateDir, `${policy.table}.lock`);
  const holder = join(dir, `${process.pid}.${randomBytes(6).toString('hex')}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const started = await startTimeOf('self');
  await withLock(lock, pathEnv, async () => {
    await pruneHolders(dir);
    await writeFile(holder, started ?? '', { mode: 0o600 });
    try {
      await loadRuleset(egressRuleset(policy), pathEnv);
    } catch (error) {
      await unlink(holder).catch(() => undefined);
      throw error;
    }
  });
  let released = false;
  return {
    table: policy.table,
    async release() {
      if (released) {
        return;
      }
      released = true;
      await withLock(lock, pathEnv, async () => {
        await unlink(holder).catch(() => undefined);
        if ((await pruneHolders(dir)) === 0) {
          await loadRuleset(deleteEgressTable(policy.table), pathEnv);
        }
      });
    },
  };
}
