/**
 * Start-up failures of the real entry points (issue 19): the server (and the worker process) on a
 * DATA_DIR that is read-only, full or not ours, on a DATABASE_URL nobody listens at, and on one
 * whose server refuses the connection (a database it does not have), prints
 * exactly one line naming the setting and the cause, exits 1, and leaves no half-created embedded
 * database behind (while one that existed before is kept).
 *
 * The file systems are real: tmpfs mounts (`-o ro`, or a tiny `size=`) and a read-only bind mount,
 * which needs root with CAP_SYS_ADMIN (CI runs as root in a VM; measured there). Permission bits
 * do not stop root, so "not writable" runs the server as `nobody` on a DATA_DIR of root's. Each
 * test mounts under a directory of its own, so parallel runs never meet.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/adapters/db/connect.js';
import { loadConfig } from '../../src/config/load-config.js';
import { openDatabase } from '../../src/main/compose.js';
import { builtEntry } from '../support/builds.js';
import { TEST_JWT_SECRET } from '../support/harness.js';
import { POSTGRES_URL } from '../support/proxied-postgres.js';
import { freePort } from '../support/service-process.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const isRoot = process.getuid?.() === 0;
/** The uid and gid of `nobody` on Debian. */
const NOBODY = 65534;

interface Ended {
  readonly code: number | null;
  readonly stderr: string;
}

/** Runs a built entry point (`src/main/<name>.ts`) to its end, as `uid` when given. */
function runEntryPoint(
  name: 'server' | 'worker-server',
  env: Record<string, string>,
  uid?: number,
): Promise<Ended> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [builtEntry(`main/${name}`)],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: tmpdir(),
          PORT: '0',
          WORKERS: '0',
          LOG_LEVEL: 'silent',
          SCANNER_SANDBOX: 'off',
          JWT_SECRET: TEST_JWT_SECRET,
          ...env,
        },
        timeout: 90_000,
        ...(uid === undefined ? {} : { uid, gid: uid }),
      },
      (error, _stdout, stderr) => {
        resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stderr });
      },
    );
  });
}

