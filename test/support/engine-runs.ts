/**
 * Runs one engine through the REAL process runner (argv array, private workspace, allowlisted
 * environment, the scanner sandbox when this machine has one: TEST_SANDBOX), the way the engine process tests under test/engines/ do: against the installed
 * scanner (sqlmap, wapiti, sublist3r), or against a NAMED TEST DOUBLE of a scanner that cannot be
 * installed here (test/doubles/scanners/<tool>.mjs), installed on a PATH directory of the run's
 * own. The run gets a fake scan record, a real AbortController (aborted at a progress value, once
 * a condition holds, and/or after a delay), a timeout; the result holds what the runner answered,
 * the progress values it reported, the time taken and, with a double, each argv the double got.
 * Every finding the runner answers, partial output included, must be a valid draft.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createProcessEngineRunner } from '../../src/adapters/process/process-engine-runner.js';
import type { ScanRecord } from '../../src/domain/scans/scan.js';
import { parseTarget } from '../../src/domain/targets/parse-target.js';
import type { TargetPin } from '../../src/domain/targets/pin.js';
import type { ScanTarget, TargetType } from '../../src/domain/targets/target.js';
import type { EngineCommand, EngineDefinition, ToolEngine } from '../../src/engines/engine.js';
import { checkEngineOptions } from '../../src/engines/validate-options.js';
import type { EngineRunOutput } from '../../src/use-cases/ports/engine-runs.js';
import {
  DOUBLE_SCRIPTS,
  type DoubleSettings,
  installScannerDouble,
  pathWith,
} from '../doubles/scanners/install-double.js';
import { expectValidDraftFinding } from './finding-schema.js';
import { TEST_SANDBOX } from './sandbox.js';

/** The engine as a tool; a test of an engine that runs no tool of its own fails at once. */
export function toolEngine(engine: EngineDefinition): ToolEngine {
  if (engine.kind !== 'tool') {
    throw new Error(`the ${engine.name} engine has no command`);
  }
  return engine;
}

/** The engine's command; a test of an engine without one fails at once. */
export function engineCommand(engine: EngineDefinition): EngineCommand {
  return toolEngine(engine).command;
}

/** `value` parsed as a target of `type` for `engine`, as scan creation would; refused: throws. */
export function engineTarget(
  engine: EngineDefinition,
  value: string,
  type: TargetType,
): ScanTarget {
  const parsed = parseTarget(value, type, engine.targetTypes, engine.name);
  if (!parsed.ok) {
    throw new Error(`test target refused: ${parsed.reason}`);
  }
  return parsed.target;
}

/** Options as the API stores them: validated against the engine, every default filled in. */
export function validatedOptions(
  engine: EngineDefinition,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const checked = checkEngineOptions(engine, options);
  if (!checked.ok) {
    throw new Error(`test options refused: ${checked.error.message}`);
  }
  return checked.options;
}

/** A running scan of `target` (the runner reads nothing of it; the request type needs one). */
export function fakeScanRecord(
  engine: EngineDefinition,
  target: ScanTarget,
  options: Record<string, unknown> = {},
): ScanRecord {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    tenantId: '00000000-0000-4000-8000-000000000002',
    apiKeyId: null,
    scanType: engine.name,
    name: `${engine.name} process test`,
    target: target.value,
    targetType: target.type,
    priority: 'normal',
    status: 'running',
    progress: 0,
    tags: [],
    options,
    config: {},
    timeoutSeconds: 3600,
    assetId: null,
    callbackUrl: null,
    templateId: null,
    parentScanId: null,
    traceContext: null,
    resultCount: 0,
    findingsSummary: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
    riskScore: 0,
    error: null,
    attempts: 1,
    createdAt: new Date(0),
    startedAt: new Date(0),
    completedAt: null,
    findingsPrunedAt: null,
  };
}

/**
 * A temporary directory for the whole test file, made before its tests and removed after them.
 * Read `path` inside tests and hooks.
 */
export function useTempDir(prefix: string): { readonly path: string } {
  let path = '';
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (path !== '') {
      await rm(path, { recursive: true, force: true });
    }
  });
  return {
    get path() {
      if (path === '') {
        throw new Error('useTempDir: the directory exists only inside tests and hooks');
      }
      return path;
    },
  };
}

/** Each argv a named test double logged, one JSON array per line (none when the log is absent). */
export async function loggedArgv(path: string | null): Promise<string[][]> {
  const text = path === null ? '' : await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as string[]);
}

