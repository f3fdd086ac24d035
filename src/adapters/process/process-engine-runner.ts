/**
 * Runs a real scanner for a scan: a private workspace, the argv built by the engine's pure
 * builder, the one process runner (no shell, allowlisted environment, timeout then TERM then KILL
 * of the whole group, cancellation), then the report read and parsed, also when the run was cut
 * short (a cancelled or timed-out nmap leaves partial XML whose complete hosts still count).
 */
import { chown, mkdir, open, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import type { ParseResult } from '../../domain/findings/finding.js';
import type {
  EngineCommand,
  OutputStream,
  ParseContext,
  StreamingReportParser,
  ToolEngine,
} from '../../engines/engine.js';
import type { EngineRunner, EngineRunOutput } from '../../use-cases/ports/engine-runs.js';
import { findOnPath } from './probe-binaries.js';
import { runProcess } from './run-process.js';
import { limitReached, type Sandbox, sandboxCommand } from './sandbox.js';
import { scannerEnvironment, type WorkspaceOwner, withScanWorkspace } from './scan-workspace.js';

/**
 * A report larger than this is read up to this size (and parsed as a partial report) by engines
 * that parse a whole text; streaming parsers read up to MAX_STREAMED_REPORT_BYTES in chunks.
 */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;
const MAX_STREAMED_REPORT_BYTES = 1024 * 1024 * 1024;
const READ_CHUNK_BYTES = 256 * 1024;
const MAX_ERROR_DETAIL = 500;

export interface ProcessEngineRunnerOptions {
  /** Where PATH, LANG, LC_ALL and TZ come from; nothing else of it reaches the scanner. */
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /**
   * The worker runs as root, so the tool can have raw sockets (nmap -sS): as root itself without
   * a sandbox, through CAP_NET_RAW when the engine's `rawSockets` asks for it inside one.
   */
  readonly privileged: boolean;
  readonly killGraceMs?: number;
  /** Where workspaces are created (default: the OS temp directory). */
  readonly workspaceBase?: string;
  /** Run the tool in this sandbox (sandbox.ts); null or absent: as the service's own user. */
  readonly sandbox?: Sandbox | null;
  /** The tool's version as probed at start (probe-binaries.ts); given to the argv builder. */
  readonly toolVersion?: string | null;
}

/**
 * The files a `reportFile` names inside the workspace: the path itself, or, when one segment is
 * `*`, every entry matching it in name order. Missing directories give no files.
 */
export async function reportPaths(workDir: string, reportFile: string): Promise<string[]> {
  const segments = reportFile.split('/');
  const star = segments.indexOf('*');
  if (star === -1) {
    return [join(workDir, reportFile)];
  }
  const parent = join(workDir, ...segments.slice(0, star));
  let names: string[];
  try {
    names = (await readdir(parent)).sort();
  } catch {
    return [];
  }
  return names.map((name) => join(parent, name, ...segments.slice(star + 1)));
}

/**
 * Streams each file through `parser` in chunks, decoding UTF-8 across chunk boundaries (bytes
 * that are not UTF-8 become U+FFFD). Missing files are skipped. Returns whether the cap was hit.
 */
async function feedFiles(
  paths: readonly string[],
  write: (chunk: string) => void,
  maxBytes: number,
): Promise<{ readonly cut: boolean; readonly found: boolean }> {
  let total = 0;
  let found = false;
  for (const path of paths) {
    let handle: Awaited<ReturnType<typeof open>> | null = null;
    try {
      handle = await open(path, 'r');
    } catch {
      continue;
    }
    found = true;
    try {
      const decoder = new TextDecoder('utf-8');
      const buffer = Buffer.alloc(READ_CHUNK_BYTES);
      for (;;) {
        const room = Math.min(buffer.length, maxBytes - total);
        if (room <= 0) {
          return { cut: true, found };
        }
        const { bytesRead } = await handle.read(buffer, 0, room, null);
        if (bytesRead === 0) {
          break;
        }
        total += bytesRead;
        const text = decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
        if (text !== '') {
          write(text);
        }
      }
      const rest = decoder.decode();
      if (rest !== '') {
        write(rest);
      }
    } catch {
      // A file that vanished or failed mid-read: what was read so far is parsed.
    } finally {
      await handle.close();
    }
  }
  return { cut: false, found };
}

/**
 * Reads and parses the report, streaming it when the engine has a streaming parser. `found`:
 * whether any report file existed.
 */
export async function readAndParseReport(
  command: EngineCommand,
  workDir: string,
  context: ParseContext,
): Promise<ParseResult & { readonly found: boolean }> {
  const paths = command.reportFile === null ? [] : await reportPaths(workDir, command.reportFile);
  const streaming = command.createParser !== undefined;
  let parser: StreamingReportParser | null = null;
  const parts: string[] = [];
  const { cut, found } = await feedFiles(
    paths,
    (chunk) => {
      if (command.createParser !== undefined) {
        parser ??= command.createParser(context);
        parser.write(chunk);
      } else {
        parts.push(chunk);
      }
    },
    streaming ? MAX_STREAMED_REPORT_BYTES : MAX_REPORT_BYTES,
  );
  const warning = cut
    ? [`The report was larger than ${streaming ? '1 GiB' : '64 MiB'}; only its start was read`]
    : [];
  let parsed: ParseResult;
  if (parser !== null) {
    parsed = (parser as StreamingReportParser).end();
  } else {
    const text = parts.join('');
    parsed = text.trim() === '' ? { findings: [], warnings: [] } : command.parse(text, context);
  }
  return {
    findings: parsed.findings,
    warnings: warning.length === 0 ? parsed.warnings : [...parsed.warnings, ...warning],
    found,
  };
}

/**
 * Writes the engine's input files into the workspace; refuses paths that leave it. With `owner`
 * (a sandboxed run), the files and the directories made for them belong to the scanner user.
 */
async function writeInputFiles(
  workDir: string,
  files: ReadonlyArray<{ readonly path: string; readonly content: string }>,
  owner: WorkspaceOwner | undefined,
): Promise<void> {
  for (const file of files) {
    const relative = normalize(file.path);
    if (relative.startsWith('..') || relative.startsWith('/') || relative === '.') {
      throw new Error(`input file ${file.path} is outside the workspace`);
    }
    const path = join(workDir, relative);
    const firstMade = await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, file.content, { mode: 0o600 });
    if (owner !== undefined) {
      // mkdir answers the first directory it made: that one and those below it are new.
      for (
        let made = dirname(path);
        firstMade !== undefined && made.length >= firstMade.length;
        made = dirname(made)
      ) {
        await chown(made, owner.uid, owner.gid);
      }
      await chown(path, owner.uid, owner.gid);
    }
  }
}

