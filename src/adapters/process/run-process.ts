/**
 * The one place that spawns scanner processes. It takes an argument array (never a shell string),
 * exactly the environment it is given, and returns how the process ended as data: timeouts,
 * cancellation, truncated output and a missing binary are fields of the result, not exceptions.
 * The worker, not the runner, decides what counts as a failed scan.
 *
 * Every child leads its own process group, and timeouts, cancellation and strays end the whole
 * group (`process-group.ts`); stdout and stderr are collected up to a cap, line by line for the
 * progress callbacks (`capped-output.ts`). The runner resolves only when the leader has exited,
 * its pipes are closed and nothing alive is left in its group (after KILL, at most a short settle
 * time is spent checking): when the promise settles, the scan's processes are gone and no timer of
 * ours is left running.
 *
 * POSIX only (the service runs on Linux); a group signal means nothing on Windows.
 */
import type { ChildProcess } from 'node:child_process';
import { CappedOutput } from './capped-output.js';
import { errorCode, ProcessGroup, spawnGroupLeader } from './process-group.js';

export interface RunProcessOptions {
  /** Looked up on the PATH of `env` (libuv searches the child's environment), or absolute. */
  readonly binary: string;
  /** Passed as separate arguments; never joined into a shell string (`shell: false`). */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** Exactly this environment; nothing of the service's own `process.env` is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Then TERM to the group, then KILL after `killGraceMs`. `Infinity` means no timeout. */
  readonly timeoutMs: number;
  /** Default 1500: a cancelled scan's processes must be gone within 2 s. */
  readonly killGraceMs?: number;
  /** Cancellation: the same TERM-then-KILL path as a timeout. */
  readonly signal?: AbortSignal;
  /**
   * Bytes kept in memory per stream (stdout, stderr); default 4 MiB. Beyond it data is dropped
   * and `truncated` set; the process is not killed for it.
   */
  readonly maxOutputBytes?: number;
  /**
   * Each complete stdout line (without `\n`, and without a trailing `\r`) as it arrives, decoded
   * as UTF-8 across chunk boundaries; a last line without `\n` is delivered at the end. Sees all
   * output, also past `maxOutputBytes`. Exceptions it throws are swallowed: progress reporting is
   * best effort and must not crash the worker or leave a process unsupervised.
   */
  readonly onStdoutLine?: (line: string) => void;
  /** The same for stderr (nuclei's statistics and trivy's log go there). */
  readonly onStderrLine?: (line: string) => void;
}

export interface ProcessResult {
  readonly exitCode: number | null;
  /** The signal that ended the leader, e.g. `SIGTERM`. */
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** stdout or stderr exceeded `maxOutputBytes` and was cut. */
  readonly truncated: boolean;
  /** TERM was not enough: the group had to be sent KILL. */
  readonly forcefullyKilled: boolean;
  /** `CODE: message` when the process could not be started (e.g. `ENOENT: …`); exitCode is null. */
  readonly spawnError: string | null;
  readonly durationMs: number;
  readonly stdout: string;
  readonly stderr: string;
}

const DEFAULT_KILL_GRACE_MS = 1500;
const DEFAULT_MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/**
 * Once the group is gone (or KILLed), how long the pipes may take to reach end-of-file. A process
 * that escaped the group (its own `setsid`) can hold them open forever; we stop reading then.
 */
const PIPE_DRAIN_MS = 200;
/** Larger delays overflow Node's timer to 1 ms; 24.8 days is "no timeout" for a scan anyway. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs one process to its end and reports how it ended. Never rejects for anything the process
 * does (exit codes, signals, timeouts, a missing binary); only rejects with a `TypeError` for
 * invalid options. An already aborted `signal` resolves `cancelled` without spawning.
 *
 * When the leader exits on its own but left live members in its group (a background helper), they
 * are sent TERM, then KILL after the grace, before the promise resolves: no process outlives its
 * scan.
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  return new Promise<ProcessResult>((resolve) => {
    validateOptions(options);
    if (options.signal?.aborted === true) {
      resolve({ ...emptyResult(0), cancelled: true });
      return;
    }
    const startedAt = performance.now();
    let child: ChildProcess;
    try {
      child = spawnGroupLeader(options);
    } catch (error) {
      // Synchronous refusals (e.g. a NUL byte in an argument) are reported like ENOENT: as data.
      resolve({ ...emptyResult(elapsed(startedAt)), spawnError: describeSpawnError(error) });
      return;
    }
    if (child.pid === undefined) {
      // ENOENT, EACCES and the like arrive as an 'error' event on the next tick. `on`, not
      // `once`: a second 'error' without a listener would be thrown at the worker.
      let reported = false;
      child.on('error', (error) => {
        if (reported) {
          return;
        }
        reported = true;
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({ ...emptyResult(elapsed(startedAt)), spawnError: describeSpawnError(error) });
      });
      return;
    }
    new Supervision(child, child.pid, options, startedAt, resolve).start();
  });
}

/** The state of one running process, from spawn to the resolved result. */
class Supervision {
  private readonly stdout: CappedOutput;
  private readonly stderr: CappedOutput;
  private readonly group: ProcessGroup;

