/**
 * The one place that spawns scanner processes. It takes an argument array (never a shell string),
 * exactly the environment it is given, and returns how the process ended as data: timeouts,
 * cancellation, truncated output and a missing binary are fields of the result, not exceptions.
 * The worker, not the runner, decides what counts as a failed scan.
 *
 * Every child leads its own process group (`detached: true` is `setsid()` on POSIX), and every
 * signal goes to the whole group, so the helpers a scanner forks (or the `sleep` of a wrapper
 * script) die with it. The runner resolves only when the leader has exited, its pipes are closed
 * and nothing alive is left in its group (after KILL, at most KILL_SETTLE_MS are spent checking):
 * when the promise settles, the scan's processes are gone and no timer of ours is left running.
 *
 * POSIX only (the service runs on Linux); a group signal means nothing on Windows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import {
  createLineSplitter,
  type LineSplitter as TextLineSplitter,
} from '../../domain/text/line-splitter.js';

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
/** How often the group is checked for survivors once the leader has exited during a kill. */
const GROUP_POLL_MS = 50;
/**
 * Once the group is gone (or KILLed), how long the pipes may take to reach end-of-file. A process
 * that escaped the group (its own `setsid`) can hold them open forever; we stop reading then.
 */
const PIPE_DRAIN_MS = 200;
/**
 * KILL is delivered asynchronously: the group is watched until its members are really dead, but
 * no longer than this (a process stuck in uninterruptible I/O cannot be hurried).
 */
const KILL_SETTLE_MS = 200;
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
      child = spawn(options.binary, [...options.argv], {
        cwd: options.cwd,
        // A copy of own keys only: spawn would also walk inherited enumerable properties.
        env: Object.fromEntries(Object.entries(options.env)),
        shell: false,
        detached: true,
        // Scanners read nothing from us; an inherited stdin would tie them to the service's.
        stdio: ['ignore', 'pipe', 'pipe'],
      });
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
  private readonly lines: LineSplitter | undefined;
  private readonly errorLines: LineSplitter | undefined;
  private readonly killGraceMs: number;

  private leaderExited = false;
  private pipesClosed = false;
  /** The group has no live member left, or KILL_SETTLE_MS have passed since KILL. */
  private groupSettled = false;
  /** TERM has been sent to the group (timeout, cancel, or survivors of a leader that exited). */
  private terminating = false;
  private done = false;

  private exitCode: number | null = null;
  private exitSignal: string | null = null;
  private timedOut = false;
  private cancelled = false;
  private forcefullyKilled = false;

  private timeoutTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private killSettleTimer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly child: ChildProcess,
    /** The leader's pid, which is also the group id (`setsid`). */
    private readonly pgid: number,
    private readonly options: RunProcessOptions,
    private readonly startedAt: number,
    private readonly resolve: (result: ProcessResult) => void,
  ) {
    const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    this.stdout = new CappedOutput(cap);
    this.stderr = new CappedOutput(cap);
    this.lines =
      options.onStdoutLine === undefined ? undefined : new LineSplitter(options.onStdoutLine, cap);
    this.errorLines =
      options.onStderrLine === undefined ? undefined : new LineSplitter(options.onStderrLine, cap);
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  start(): void {
    const { child } = this;
    child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout.push(chunk);
      this.lines?.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr.push(chunk);
      this.errorLines?.push(chunk);
    });
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

  /** TERM to the group now, KILL after the grace unless the group is gone by then. */
  private terminate(reason: 'timeout' | 'cancel'): void {
    if (this.done || this.leaderExited || this.terminating) {
      return;
    }
    this.terminating = true;
    this.timedOut = reason === 'timeout';
    this.cancelled = reason === 'cancel';
    clearTimeout(this.timeoutTimer);
    this.sendTerm();
  }

  private sendTerm(): void {
    this.signalGroup('SIGTERM');
    this.signalLeader('SIGTERM');
    this.killTimer = setTimeout(() => this.escalate(), this.killGraceMs);
  }

  private escalate(): void {
    this.killTimer = undefined;
    if (this.done || this.groupSettled) {
      return;
    }
    if (this.leaderExited) {
      // Only survivors are left; confirm they are alive (zombies count as alive for kill(2)).
      if (!groupHasLiveMembers(this.pgid) || this.signalGroup('SIGKILL') === 'gone') {
        this.settleGroup();
        return;
      }
    } else {
      this.signalGroup('SIGKILL');
      this.signalLeader('SIGKILL');
    }
    this.forcefullyKilled = true;
    // The poll started at the leader's exit notices the deaths; this only bounds the wait.
    this.killSettleTimer = setTimeout(() => this.settleGroup(), KILL_SETTLE_MS);
  }

  private onLeaderExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.leaderExited = true;
    this.exitCode = code;
    this.exitSignal = signal;
    clearTimeout(this.timeoutTimer);
    // From here on a late abort changes nothing: the process it was meant for has ended.
    this.options.signal?.removeEventListener('abort', this.onAbort);
    if (this.groupSettled) {
      this.armDrain();
      this.finishIfSettled();
    } else if (this.terminating) {
      this.pollGroup();
    } else {
      this.reapSurvivors();
    }
  }

  /** The leader ended on its own: anything still alive in its group is a stray, and goes too. */
  private reapSurvivors(): void {
    if (!groupHasLiveMembers(this.pgid)) {
      this.settleGroup();
      return;
    }
    this.terminating = true;
    this.sendTerm();
    this.pollTimer = setTimeout(() => this.pollGroup(), GROUP_POLL_MS);
  }

  /** After the leader's exit, watch the group until it is empty so KILL is never sent needlessly. */
  private pollGroup(): void {
    this.pollTimer = undefined;
    if (this.done || this.groupSettled) {
      return;
    }
    if (groupHasLiveMembers(this.pgid)) {
      this.pollTimer = setTimeout(() => this.pollGroup(), GROUP_POLL_MS);
    } else {
      this.settleGroup();
    }
  }

  private settleGroup(): void {
    this.groupSettled = true;
    // Clearing the KILL timer here matters beyond tidiness: once the group is empty its id may be
    // reused by an unrelated process group.
    clearTimeout(this.killTimer);
    clearTimeout(this.pollTimer);
    clearTimeout(this.killSettleTimer);
    this.killTimer = undefined;
    this.pollTimer = undefined;
    this.killSettleTimer = undefined;
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
    if (this.leaderExited && this.pipesClosed && this.groupSettled) {
      this.finish();
    }
  }

  private finish(): void {
    if (this.done) {
      return;
    }
    this.done = true;
    clearTimeout(this.timeoutTimer);
    clearTimeout(this.killTimer);
    clearTimeout(this.pollTimer);
    clearTimeout(this.killSettleTimer);
    clearTimeout(this.drainTimer);
    this.options.signal?.removeEventListener('abort', this.onAbort);
    if (!this.pipesClosed) {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
    }
    this.lines?.end();
    this.errorLines?.end();
    this.resolve({
      exitCode: this.exitCode,
      signal: this.exitSignal,
      timedOut: this.timedOut,
      cancelled: this.cancelled,
      truncated: this.stdout.truncated || this.stderr.truncated,
      forcefullyKilled: this.forcefullyKilled,
      spawnError: null,
      durationMs: elapsed(this.startedAt),
      stdout: this.stdout.text(),
      stderr: this.stderr.text(),
    });
  }

  private signalGroup(signal: NodeJS.Signals): 'sent' | 'gone' {
    try {
      process.kill(-this.pgid, signal);
      return 'sent';
    } catch (error) {
      // EPERM (a member we may not signal, e.g. setuid) still means the group exists.
      return errorCode(error) === 'ESRCH' ? 'gone' : 'sent';
    }
  }

  /** Also signal the leader directly, in case it moved itself to another group (setpgid). */
  private signalLeader(signal: NodeJS.Signals): void {
    if (!this.leaderExited) {
      this.child.kill(signal);
    }
  }
}