export interface EngineRunSpec {
  readonly engine: EngineDefinition;
  /** The executable the runner looks up on PATH. */
  readonly binary: string;
  /** Instead of the engine's own command (an argv a double must refuse, say). */
  readonly command?: EngineCommand;
  /**
   * The named test double to run as `binary`: `tool`'s double with `settings`, installed (with an
   * argv log) in a fresh directory under `dir`, first on the run's PATH. Without it, the PATH is
   * the test process's own and the real scanner runs.
   */
  readonly double?: {
    readonly dir: string;
    readonly tool: string;
    readonly settings: DoubleSettings;
  };
  /** Where the runner creates the scan workspace (default: the OS temp directory). */
  readonly workspaceBase?: string;
  /** The tool's version as a worker would have probed it (default: unknown, null). */
  readonly toolVersion?: string | null;
  readonly target: ScanTarget;
  /** The options as given to the runner (default: none). */
  readonly options?: Record<string, unknown>;
  /** The scan's config, credentials in clear, as the worker hands it (default: none). */
  readonly config?: Record<string, unknown>;
  /** Validate `options` and fill in the defaults first, as the API would. */
  readonly validate?: boolean;
  /** What the worker's check settled (default: no address, private targets not allowed). */
  readonly pin?: TargetPin;
  readonly timeoutMs: number;
  /** Abort once a progress value of at least this arrives (0: the first progress value). */
  readonly abortAtProgress?: number;
  /** Abort once this holds (polled every 20 ms from the start, for at most 10 s). */
  readonly abortOnceTrue?: () => boolean;
  /** Wait this long before the abort, from the progress value or the condition that called it. */
  readonly abortAfterMs?: number;
  /** Called just before the abort (to see what is running at that moment). */
  readonly beforeAbort?: () => void;
}

export interface EngineRun {
  readonly output: EngineRunOutput;
  /** Every progress value the runner reported, in order. */
  readonly progress: number[];
  /** From the start of the run to the runner's answer. */
  readonly elapsedMs: number;
  /** From the abort to the runner's answer; null when not aborted. */
  readonly msAfterAbort: number | null;
  /** With a double: where it logged each argv it received. */
  readonly argvLog: string | null;
  /** With a double: each argv it received (none without a double). */
  readonly argvs: string[][];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One scan through the real process runner (see the file comment). */
export async function runEngine(spec: EngineRunSpec): Promise<EngineRun> {
  let path = process.env.PATH;
  let argvLog: string | null = null;
  let sandbox = TEST_SANDBOX;
  if (spec.double !== undefined) {
    const dir = await mkdtemp(join(spec.double.dir, 'double-'));
    const binDir = join(dir, 'bin');
    const logDir = join(dir, 'log');
    await mkdir(logDir);
    argvLog = join(logDir, 'argv.log');
    await installScannerDouble(binDir, spec.binary, spec.double.tool, {
      ...spec.double.settings,
      argvLog,
    });
    path = pathWith(binDir, process.env.PATH);
    if (sandbox !== null) {
      // The sandbox shows the double's bin directory (the tool's own, as for a tool under /opt);
      // its scripts and fixture are bound read-only and its argv log writable, for this test only.
      await chown(logDir, sandbox.uid, sandbox.gid);
      const fixture = spec.double.settings.fixture;
      sandbox = {
        ...sandbox,
        readOnlyPaths: [DOUBLE_SCRIPTS, ...(fixture === undefined ? [] : [fixture])],
        writablePaths: [logDir],
      };
    }
  }
  const runner = createProcessEngineRunner(
    {
      ...toolEngine(spec.engine),
      binary: spec.binary,
      command: spec.command ?? engineCommand(spec.engine),
    },
    {
      parentEnv: { PATH: path },
      privileged: false,
      workspaceBase: spec.workspaceBase,
      sandbox,
      toolVersion: spec.toolVersion ?? null,
    },
  );
  const options =
    spec.validate === true
      ? validatedOptions(spec.engine, spec.options ?? {})
      : (spec.options ?? {});

  const controller = new AbortController();
  const progress: number[] = [];
  let abortCalled = false;
  let abortTimer: NodeJS.Timeout | undefined;
  let abortedAt: number | null = null;
  const abort = () => {
    spec.beforeAbort?.();
    abortedAt = performance.now();
    controller.abort();
  };
  const callAbort = () => {
    if (abortCalled) {
      return;
    }
    abortCalled = true;
    if (spec.abortAfterMs === undefined) {
      abort();
    } else {
      abortTimer = setTimeout(abort, spec.abortAfterMs);
    }
  };

  const started = performance.now();
  const running = runner.run({
    scan: fakeScanRecord(spec.engine, spec.target, options),
    target: spec.target,
    options,
    config: spec.config ?? {},
    pin: spec.pin ?? { address: null, privateTargetsAllowed: false },
    signal: controller.signal,
    timeoutMs: spec.timeoutMs,
    onProgress: (percent) => {
      progress.push(percent);
      if (spec.abortAtProgress !== undefined && percent >= spec.abortAtProgress) {
        callAbort();
      }
    },
  });
  if (spec.abortOnceTrue !== undefined) {
    const deadline = Date.now() + 10_000;
    while (!spec.abortOnceTrue() && Date.now() < deadline) {
      await sleep(20);
    }
    callAbort();
  }
  const output = await running;
  for (const finding of output.findings) {
    expectValidDraftFinding(finding);
  }
  const ended = performance.now();
  clearTimeout(abortTimer);
  return {
    output,
    progress,
    elapsedMs: ended - started,
    msAfterAbort: abortedAt === null ? null : ended - abortedAt,
    argvLog,
    argvs: await loggedArgv(argvLog),
  };
}

/** One run against a file's named test double: its settings, and what differs from the file's. */
export interface DoubleRunSpec {
  readonly settings: DoubleSettings;
  readonly target?: ScanTarget;
  readonly options?: Record<string, unknown>;
  readonly config?: Record<string, unknown>;
  readonly pin?: TargetPin;
  readonly command?: EngineCommand;
  readonly timeoutMs?: number;
  readonly workspaceBase?: string;
  readonly abortAtProgress?: number;
}

/**
 * For a test file that runs `engine` against the named test double of `tool` (installed as
 * `binary`): a temporary directory for the file (`tempPrefix`), and a function that installs the
 * double with a run's settings on a PATH of its own and runs one scan through the real runner,
 * with the file's target, options and timeout (30 s) unless the run names others.
 */
export function useNamedDouble(file: {
  readonly engine: EngineDefinition;
  readonly binary: string;
  readonly tool: string;
  readonly tempPrefix: string;
  readonly target: ScanTarget;
  readonly options?: Record<string, unknown>;
  readonly validate?: boolean;
  readonly timeoutMs?: number;
  /** The version a worker would have probed from the double (default: unknown). */
  readonly toolVersion?: string | null;
}): (run: DoubleRunSpec) => Promise<EngineRun> {
  const dir = useTempDir(file.tempPrefix);
  return (run) =>
    runEngine({
      engine: file.engine,
      binary: file.binary,
      command: run.command,
      double: { dir: dir.path, tool: file.tool, settings: run.settings },
      workspaceBase: run.workspaceBase,
      target: run.target ?? file.target,
      options: run.options ?? file.options,
      ...(run.config === undefined ? {} : { config: run.config }),
      validate: file.validate,
      toolVersion: file.toolVersion,
      pin: run.pin,
      timeoutMs: run.timeoutMs ?? file.timeoutMs ?? 30_000,
      abortAtProgress: run.abortAtProgress,
    });
}

/**
 * Live processes started by this test process whose command line holds every one of `words`:
 * its descendants, since inside the scanner sandbox a tool's parent is bwrap, not the runner.
 */
export function ourChildren(...words: readonly string[]): number[] {
  return ourDescendants((proc) => words.every((word) => proc.cmdline().includes(word))).map(
    (proc) => proc.pid,
  );
}

/**
 * Records, every `everyMs` until `stop()`, the command lines of this test process's live
 * descendants whose command line holds every one of `words`: the argv a real scanner had, as the
 * kernel shows it to anyone on the machine (`/proc/<pid>/cmdline`; inside the sandbox bwrap's
 * command line carries the tool's argv too). `stop()` answers the distinct lines seen, arguments
 * separated by spaces; a test asserts what it saw, so a scanner that was never seen fails it.
 */
export function watchCommandLines(
  words: readonly string[],
  everyMs = 25,
): { stop(): readonly string[] } {
  const seen = new Set<string>();
  const sample = () => {
    for (const proc of ourDescendants((candidate) =>
      words.every((word) => candidate.cmdline().includes(word)),
    )) {
      const line = proc.cmdline().split('\0').join(' ').trim();
      if (line !== '') {
        seen.add(line);
      }
    }
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return [...seen];
    },
  };
}