  private leaderExited = false;
  private pipesClosed = false;
  private done = false;

  private exitCode: number | null = null;
  private exitSignal: string | null = null;
  private timedOut = false;
  private cancelled = false;

  private timeoutTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly child: ChildProcess,
    pgid: number,
    private readonly options: RunProcessOptions,
    private readonly startedAt: number,
    private readonly resolve: (result: ProcessResult) => void,
  ) {
    const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.stdout = new CappedOutput(cap, options.onStdoutLine);
    this.stderr = new CappedOutput(cap, options.onStderrLine);
    this.group = new ProcessGroup(child, pgid, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS, () =>
      this.onGroupSettled(),
    );
  }

  start(): void {
    const { child } = this;
    child.stdout?.on('data', (chunk: Buffer) => this.stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    // Without listeners a pipe error would be an uncaught exception in the worker.
    child.stdout?.on('error', ignore);
    child.stderr?.on('error', ignore);
    // After a successful spawn 'error' only reports a failed child.kill(); the group signals
    // carry the termination, so there is nothing to do but not crash.
    child.on('error', ignore);
    child.once('exit', (code, signal) => this.onLeaderExit(code, signal));
    child.once('close', () => {
      this.pipesClosed = true;
      this.finishIfSettled();
    });
    if (Number.isFinite(this.options.timeoutMs)) {
      this.timeoutTimer = setTimeout(
        () => this.terminate('timeout'),
        Math.min(this.options.timeoutMs, MAX_TIMER_MS),
      );
    }
    this.options.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => this.terminate('cancel');

  private terminate(reason: 'timeout' | 'cancel'): void {
    if (this.done || this.leaderExited || this.group.terminating) {
      return;
    }
    this.timedOut = reason === 'timeout';
    this.cancelled = reason === 'cancel';
    clearTimeout(this.timeoutTimer);
    this.group.terminate();
  }

  private onLeaderExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.leaderExited = true;
    this.exitCode = code;
    this.exitSignal = signal;
    clearTimeout(this.timeoutTimer);
    // From here on a late abort changes nothing: the process it was meant for has ended.
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.group.leaderExit();
  }

  private onGroupSettled(): void {
    if (this.leaderExited) {
      this.armDrain();
    }
    this.finishIfSettled();
  }

  private armDrain(): void {
    if (!this.pipesClosed && this.drainTimer === undefined) {
      this.drainTimer = setTimeout(() => this.finish(), PIPE_DRAIN_MS);
    }
  }

  private finishIfSettled(): void {
    if (this.leaderExited && this.pipesClosed && this.group.settled) {
      this.finish();
    }
  }

  private finish(): void {
    if (this.done) {
      return;
    }
    this.done = true;
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.drainTimer);
    this.group.dispose();
    this.options.signal?.removeEventListener('abort', this.onAbort);
    if (!this.pipesClosed) {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
    }
    this.stdout.end();
    this.stderr.end();
    this.resolve({
      exitCode: this.exitCode,
      signal: this.exitSignal,
      timedOut: this.timedOut,
      cancelled: this.cancelled,
      truncated: this.stdout.truncated || this.stderr.truncated,
      forcefullyKilled: this.group.forcefullyKilled,
      spawnError: null,
      durationMs: elapsed(this.startedAt),
      stdout: this.stdout.text(),
      stderr: this.stderr.text(),
    });
  }
}

function validateOptions(options: RunProcessOptions): void {
  if (typeof options.binary !== 'string' || options.binary === '') {
    throw new TypeError('runProcess: `binary` must be a non-empty string');
  }
  if (!(options.timeoutMs > 0)) {
    throw new TypeError(`runProcess: \`timeoutMs\` must be > 0, got ${options.timeoutMs}`);
  }
  const grace = options.killGraceMs;
  if (grace !== undefined && !(Number.isFinite(grace) && grace >= 0)) {
    throw new TypeError(`runProcess: \`killGraceMs\` must be a finite number >= 0, got ${grace}`);
  }
  const cap = options.maxOutputBytes;
  if (cap !== undefined && !(Number.isSafeInteger(cap) && cap >= 0)) {
    throw new TypeError(`runProcess: \`maxOutputBytes\` must be an integer >= 0, got ${cap}`);
  }
}

function emptyResult(durationMs: number): ProcessResult {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    truncated: false,
    forcefullyKilled: false,
    spawnError: null,
    durationMs,
    stdout: '',
    stderr: '',
  };
}

function describeSpawnError(error: unknown): string {
  if (error instanceof Error) {
    const code = errorCode(error);
    return code === undefined ? error.message : `${code}: ${error.message}`;
  }
  return String(error);
}

function elapsed(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

function ignore(): void {}
