/**
 * What a `kill -9` of a worker leaves, and what the next start cleans (issue 19): a real worker
 * process runs a real nmap (`-T0` against 127.0.0.2: it waits five minutes between probes) and
 * is SIGKILLed. Its scanner processes must be gone at once (unsandboxed: `setpriv --pdeathsig`;
 * sandboxed: bwrap's --die-with-parent and PID namespace), its workspace is left, and a worker
 * started again removes that workspace but not the workspace of a live process (this test's own).
 *
 * On PostgreSQL the worker is `npm run worker` (worker-server.ts) beside an API process; on the
 * embedded database, which one process owns, it is `npm start` with its in-process worker
 * (compose.ts). The sandboxed run needs what the suite's sandbox needs (test/support/sandbox.ts)
 * and uses an egress table of its own: the killed worker leaves it loaded (as a crash does) until
 * the restarted worker, the table's last holder, stops.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../src/adapters/auth-tokens/jwt.js';
import { withScanWorkspace } from '../../src/adapters/process/scan-workspace.js';
import { workspaceRoot } from '../../src/adapters/process/workspace-owners.js';
import { builtEntry } from '../support/builds.js';
import { createServiceDatabase, TEST_DATABASE_URL } from '../support/database.js';
import { SCAN_ADDRESS, TEST_JWT_SECRET } from '../support/harness.js';
import { TEST_SANDBOX } from '../support/sandbox.js';
import { TEST_SECRETS_KEY } from '../support/secrets.js';
import { freePort } from '../support/service-process.js';
import { teardownAfterAll } from '../support/teardown.js';
import { until } from '../support/until.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const teardown = teardownAfterAll();

// The workers of this file, and this file's own process, keep their workspaces under a TMPDIR of
// their own: a worker any other test file starts meanwhile removes the workspaces of gone
// processes under its TMPDIR, and must not take the killed worker's before the restart here does.
const TMPDIR = mkdtempSync(join(tmpdir(), 'rampart-worker-kill-'));
process.env.TMPDIR = TMPDIR;
teardown.add(() => rmSync(TMPDIR, { recursive: true, force: true }));

interface Started {
  readonly child: ChildProcess;
  readonly logs: string[];
}

/** Starts the built `src/main/<entry>.ts` and resolves once it is ready for work. */
async function start(
  entry: 'server' | 'worker-server',
  env: Record<string, string>,
): Promise<Started> {
  const child = spawn(process.execPath, [builtEntry(`main/${entry}`)], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      TMPDIR,
      JWT_SECRET: TEST_JWT_SECRET,
      SECRETS_KEY: TEST_SECRETS_KEY,
      LOG_LEVEL: 'info',
      ALLOW_PRIVATE_TARGETS: `${SCAN_ADDRESS}/32`,
      WORKER_CONCURRENCY: '1',
      // No restarted worker takes the killed one's scan back while the test runs.
      WORKER_LEASE_MS: '600000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  teardown.kill(child);
  const logs: string[] = [];
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    logs.push(...lines);
  });
  const ready = entry === 'server' ? 'Rampart listening' : 'Rampart workers running';
  await until(
    () => ({ exited: child.exitCode, ready: logs.some((line) => line.includes(ready)) }),
    (state) => state.ready || state.exited !== null,
    60_000,
    50,
  );
  if (child.exitCode !== null) {
    throw new Error(`${entry} exited with ${child.exitCode}: ${logs.join('\n')}`);
  }
  return { child, logs };
}

/**
 * The service as the test sees it: an API to create scans at, and a way to start a process that
 * runs workers with `env` (the API process itself on the embedded database).
 */
interface Service {
  readonly url: string;
  startWorker(env: Record<string, string>): Promise<Started>;
  stopApi(): Promise<void>;
}

async function startService(): Promise<Service> {
  const database = await createServiceDatabase('kill');
  teardown.add(() => database.destroy());
  const port = String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  if (TEST_DATABASE_URL === null) {
    return {
      url,
      startWorker: (env) => start('server', { ...database.env, PORT: port, WORKERS: '1', ...env }),
      stopApi: async () => {},
    };
  }
  const api = await start('server', { ...database.env, PORT: port, WORKERS: '0' });
  return {
    url,
    startWorker: (env) => start('worker-server', { ...database.env, ...env }),
    stopApi: () => stop(api.child),
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data: Record<string, unknown> },
  };
}