/** Live processes that descend from this test process and that `wanted` accepts. */
export function ourDescendants(wanted: (proc: LiveProcess) => boolean): LiveProcess[] {
  const all = liveProcesses(() => true);
  const parents = new Map(all.map((proc) => [proc.pid, proc.ppid]));
  const descends = (pid: number): boolean => {
    for (let parent = parents.get(pid); parent !== undefined; parent = parents.get(parent)) {
      if (parent === process.pid) {
        return true;
      }
    }
    return false;
  };
  return all.filter((proc) => descends(proc.pid) && wanted(proc));
}

export interface LiveProcess {
  readonly pid: number;
  readonly ppid: number;
  /** The process group. */
  readonly pgid: number;
  /** The executable's name as the kernel shows it (`/proc/<pid>/stat`), e.g. `python3`. */
  readonly comm: string;
  /** The command line, arguments separated by NUL ('' once the process has ended). */
  cmdline(): string;
  /** The working directory ('' once the process has ended). */
  cwd(): string;
}

/** What `read` reads from /proc, or '' when the process ended meanwhile (its entry is gone). */
function whileAlive(read: () => string): string {
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return '';
    }
    throw error;
  }
}

/**
 * Live (not zombie) processes on this machine that `wanted` accepts, read from /proc. A process
 * that ends (or cannot be read) while it is looked at is left out.
 */
export function liveProcesses(wanted: (proc: LiveProcess) => boolean): LiveProcess[] {
  const found: LiveProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // After the name: state, ppid, pgrp, …
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const proc: LiveProcess = {
        pid: Number(entry),
        ppid: Number(ppid),
        pgid: Number(pgid),
        comm,
        cmdline: () => whileAlive(() => readFileSync(`/proc/${entry}/cmdline`, 'utf8')),
        cwd: () => whileAlive(() => readlinkSync(`/proc/${entry}/cwd`)),
      };
      if (state !== 'Z' && wanted(proc)) {
        found.push(proc);
      }
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}