function sh(command: string, args: readonly string[]): void {
  const result = spawnSync(command, [...args], { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr.trim()}`);
  }
}

let scratch: string;
const mounts: string[] = [];
/** An embedded database made by a start that succeeded, copied where a test needs one. */
let madeDatabase: string;

/** A tmpfs of `options` (e.g. `size=8m`) at a new directory, owner-only like a DATA_DIR. */
async function tmpfs(name: string, options: string): Promise<string> {
  const dir = join(scratch, name);
  await mkdir(dir);
  sh('mount', ['-t', 'tmpfs', '-o', `${options},mode=0700`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'rampart-start-up-'));
  // `nobody` must reach the DATA_DIR of the permission test; every DATA_DIR itself is 0700.
  await chmod(scratch, 0o755);
  madeDatabase = join(scratch, 'made');
  const { pglite } = await openPglite(madeDatabase);
  await pglite.close();
}, 120_000);

afterAll(async () => {
  for (const dir of mounts.reverse()) {
    spawnSync('umount', ['-l', dir]);
  }
  await rm(scratch, { recursive: true, force: true });
});

describe.skipIf(!isRoot)('start-up on a DATA_DIR it cannot use', () => {
  it('says a read-only DATA_DIR is read-only, on the server and the worker process', async () => {
    const dataDir = await tmpfs('read-only', 'ro,size=1m');
    const server = await runEntryPoint('server', { DATA_DIR: dataDir });
    expect(server).toEqual({
      code: 1,
      stderr: `Rampart failed to start: DATA_DIR ${dataDir} is read-only\n`,
    });
    const worker = await runEntryPoint('worker-server', { DATA_DIR: dataDir });
    expect(worker).toEqual({
      code: 1,
      stderr: `Rampart workers failed to start: DATA_DIR ${dataDir} is read-only\n`,
    });
  }, 120_000);

  it('says so for a read-only DATA_DIR that holds a database (PGlite only says it failed)', async () => {
    const dataDir = join(scratch, 'read-only-bind');
    await mkdir(dataDir, { mode: 0o700 });
    sh('mount', ['--bind', '-o', 'ro', madeDatabase, dataDir]);
    mounts.push(dataDir);
    expect(await runEntryPoint('server', { DATA_DIR: dataDir })).toEqual({
      code: 1,
      stderr: `Rampart failed to start: DATA_DIR ${dataDir} is read-only\n`,
    });
    expect(await readdir(dataDir)).toEqual(['pglite']);
  }, 120_000);

  it('says there is no space left, removes the half-created database, and starts once there is room', async () => {
    const dataDir = await tmpfs('full', 'size=8m');
    expect(await runEntryPoint('server', { DATA_DIR: dataDir })).toEqual({
      code: 1,
      stderr: `Rampart failed to start: no space left on DATA_DIR ${dataDir}\n`,
    });
    expect(await readdir(dataDir)).toEqual([]);

    // The next start meets no half-initialised database: with room, it opens and migrates one.
    sh('mount', ['-o', 'remount,size=128m', dataDir]);
    const database = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
    try {
      expect(await database.health()).toEqual({ ok: true });
    } finally {
      await database.close();
    }
  }, 120_000);

  it('keeps a database that existed before, when the disk is full', async () => {
    const dataDir = await tmpfs('full-existing', 'size=48m');
    await cp(join(madeDatabase, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
    // Fill what is left: the write fails with ENOSPC once the disk is full.
    await writeFile(join(dataDir, 'filler'), Buffer.alloc(64 * 1024 * 1024)).catch(() => {});
    expect(await runEntryPoint('server', { DATA_DIR: dataDir })).toEqual({
      code: 1,
      stderr: `Rampart failed to start: no space left on DATA_DIR ${dataDir}\n`,
    });
    expect((await readdir(dataDir)).sort()).toEqual(['filler', 'pglite']);
    expect(await readdir(join(dataDir, 'pglite'))).toContain('PG_VERSION');
  }, 120_000);

  it('says DATA_DIR is not writable when it belongs to another user', async () => {
    const parent = join(scratch, 'others');
    await mkdir(parent, { mode: 0o755 });
    const dataDir = join(parent, 'data');
    await mkdir(dataDir, { mode: 0o700 });
    expect(await runEntryPoint('server', { DATA_DIR: dataDir }, NOBODY)).toEqual({
      code: 1,
      stderr: `Rampart failed to start: DATA_DIR ${dataDir} is not writable (permission denied for uid ${NOBODY})\n`,
    });
    expect(await readdir(dataDir)).toEqual([]);
  }, 120_000);
});

describe('start-up on a DATABASE_URL nobody listens at', () => {
  it('says it is unreachable, with the password hidden', async () => {
    const closed = await freePort();
    const password = `pw-${process.pid}-secret`;
    const ended = await runEntryPoint('server', {
      DATABASE_URL: `postgres://rampart:${password}@127.0.0.1:${closed}/rampart`,
    });
    expect(ended).toEqual({
      code: 1,
      stderr: `Rampart failed to start: DATABASE_URL postgres://rampart:***@127.0.0.1:${closed}/rampart is unreachable: connect ECONNREFUSED 127.0.0.1:${closed}\n`,
    });
    expect(ended.stderr).not.toContain(password);
  }, 60_000);
});

describe('start-up on a DATABASE_URL whose server says no', () => {
  it('says the server refused the connection, on the server and the worker process', async () => {
    // The machine's PostgreSQL (whatever the suite's backend, as the outage tests use it), asked
    // for a database it does not have: it answers, with SQLSTATE 3D000.
    const url = new URL(POSTGRES_URL);
    url.pathname = `/rampart_missing_${process.pid}`;
    const shown = url.toString();
    const reason = `database "rampart_missing_${process.pid}" does not exist`;
    expect(await runEntryPoint('server', { DATABASE_URL: shown })).toEqual({
      code: 1,
      stderr: `Rampart failed to start: DATABASE_URL ${shown} refused the connection: ${reason}\n`,
    });
    expect(await runEntryPoint('worker-server', { DATABASE_URL: shown })).toEqual({
      code: 1,
      stderr: `Rampart workers failed to start: DATABASE_URL ${shown} refused the connection: ${reason}\n`,
    });
  }, 60_000);
});
