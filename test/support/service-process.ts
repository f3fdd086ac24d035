/**
 * Real service processes for end-to-end tests: `src/main/server.ts` (the API, `npm start`) or
 * `src/main/worker-server.ts` (scan workers, `npm run worker`), built (builds.ts) and run with node
 * as a deployment runs them. The environment is the test's alone: of the test process's own, only PATH (the scanners)
 * and NODE_EXTRA_CA_CERTS (the test CA, for HTTPS webhook receivers) pass.
 *
 * Each process's JSON log lines (pino, on stdout) are kept parsed, its stderr kept as lines, and
 * its exit recorded with the time, so a test can assert that a process stayed up and what it said
 * meanwhile.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { type BuiltEntry, builtEntry } from './builds.js';
import { TEST_SECRETS_KEY } from './secrets.js';

export type ServiceEntry = 'api' | 'workers';

const ENTRIES: Record<ServiceEntry, BuiltEntry> = {
  api: 'main/server',
  workers: 'main/worker-server',
};

/** One log line: pino's `time`, `level` and `msg`, and every field of it. */
export interface LogLine {
  readonly time: number;
  readonly level: number;
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly at: number;
}

export interface ServiceProcess {
  /** The test's name for it (also in its application_name, for instance). */
  readonly name: string;
  readonly pid: number;
  /** Every log line so far (the array grows in place). */
  readonly logs: readonly LogLine[];
  /** Every stderr line so far: start-up failures and crashes land here. */
  readonly stderr: readonly string[];
  /** How it ended, or null while it runs. */
  exit(): ProcessExit | null;
  /** Resolves with the first log line whose `msg` is `msg`; rejects if the process ends first. */
  waitForLog(msg: string, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM, then SIGKILL if it is still up after `graceMs`; resolves once it has ended. */
  stop(graceMs?: number): Promise<void>;
}

function parseLine(raw: string): LogLine {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null) {
      const fields = parsed as Record<string, unknown>;
      return {
        time: typeof fields.time === 'number' ? fields.time : Date.now(),
        level: typeof fields.level === 'number' ? fields.level : 30,
        msg: typeof fields.msg === 'string' ? fields.msg : '',
        fields,
      };
    }
  } catch {
    // not JSON: kept as its text
  }
  return { time: Date.now(), level: 30, msg: raw, fields: {} };
}

export function spawnService(
  entry: ServiceEntry,
  name: string,
  env: Readonly<Record<string, string>>,
): ServiceProcess {
  const child: ChildProcess = spawn(process.execPath, [builtEntry(ENTRIES[entry])], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
      // API and worker processes of one database share the at-rest key, as deployed.
      SECRETS_KEY: TEST_SECRETS_KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const stderr: string[] = [];
  const listeners = new Set<() => void>();
  let ended: ProcessExit | null = null;
  const notify = () => {
    for (const listener of listeners) {
      listener();
    }
  };
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      logs.push(parseLine(line));
      notify();
    });
  }
  if (child.stderr !== null) {
    createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  }
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = { code, signal, at: Date.now() };
      notify();
      resolve();
    });
  });

  return {
    name,
    pid: child.pid ?? 0,
    logs,
    stderr,
    exit: () => ended,
    waitForLog(msg, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = logs.find((candidate) => candidate.msg === msg);
          if (line !== undefined) {
            done();
            resolve(line);
          } else if (ended !== null) {
            done();
            reject(
              new Error(
                `${name} exited (${ended.code ?? ended.signal}) before logging "${msg}": ${stderr.slice(-5).join(' | ')}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name} did not log "${msg}" within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async stop(graceMs = 3_000) {
      if (ended !== null) {
        return;
      }
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A TCP port free on `host` right now (the OS picks it; the caller binds it soon after). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') {
    throw new Error('freePort: no port');
  }
  return address.port;
}

/** Polls `url` + `/readyz` until it answers 200; fails at once if `service` ends meanwhile. */
export async function waitUntilReady(
  service: ServiceProcess,
  url: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exit = service.exit();
    if (exit !== null) {
      throw new Error(
        `${service.name} exited (${exit.code ?? exit.signal}): ${service.stderr.slice(-5).join(' | ')}`,
      );
    }
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`${service.name} did not become ready within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
