/**
 * The process runner against real processes: tiny Node scripts in test/doubles/process/ that
 * exit, sleep, ignore TERM, fork grandchildren or flood their pipes. No mocks: what is asserted is
 * what the kernel did (exit status, signals, which pids still exist).
 */
import { execFile } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunProcessOptions, runProcess } from './run-process.js';
import { scannerEnvironment, withScanWorkspace } from './scan-workspace.js';

const DOUBLES = fileURLToPath(new URL('../../../test/doubles/process/', import.meta.url));
const RUNNER = fileURLToPath(new URL('./run-process.ts', import.meta.url));
const NODE_DIR = dirname(process.execPath);
const ENV = { PATH: `${NODE_DIR}${delimiter}/usr/bin${delimiter}/bin` };

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-run-process-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs a double through `node <script>`, with short timings unless the test overrides them. */
function runDouble(script: string, args: readonly string[], overrides = {}) {
  const options: RunProcessOptions = {
    binary: process.execPath,
    argv: [join(DOUBLES, script), ...args],
    cwd: dir,
    env: ENV,
    timeoutMs: 10_000,
    killGraceMs: 300,
    ...overrides,
  };
  return runProcess(options);
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

/** kill(pid, 0): ESRCH means no such process, not even a zombie. */
function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== 'ESRCH';
  }
}

/**
 * Whether the process still runs. An orphaned grandchild that died is a zombie until init reaps
 * it (about a second on this VM), and kill(pid, 0) succeeds on zombies, so read its state too.
 */