function lastLines(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= MAX_ERROR_DETAIL ? trimmed : `…${trimmed.slice(-MAX_ERROR_DETAIL)}`;
}

/**
 * An unsandboxed tool, started through util-linux `setpriv --pdeathsig KILL` when that is on the
 * scanner's PATH: the kernel then kills the tool when the worker dies (kill -9, the OOM killer),
 * where it would otherwise run on under init until its own end. setpriv sets the signal and execs
 * the tool, so the tool keeps the pid, the process group and the signals the runner sends. It
 * covers the tool itself, not children it starts (those the next worker start kills:
 * workspace-owners.ts). Without setpriv the tool is started directly; scanner-sandbox.ts warns.
 * (A sandboxed tool needs none of this: bwrap's --die-with-parent and its PID namespace.)
 */
async function withParentDeathSignal(
  binaryPath: string,
  argv: readonly string[],
  pathEnv: string,
): Promise<{ readonly binary: string; readonly argv: readonly string[] }> {
  const setpriv = await findOnPath('setpriv', pathEnv);
  return setpriv === null
    ? { binary: binaryPath, argv }
    : { binary: setpriv, argv: ['--pdeathsig', 'KILL', '--', binaryPath, ...argv] };
}

/** The absolute paths of `paths` that exist (bwrap refuses to bind a missing one). */
async function existingPaths(paths: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    paths.map(async (path) => {
      if (!isAbsolute(path)) {
        return null;
      }
      try {
        await stat(path);
        return normalize(path);
      } catch {
        return null;
      }
    }),
  );
  return found.filter((path): path is string => path !== null);
}

/**
 * What is spawned for one run: the tool (resolved on the scanner's PATH) with a parent-death
 * signal, or the sandbox around it (which shows the tool's own directory; CAP_NET_RAW and the
 * engine's variables for it when the worker is root and the engine says this argv needs raw
 * sockets). Null: the tool is not on the scanner's PATH.
 */
async function spawnedCommand(
  engine: ToolEngine,
  argv: readonly string[],
  workDir: string,
  options: ProcessEngineRunnerOptions,
): Promise<{
  readonly binary: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
} | null> {
  const { command } = engine;
  const env = { ...command.env, ...scannerEnvironment(options.parentEnv, workDir) };
  const sandbox = options.sandbox ?? null;
  const binaryPath = isAbsolute(engine.binary)
    ? engine.binary
    : await findOnPath(engine.binary, env.PATH ?? '');
  if (binaryPath === null) {
    return null;
  }
  if (sandbox === null) {
    return { ...(await withParentDeathSignal(binaryPath, argv, env.PATH ?? '')), env };
  }
  const rawSockets = options.privileged && command.rawSockets?.needed(argv) === true;
  const toolPaths = await existingPaths(command.readOnlyPaths ?? []);
  const shown =
    toolPaths.length === 0
      ? sandbox
      : { ...sandbox, readOnlyPaths: [...(sandbox.readOnlyPaths ?? []), ...toolPaths] };
  return {
    ...sandboxCommand(shown, { binaryPath, argv, workDir, rawSockets }),
    // Like `command.env`, these cannot replace the runner's allowlist.
    env: rawSockets ? { ...command.rawSockets?.env, ...env } : env,
  };
}