/**
 * Whether any process of the group is still running. kill(-pgid, 0) alone also counts zombies,
 * and orphaned zombies linger until the init process reaps them (about a second in our CI VM,
 * never when Node itself is PID 1 in a container), so on Linux the members' states are read from
 * /proc. On doubt (no /proc, another PID namespace) the answer is "alive": KILL is then sent,
 * which is harmless, instead of a live process being left behind.
 *
 * Synchronous on purpose: reading /proc/<pid>/stat takes about 11 µs per process with readFileSync
 * (1 ms for the 85 processes of our CI VM) against about 200 µs with fs/promises, whose thread pool
 * round trips would also compete with the service's DNS and crypto work. The scan runs only after
 * the leader has exited with members left in its group, every GROUP_POLL_MS at most.
 */
function groupHasLiveMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if (errorCode(error) === 'ESRCH') {
      return false;
    }
  }
  if (process.platform !== 'linux') {
    return true;
  }
  try {
    const self = parseProcStat(readFileSync('/proc/self/stat', 'utf8'));
    if (self?.pid !== process.pid) {
      return true;
    }
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) {
        continue;
      }
      let stat: string;
      try {
        stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      } catch {
        continue; // exited while we were looking
      }
      const entry = parseProcStat(stat);
      if (
        entry !== undefined &&
        entry.pgrp === pgid &&
        entry.state !== 'Z' &&
        entry.state !== 'X'
      ) {
        return true;
      }
    }
    return false;
  } catch {
    return true;
  }
}

/** `pid (comm) state ppid pgrp …`; comm may itself contain spaces and parentheses. */
function parseProcStat(stat: string): { pid: number; state: string; pgrp: number } | undefined {
  const close = stat.lastIndexOf(')');
  if (close === -1) {
    return undefined;
  }
  const [state, , pgrp] = stat.slice(close + 2).split(' ');
  if (state === undefined || pgrp === undefined) {
    return undefined;
  }
  return { pid: Number.parseInt(stat, 10), state, pgrp: Number(pgrp) };
}

/** Keeps the first `cap` bytes of a stream and remembers whether more was dropped. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (chunk.length <= room) {
      this.chunks.push(chunk);
      this.size += chunk.length;
      return;
    }
    if (room > 0) {
      // A copy, so the kept slice does not pin the whole chunk in memory.
      this.chunks.push(Buffer.from(chunk.subarray(0, room)));
      this.size += room;
    }
    this.truncated = true;
  }

  text(): string {
    return Buffer.concat(this.chunks, this.size).toString('utf8');
  }
}

/**
 * Splits a byte stream into UTF-8 lines, whatever the chunk boundaries (a line longer than
 * `maxLineChars` is cut, so a stream without newlines cannot grow memory; a `\r` before the
 * newline is dropped).
 */
class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private readonly splitter: TextLineSplitter;

  constructor(onLine: (line: string) => void, maxLineChars: number) {
    this.splitter = createLineSplitter({ maxChars: maxLineChars }, (text) => {
      try {
        onLine(text.endsWith('\r') ? text.slice(0, -1) : text);
      } catch {
        // Best effort by contract (see RunProcessOptions.onStdoutLine).
      }
    });
  }

  push(chunk: Buffer): void {
    this.splitter.write(this.decoder.write(chunk));
  }

  end(): void {
    this.splitter.write(this.decoder.end());
    this.splitter.end();
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

function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    return typeof error.code === 'string' ? error.code : undefined;
  }
  return undefined;
}

function elapsed(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

function ignore(): void {}