async function isRunning(pid: number): Promise<boolean> {
  if (process.platform !== 'linux') {
    return pidExists(pid);
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Waits until kill(pid, 0) throws ESRCH, i.e. the pid is gone and reaped. */
async function waitUntilGone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (performance.now() < deadline) {
    if (!pidExists(pid)) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !pidExists(pid);
}

async function readPid(file: string): Promise<number> {
  return Number(await readFile(file, 'utf8'));
}

describe('runProcess', () => {
  it('reports exit code 0 with stdout and stderr', async () => {
    const result = await runDouble('exit-with.js', ['0', 'out\n', 'err\n']);
    expect(result).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      cancelled: false,
      truncated: false,
      forcefullyKilled: false,
      spawnError: null,
      stdout: 'out\n',
      stderr: 'err\n',
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a non-zero exit code as data, not as an error', async () => {
    const result = await runDouble('exit-with.js', ['2', '', 'failed\n']);
    expect(result).toMatchObject({ exitCode: 2, signal: null, stderr: 'failed\n' });
  });

  it('looks the binary up on the PATH of the given env', async () => {
    const result = await runProcess({
      binary: 'print-argv.js',
      argv: ['found'],
      cwd: dir,
      env: { PATH: `${DOUBLES}${delimiter}${NODE_DIR}` },
      timeoutMs: 10_000,
    });
    expect(result.spawnError).toBeNull();
    expect(JSON.parse(result.stdout)).toEqual(['found']);
  });

  it('passes shell metacharacters verbatim, one argument each', async () => {
    const argv = [
      '; rm -rf /',
      '$(id)',
      '`id`',
      '&& echo pwned',
      '| cat /etc/passwd',
      '> /tmp/x',
      '$HOME',
      '*',
      'two words',
      '"double" \'single\'',
      '',
      'line\nbreak',
    ];
    const result = await runDouble('print-argv.js', argv);
    expect(JSON.parse(result.stdout)).toEqual(argv);
  });

  it('gives the child exactly the env it is given: service secrets never reach it', async () => {
    process.env.DATABASE_URL = 'postgres://user:secret@db/rampart';
    process.env.JWT_SECRET = 'must-not-leak';
    process.env.AWS_SECRET_ACCESS_KEY = 'must-not-leak-either';
    try {
      await withScanWorkspace('env-test', async (work) => {
        const result = await runDouble('print-env.js', [], {
          cwd: work,
          env: scannerEnvironment({ ...process.env, PATH: ENV.PATH }, work),
        });
        const { env, cwd } = JSON.parse(result.stdout) as {
          env: Record<string, string>;
          cwd: string;
        };
        expect(cwd).toBe(work);
        expect(env.HOME).toBe(work);
        expect(env.TMPDIR).toBe(work);
        expect(env.DATABASE_URL).toBeUndefined();
        expect(env.JWT_SECRET).toBeUndefined();
        expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
        const allowed = ['PATH', 'LANG', 'LC_ALL', 'HOME', 'TMPDIR', 'TZ'];
        expect(Object.keys(env).filter((key) => !allowed.includes(key))).toEqual([]);
      });
    } finally {
      delete process.env.DATABASE_URL;
      delete process.env.JWT_SECRET;
      delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });

  it('adds nothing to the env it is given', async () => {
    const result = await runDouble('print-env.js', [], { env: { ...ENV, ONLY: 'this' } });
    const { env } = JSON.parse(result.stdout) as { env: Record<string, string> };
    expect(env).toEqual({ ...ENV, ONLY: 'this' });
  });

  it('sends TERM on timeout and reports timedOut', async () => {
    const result = await runDouble('sleep-forever.js', [], { timeoutMs: 300 });
    expect(result).toMatchObject({
      exitCode: null,
      signal: 'SIGTERM',
      timedOut: true,
      cancelled: false,
      forcefullyKilled: false,
    });
    expect(result.stdout).toMatch(/^ready \d+\n$/);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('sends KILL after the grace when TERM is ignored, in bounded time', async () => {
    const started = performance.now();
    const result = await runDouble('ignore-term.js', [], { timeoutMs: 300, killGraceMs: 300 });
    const took = performance.now() - started;
    expect(result).toMatchObject({
      exitCode: null,
      signal: 'SIGKILL',
      timedOut: true,
      forcefullyKilled: true,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(1500);
    const pid = Number(/ready (\d+)/.exec(result.stdout)?.[1]);
    expect(pidExists(pid)).toBe(false);
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const pidFile = join(dir, 'grandchild-timeout.pid');
    // Long enough for two node processes to start on a loaded machine: the grandchild must be up
    // (its pid written) before the timeout ends the group, or there is nothing to check.
    const result = await runDouble('spawn-grandchild.js', [pidFile, 'stay'], { timeoutMs: 2_000 });
    const grandchild = await readPid(pidFile);
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGTERM', forcefullyKilled: false });
    expect(await isRunning(grandchild)).toBe(false);
    // Gone for good once init has reaped the orphaned zombie.
    expect(await waitUntilGone(grandchild, 5000)).toBe(true);
  });

  it('sends KILL to a grandchild that ignores TERM after its parent died, on cancel', async () => {
    const pidFile = join(dir, 'grandchild-cancel.pid');
    const controller = new AbortController();
    const result = await runDouble('spawn-grandchild.js', [pidFile, 'stay-quiet'], {
      signal: controller.signal,
      onStdoutLine: (line: string) => {
        if (line === 'ready') {
          controller.abort();
        }
      },
    });
    const grandchild = await readPid(pidFile);
    expect(result).toMatchObject({ cancelled: true, signal: 'SIGTERM', forcefullyKilled: true });
    expect(await isRunning(grandchild)).toBe(false);
    expect(await waitUntilGone(grandchild, 5000)).toBe(true);
  });

  it('ends what a leader left behind in its group when it exits on its own', async () => {
    const pidFile = join(dir, 'grandchild-left.pid');
    const result = await runDouble('spawn-grandchild.js', [pidFile, 'leave']);
    const grandchild = await readPid(pidFile);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, forcefullyKilled: false });
    expect(result.durationMs).toBeLessThan(2000);
    expect(await isRunning(grandchild)).toBe(false);
  });

  it('stops waiting for pipes held open by a process that escaped the group', async () => {
    const pidFile = join(dir, 'grandchild-escaped.pid');
    const result = await runDouble('spawn-grandchild.js', [pidFile, 'escape']);
    const escaped = await readPid(pidFile);
    try {
      expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'ready\n' });
      expect(result.durationMs).toBeLessThan(2000);
    } finally {
      process.kill(escaped, 'SIGKILL');
    }
  });

  it('keeps at most maxOutputBytes per stream and lets the process finish', async () => {
    const cap = 64 * 1024;
    const result = await runDouble('flood.js', [String(5 * 1024 * 1024)], { maxOutputBytes: cap });
    expect(result).toMatchObject({ exitCode: 0, signal: null, truncated: true, timedOut: false });
    expect(result.stdout.length).toBe(cap);
    expect(result.stderr.length).toBe(cap);
  });

  it('does not report truncation for output of exactly maxOutputBytes', async () => {
    const result = await runDouble('flood.js', ['1000'], { maxOutputBytes: 1000 });
    expect(result).toMatchObject({ exitCode: 0, truncated: false });
    expect(result.stdout).toBe('x'.repeat(1000));
  });

  it('delivers whole UTF-8 lines to onStdoutLine, whatever the chunk boundaries', async () => {
    const lines: string[] = [];
    const result = await runDouble('slow-lines.js', [], {
      onStdoutLine: (line: string) => lines.push(line),
    });
    expect(lines).toEqual(['progress 10%', 'progress 50%', 'café €', '', 'last']);
    expect(result.stdout).toBe('progress 10%\nprogress 50%\ncafé €\r\n\nlast');
  });

  it('survives an onStdoutLine callback that throws', async () => {
    const result = await runDouble('slow-lines.js', [], {
      onStdoutLine: () => {
        throw new Error('parser bug');
      },
    });
    expect(result).toMatchObject({ exitCode: 0, spawnError: null });
  });

  it('cancels on abort: the process is gone within 2 s even when it ignores TERM', async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const result = await runDouble('ignore-term.js', [], {
      killGraceMs: undefined, // the default grace, the one the 2 s bound is about
      signal: controller.signal,
      onStdoutLine: (line: string) => {
        if (line.startsWith('ready')) {
          abortedAt = performance.now();
          controller.abort();
        }
      },
    });
    const took = performance.now() - abortedAt;
    expect(result).toMatchObject({
      cancelled: true,
      timedOut: false,
      forcefullyKilled: true,
      signal: 'SIGKILL',
    });
    expect(took).toBeLessThan(2000);
    const pid = Number(/ready (\d+)/.exec(result.stdout)?.[1]);
    expect(pidExists(pid)).toBe(false);
  });

  it('cancels a process that honours TERM without needing KILL', async () => {
    const controller = new AbortController();
    const result = await runDouble('sleep-forever.js', [], {
      signal: controller.signal,
      onStdoutLine: () => controller.abort(),
    });
    expect(result).toMatchObject({ cancelled: true, signal: 'SIGTERM', forcefullyKilled: false });
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('does not spawn at all when the signal is already aborted', async () => {
    // A binary that does not exist: had a spawn been attempted, spawnError would say ENOENT.
    const result = await runProcess({
      binary: join(dir, 'never-spawned'),
      argv: [],
      cwd: dir,
      env: ENV,
      timeoutMs: 1000,
      signal: AbortSignal.abort(),
    });
    expect(result).toMatchObject({ cancelled: true, spawnError: null, exitCode: null });
  });

  it('ignores an abort after the process has exited, and leaves no listener behind', async () => {
    const controller = new AbortController();
    const result = await runDouble('exit-with.js', ['0', 'done'], { signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(result).toMatchObject({ exitCode: 0, cancelled: false, stdout: 'done' });
  });

  it('reports a binary that does not exist as spawnError ENOENT, without throwing', async () => {
    const onPath = await runProcess({
      binary: 'rampart-no-such-scanner',
      argv: [],
      cwd: dir,
      env: ENV,
      timeoutMs: 1000,
    });
    expect(onPath).toMatchObject({ exitCode: null, signal: null, stdout: '', stderr: '' });
    expect(onPath.spawnError).toMatch(/^ENOENT: /);
    const absolute = await runProcess({
      binary: join(dir, 'missing'),
      argv: [],
      cwd: dir,
      env: ENV,
      timeoutMs: 1000,
    });
    expect(absolute.spawnError).toMatch(/^ENOENT: /);
  });

  it('reports a file without execute permission as spawnError EACCES', async () => {
    const file = join(dir, 'not-executable');
    await writeFile(file, '#!/bin/sh\nexit 0\n');
    await chmod(file, 0o644);
    const result = await runProcess({
      binary: file,
      argv: [],
      cwd: dir,
      env: ENV,
      timeoutMs: 1000,
    });
    expect(result.spawnError).toMatch(/^EACCES: /);
  });

  it('reports an argument spawn refuses (a NUL byte) as spawnError, without throwing', async () => {
    const result = await runDouble('print-argv.js', ['target\u0000--script=evil']);
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toMatch(/^ERR_INVALID_ARG_VALUE: /);
  });

  it('treats a timeout beyond the timer range as no timeout, not as 1 ms', async () => {
    const result = await runDouble('exit-with.js', ['0'], { timeoutMs: 2 ** 32 });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
  });

  it('rejects invalid options with a TypeError', async () => {
    await expect(runDouble('exit-with.js', [], { timeoutMs: 0 })).rejects.toThrow(TypeError);
    await expect(runDouble('exit-with.js', [], { maxOutputBytes: -1 })).rejects.toThrow(TypeError);
  });

  it('leaves no timer keeping the event loop alive once resolved', async () => {
    // A fresh Node process runs a timeout with a 20 s grace: the child dies on TERM at once, so
    // if any timer survived resolution, that process would stay up for 20 s.
    const script = [
      `import { runProcess } from ${JSON.stringify(RUNNER)};`,
      'const result = await runProcess({',
      '  binary: process.execPath,',
      `  argv: [${JSON.stringify(join(DOUBLES, 'sleep-forever.js'))}],`,
      `  cwd: ${JSON.stringify(dir)}, env: {}, timeoutMs: 100, killGraceMs: 20000,`,
      '});',
      'process.stdout.write(JSON.stringify(result));',
    ].join('\n');
    const started = performance.now();
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: fileURLToPath(new URL('../../../', import.meta.url)), timeout: 15_000 },
        (error, out) => (error ? reject(error) : resolve(out)),
      );
    });
    expect(JSON.parse(stdout)).toMatchObject({ timedOut: true, forcefullyKilled: false });
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
