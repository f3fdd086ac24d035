/**
 * `npm run worker` stays up through a PostgreSQL outage (issue 19): every timer of its loops is
 * unref()'d, so before the fix the process exited with status 0, silently, as soon as the
 * database's sockets closed. A real worker process (src/main/worker-server.ts, the real nmap,
 * SCANNER_SANDBOX off) talks to PostgreSQL through a TCP proxy that the test cuts and then makes
 * refuse connections for a few seconds; the process must stay alive with no work, log the outage
 * once and its end once, then claim and finish a scan created after the database is back, without
 * a restart. Always on the machine's PostgreSQL (proxied-postgres.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtEntry } from '../support/builds.js';
import { createKey, startApp, type TestApp, tokenFor } from '../support/harness.js';
import { createProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { createScan, waitUntilEnded } from '../support/scans.js';
import { TEST_SECRETS_KEY } from '../support/secrets.js';
import { until } from '../support/until.js';

/** The address the scan targets: a port the test opens there (never the service's 127.0.0.1). */
const LISTEN = '127.0.0.2';

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

let pg: ProxiedPostgres;
let app: TestApp;
let target: Server;
let child: ChildProcess;
/** Every line the process wrote (pino JSON lines on stdout; anything on stderr as text). */
const output: string[] = [];

beforeAll(async () => {
  pg = await createProxiedPostgres();
  app = await startApp(pg.direct, { ALLOW_PRIVATE_TARGETS: `${LISTEN}/32` });
  target = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => target.listen(0, LISTEN, resolve));
  child = spawn(process.execPath, [builtEntry('main/worker-server')], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: pg.urlWithSchema,
      SECRETS_KEY: TEST_SECRETS_KEY,
      LOG_LEVEL: 'info',
      WORKERS: '1',
      WORKER_CONCURRENCY: '2',
      WORKER_SHUTDOWN_GRACE_MS: '1000',
      ALLOW_PRIVATE_TARGETS: `${LISTEN}/32`,
      // No scanner isolation: the egress rules it would load judge every scanner on the machine.
      SCANNER_SANDBOX: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString('utf8');
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      output.push(...parts.filter((line) => line !== ''));
    });
  }
  await waitForLog('Rampart workers running', 60_000);
}, 90_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await new Promise((resolve) => target?.close(resolve));
  await app?.close();
  await pg?.destroy();
});

function logs(): LogLine[] {
  return output.flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [{ level: 0, msg: line }];
    }
  });
}

function logLines(msg: string): LogLine[] {
  return logs().filter((line) => line.msg === msg);
}

/** Waits for a line saying `msg`; fails at once, with its output, if the process has exited. */
async function waitForLog(msg: string, ms = 15_000): Promise<void> {
  await until(
    () => ({ seen: logLines(msg).length, exited: child.exitCode ?? child.signalCode }),
    ({ seen, exited }) => seen > 0 || exited !== null,
    ms,
  );
  expect(
    { exitCode: child.exitCode, signal: child.signalCode },
    `the worker process exited; it wrote:\n${output.join('\n')}`,
  ).toEqual({ exitCode: null, signal: null });
}

describe('a worker process while PostgreSQL is away', () => {
  it('stays up, logs the outage once, and takes new scans when the database is back', async () => {
    const before = output.length;
    pg.proxy.cut();
    pg.proxy.refuse();
    await waitForLog('database unreachable');
    // The outage goes on for a few seconds: claim polls, heartbeats, housekeeping and the webhook
    // dispatcher's 200 ms rounds all fail meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    pg.proxy.accept();
    await waitForLog('database reachable again', 20_000);

    const address = target.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const key = (await createKey(app, await tokenFor(randomUUID()))).rawKey;
    const { id } = await createScan(app, key, {
      target: LISTEN,
      scanType: 'nmap',
      options: { ports: String(port), serviceDetection: false, timing: 'T4' },
    });
    const scan = await waitUntilEnded(app, key, id, 60_000);
    expect(scan, output.join('\n')).toMatchObject({ status: 'completed', resultCount: 1 });

    expect(child.exitCode).toBeNull();
    const during = logs().slice(before);
    expect(during.filter((line) => line.msg === 'database unreachable')).toHaveLength(1);
    expect(during.filter((line) => line.msg === 'database unreachable')[0]).toMatchObject({
      level: 40,
      error: expect.any(String),
    });
    const back = during.filter((line) => line.msg === 'database reachable again');
    expect(back).toHaveLength(1);
    expect(back[0]?.awayMs).toBeGreaterThanOrEqual(3_000);
    // Said once, not every round: no error lines, no stacks.
    expect(during.filter((line) => line.level >= 50)).toEqual([]);
    expect(output.slice(before).filter((line) => line.includes('"stack"'))).toEqual([]);

    // And it still stops cleanly on SIGTERM.
    child.kill('SIGTERM');
    const code = await new Promise((resolve) =>
      child.once('exit', (exitCode) => resolve(exitCode)),
    );
    expect(code).toBe(0);
  }, 120_000);
});