export function createProcessEngineRunner(
  engine: ToolEngine,
  options: ProcessEngineRunnerOptions,
): EngineRunner {
  const command = engine.command;
  const sandbox = options.sandbox ?? null;
  const owner = sandbox === null ? undefined : { uid: sandbox.uid, gid: sandbox.gid };
  return {
    sandboxed: sandbox !== null,
    run(request) {
      // The owner directory already says rampart; the path stays short (workspace-owners.ts).
      return withScanWorkspace(
        engine.name,
        async (dir): Promise<EngineRunOutput> => {
          const reportPath = join(dir, command.reportFile ?? 'stdout.txt');
          let argv: string[];
          try {
            argv = command.buildArgv(request.options, request.target, {
              reportPath,
              workDir: dir,
              privileged: options.privileged,
              pin: request.pin,
              toolVersion: options.toolVersion ?? null,
              config: request.config ?? {},
            });
          } catch (error) {
            // A builder refuses what it cannot express safely (validation should have already).
            const why = error instanceof Error ? error.message : String(error);
            return {
              findings: [],
              warnings: [],
              ending: 'engine-error',
              message: `${engine.name} was not started: ${why}`,
            };
          }
          if (command.inputFiles !== undefined) {
            await writeInputFiles(
              dir,
              command.inputFiles(request.options, request.target, {
                reportPath,
                workDir: dir,
                config: request.config ?? {},
              }),
              owner,
            );
          }
          const progress = command.createProgress?.(request.options) ?? command.progress;
          let failure: string | null = null;
          const onLine = (stream: OutputStream) => (line: string) => {
            const percent = progress?.(line, stream) ?? null;
            if (percent !== null) {
              request.onProgress(percent);
            }
            failure = command.failure?.(line, stream) ?? failure;
          };
          const spawned = await spawnedCommand(engine, argv, dir, options);
          if (spawned === null) {
            return {
              findings: [],
              warnings: [],
              ending: 'engine-error',
              message: `${engine.name} could not be started: ENOENT: ${engine.binary} is not on the scanner PATH`,
            };
          }
          const result = await runProcess({
            ...spawned,
            cwd: dir,
            timeoutMs: request.timeoutMs,
            signal: request.signal,
            ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
            onStdoutLine: onLine('stdout'),
            onStderrLine: onLine('stderr'),
          });
          if (result.spawnError !== null) {
            return {
              findings: [],
              warnings: [],
              ending: 'engine-error',
              message: `${engine.name} could not be started: ${result.spawnError}`,
            };
          }
          const context = { target: request.target };
          const parsed =
            command.reportFile === null
              ? {
                  ...(result.stdout.trim() === ''
                    ? { findings: [], warnings: [] }
                    : command.parse(result.stdout, context)),
                  found: true,
                }
              : await readAndParseReport(command, dir, context);
          const base = { findings: parsed.findings, warnings: parsed.warnings };
          if (result.cancelled) {
            return { ...base, ending: 'cancelled', message: null };
          }
          if (result.timedOut) {
            return { ...base, ending: 'timed-out', message: null };
          }
          // A sandbox limit says more than the exit code or the tool's last words. The message
          // is the service's own words: the tool's stderr (the target's answers, its environment)
          // goes to the service's log only, as `detail` (issue 18).
          const limit = sandbox === null ? null : limitReached(sandbox.limits, result);
          const failed =
            result.exitCode === null || !command.successExitCodes.includes(result.exitCode);
          const engineError = (message: string) => ({
            ...base,
            ending: 'engine-error' as const,
            message,
            detail: lastLines(result.stderr) || null,
          });
          if (limit !== null && (failed || failure !== null)) {
            return engineError(`${engine.name} ${limit}`);
          }
          if (failed) {
            return engineError(
              result.exitCode === null
                ? `${engine.name} was ended by ${result.signal ?? 'a signal'}`
                : `${engine.name} exited with code ${result.exitCode}`,
            );
          }
          if (failure !== null) {
            return engineError(`${engine.name} failed: ${failure}`);
          }
          if (command.reportRequired === true && !parsed.found) {
            return engineError(
              `${engine.name} exited with code ${result.exitCode} but wrote no report`,
            );
          }
          return { ...base, ending: 'completed', message: null };
        },
        options.workspaceBase,
        owner,
      );
    },
  };
}