/** Creates a key and a slow nmap scan of SCAN_ADDRESS; answers the scan's id. */
async function createSlowScan(url: string): Promise<string> {
  const token = await signToken(TEST_JWT_SECRET, { subject: 'kill', tenantId: randomUUID() }, 600);
  const key = await post(
    `${url}/api/v1/api-keys`,
    { authorization: `Bearer ${token}` },
    {
      name: 'k',
    },
  );
  const rawKey = String(key.body.data.rawKey);
  const scan = await post(
    `${url}/api/v1/scans`,
    { 'x-api-key': rawKey },
    { target: SCAN_ADDRESS, scanType: 'nmap', options: { timing: 'T0', ports: '80' } },
  );
  expect(scan.status).toBe(201);
  return String(scan.body.data.id);
}

/** The workspace directories (`nmap-*`) of the process `pid`, by its owner directory. */
function workspacesOf(pid: number): string[] {
  const root = workspaceRoot();
  if (!existsSync(root)) {
    return [];
  }
  return readdirSync(root)
    .filter((name) => name.startsWith(`${pid}-`))
    .flatMap((owner) =>
      readdirSync(join(root, owner))
        .filter((name) => name.startsWith('nmap-'))
        .map((name) => join(root, owner, name)),
    );
}

/** Processes whose TMPDIR is `workspace` (the runner gives it to the scanner and its wrappers). */
function processesIn(workspace: string): Array<{ pid: number; comm: string }> {
  const found: Array<{ pid: number; comm: string }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (environ.includes(`TMPDIR=${workspace}`)) {
        found.push({ pid: Number(name), comm: readFileSync(`/proc/${name}/comm`, 'utf8').trim() });
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Whether `pid` runs (a zombie has ended: it only waits to be reaped). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

let service: Service;

beforeAll(async () => {
  service = await startService();
  teardown.add(() => service.stopApi());
}, 90_000);

const sandboxed = TEST_SANDBOX !== null;

const variants: ReadonlyArray<{ name: string; run: boolean; env: Record<string, string> }> = [
  { name: 'unsandboxed (SCANNER_SANDBOX=off)', run: true, env: { SCANNER_SANDBOX: 'off' } },
  {
    name: 'sandboxed',
    run: sandboxed,
    env: {
      SCANNER_SANDBOX: 'required',
      SCANNER_USER: process.env.SCANNER_USER ?? 'rampart-scanner',
      // Fixed, so runs leave no state of many tables in /run/rampart/egress; concurrent runs share
      // it as worker processes do (the same ALLOW_PRIVATE_TARGETS).
      SCANNER_EGRESS_TABLE: 'rampart_worker_kill',
    },
  },
];

describe.each(variants)('a worker killed with SIGKILL, $name', ({ run, env }) => {
  it.runIf(run)(
    'takes its scanner processes with it, and the next start removes the workspace they left',
    async () => {
      const worker = await service.startWorker(env);
      await createSlowScan(service.url);
      const pid = worker.child.pid ?? 0;
      const [workspace] = await until(
        () => workspacesOf(pid),
        (found) => found.length === 1,
        30_000,
      );
      const scanner = await until(
        () => processesIn(workspace ?? ''),
        (found) => found.some((process) => process.comm === 'nmap'),
        30_000,
      );
      const killed = new Promise((resolve) => worker.child.once('exit', resolve));
      worker.child.kill('SIGKILL');
      await killed;
      await until(
        () => scanner.filter((process) => running(process.pid)),
        (left) => left.length === 0,
        5_000,
      );
      expect(existsSync(workspace ?? '')).toBe(true);

      await withScanWorkspace('rampart-live', async (live) => {
        const again = await service.startWorker(env);
        expect(existsSync(join(workspace ?? '', '..'))).toBe(false);
        expect(existsSync(live)).toBe(true);
        expect(again.logs.some((line) => line.includes('worker process(es) that are gone'))).toBe(
          true,
        );
        await stop(again.child);
      });
    },
    120_000,
  );
});
