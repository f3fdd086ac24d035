/**
 * A scanner's process group, from spawn to the moment none of its processes is left. The leader is
 * spawned detached (`setsid()` on POSIX), so it leads a group of its own, and every signal goes to
 * the whole group: the helpers a scanner forks (or the `sleep` of a wrapper script) die with it.
 * Ending is TERM to the group, then KILL after a grace; once the leader has exited, the group is
 * watched through /proc until its members are really gone, so KILL is never sent needlessly and
 * never to a group id that an unrelated process may have taken over.
 *
 * POSIX only (the service runs on Linux); a group signal means nothing on Windows.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** How often the group is checked for survivors once the leader has exited during a kill. */
const GROUP_POLL_MS = 50;
/**
 * KILL is delivered asynchronously: the group is watched until its members are really dead, but
 * no longer than this (a process stuck in uninterruptible I/O cannot be hurried).
 */
const KILL_SETTLE_MS = 200;

/** What the leader is started with. */
export interface GroupLeaderCommand {
  readonly binary: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Spawns the leader of a new process group, without a shell, with exactly `env`, stdin closed and
 * stdout and stderr piped. Throws what `spawn` throws synchronously (e.g. a NUL byte in an
 * argument); ENOENT and the like arrive as the child's 'error' event, with no pid.
 */
export function spawnGroupLeader(command: GroupLeaderCommand): ChildProcess {
  return spawn(command.binary, [...command.argv], {
    cwd: command.cwd,
    // A copy of own keys only: spawn would also walk inherited enumerable properties.
    env: Object.fromEntries(Object.entries(command.env)),
    shell: false,
    detached: true,
    // Scanners read nothing from us; an inherited stdin would tie them to the service's.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The termination of one group whose leader is `leader` (its pid is the group id). `onSettled`
 * is called when the group is settled (no live member left, or KILL_SETTLE_MS after KILL), and
 * once more at the leader's exit when that comes later: the owner then has all it waits for from
 * the group. After `dispose` no timer of the group is left and nothing more is sent.
 */
export class ProcessGroup {
  /** The group has no live member left, or KILL_SETTLE_MS have passed since KILL. */
  settled = false;
  /** TERM has been sent to the group (timeout, cancel, or survivors of a leader that exited). */
  terminating = false;
  /** TERM was not enough: the group had to be sent KILL. */
  forcefullyKilled = false;

  private leaderExited = false;
  private disposed = false;
  private killTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private killSettleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly leader: ChildProcess,
    /** The leader's pid, which is also the group id (`setsid`). */
    private readonly pgid: number,
    private readonly killGraceMs: number,
    private readonly onSettled: () => void,
  ) {}

  /** TERM to the group now, KILL after the grace unless the group is gone by then. */
  terminate(): void {
    this.terminating = true;
    this.sendTerm();
  }

  /**
   * The leader has exited. During a termination the group is watched until it is empty; when the
   * leader ended on its own, anything still alive in its group is a stray, and goes too.
   */
  leaderExit(): void {
    this.leaderExited = true;
    if (this.settled) {
      this.onSettled();
    } else if (this.terminating) {
      this.pollGroup();
    } else {
      this.reapSurvivors();
    }
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimers();
  }

  private sendTerm(): void {
    this.signalGroup('SIGTERM');
    this.signalLeader('SIGTERM');
    this.killTimer = setTimeout(() => this.escalate(), this.killGraceMs);
  }

  private escalate(): void {
    this.killTimer = undefined;
    if (this.disposed || this.settled) {
      return;
    }
    if (this.leaderExited) {
      // Only survivors are left; confirm they are alive (zombies count as alive for kill(2)).
      if (!groupHasLiveMembers(this.pgid) || this.signalGroup('SIGKILL') === 'gone') {
        this.settle();
        return;
      }
    } else {
      this.signalGroup('SIGKILL');
      this.signalLeader('SIGKILL');
    }
    this.forcefullyKilled = true;
    // The poll started at the leader's exit notices the deaths; this only bounds the wait.
    this.killSettleTimer = setTimeout(() => this.settle(), KILL_SETTLE_MS);
  }

  private reapSurvivors(): void {
    if (!groupHasLiveMembers(this.pgid)) {
      this.settle();
      return;
    }
    this.terminating = true;
    this.sendTerm();
    this.pollTimer = setTimeout(() => this.pollGroup(), GROUP_POLL_MS);
  }

  /** After the leader's exit, watch the group until it is empty so KILL is never sent needlessly. */
  private pollGroup(): void {
    this.pollTimer = undefined;
    if (this.disposed || this.settled) {
      return;
    }
    if (groupHasLiveMembers(this.pgid)) {
      this.pollTimer = setTimeout(() => this.pollGroup(), GROUP_POLL_MS);
    } else {
      this.settle();
    }
  }

  private settle(): void {
    this.settled = true;
    // Clearing the KILL timer here matters beyond tidiness: once the group is empty its id may be
    // reused by an unrelated process group.
    this.clearTimers();
    this.onSettled();
  }

  private clearTimers(): void {
    clearTimeout(this.killTimer);
    clearTimeout(this.pollTimer);
    clearTimeout(this.killSettleTimer);
    this.killTimer = undefined;
    this.pollTimer = undefined;
    this.killSettleTimer = undefined;
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
      this.leader.kill(signal);
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

/**
 * `pid (comm) state ppid pgrp …`; comm may itself contain spaces and parentheses. `startTime` is
 * field 22, the start in clock ticks after boot: with the pid it names one process, since a pid
 * reused later comes with a later start (undefined when the line is shorter).
 */
export function parseProcStat(
  stat: string,
): { pid: number; state: string; pgrp: number; startTime: string | undefined } | undefined {
  const close = stat.lastIndexOf(')');
  if (close === -1) {
    return undefined;
  }
  const fields = stat.slice(close + 2).split(' ');
  const [state, , pgrp] = fields;
  if (state === undefined || pgrp === undefined) {
    return undefined;
  }
  // Fields are counted from 1 and `state` is the third.
  const startTime = fields[22 - 3];
  return {
    pid: Number.parseInt(stat, 10),
    state,
    pgrp: Number(pgrp),
    startTime: startTime !== undefined && /^\d+$/.test(startTime) ? startTime : undefined,
  };
}

/** The `code` of a Node system error (`ESRCH`, `ENOENT`), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    return typeof error.code === 'string' ? error.code : undefined;
  }
  return undefined;
}
