/**
 * The contract every scan engine satisfies, and the engine names of the specification. Pure data:
 * nothing here touches the file system or spawns anything (adapters/process does that).
 */
import type { TObject } from '@sinclair/typebox';
import type { ParseResult } from '../domain/findings/finding.js';
import type { TargetPin } from '../domain/targets/pin.js';
import type { ScanTarget, TargetType } from '../domain/targets/target.js';

export const ENGINE_NAMES = [
  'nmap',
  'zap',
  'trivy',
  'nuclei',
  'nikto',
  'sqlmap',
  'wapiti',
  'harvester',
  'sublist3r',
  'sentinel',
] as const;

export type EngineName = (typeof ENGINE_NAMES)[number];

export type { TargetType } from '../domain/targets/target.js';

/** What every engine has: a name, the targets it takes and its options. */
interface EngineBase {
  readonly name: EngineName;
  readonly description: string;
  /** Target types the engine takes (the specification's compatibility table; trivy adds image). */
  readonly targetTypes: readonly TargetType[];
  /** JSON Schema (TypeBox) of `options`: closed objects, defaults from the specification. */
  readonly optionsSchema: TObject;
  /**
   * Why this engine must not scan a target that passed the grammar of its type, or null; scan
   * creation answers INVALID_TARGET with the reason (nuclei expands `AS15169` into whole networks).
   */
  readonly targetProblem?: (target: ScanTarget) => string | null;
  /**
   * A value the schema accepts but this service refuses for the engine, as the option's name
   * (dotted below `options`) and the reason, or null. Checked after the schema with `target`
   * null (templates, and scans before their target is known), then again with the scan's target
   * (ZAP's login page must be on the target's origin); answered with INVALID_FIELD_VALUE.
   */
  readonly optionsProblem?: (
    options: Readonly<Record<string, unknown>>,
    target: ScanTarget | null,
  ) => { readonly field: string; readonly reason: string } | null;
  /**
   * JSON Schema of the scan's `config` for an engine that understands one (web-config.ts: sqlmap,
   * wapiti, nuclei, zap, nikto, sentinel): closed like `optionsSchema`. Absent: `config` is stored and shown as given (any
   * object of at most 16 KiB, the specification's "engine-specific configuration overrides").
   */
  readonly configSchema?: TObject;
  /** Like `optionsProblem`, for `config` (a reserved header name, an incomplete `auth`). */
  readonly configProblem?: (
    config: Readonly<Record<string, unknown>>,
  ) => { readonly field: string; readonly reason: string } | null;
  /** The scan `timeout` when the request gives none (seconds; at most 86400). */
  readonly defaultTimeoutSeconds: number;
}

/** An engine that is one tool: a worker runs its binary and reads its report. */
export interface ToolEngine extends EngineBase {
  readonly kind: 'tool';
  /** Executable looked up on PATH. */
  readonly binary: string;
  /** Arguments that make the binary print its version. */
  readonly versionArgs: readonly string[];
  /** How to run the tool and read its output. */
  readonly command: EngineCommand;
}

/**
 * The engine that runs others: a scan of it is a parent whose engines run as child scans
 * (use-cases/scans/sentinel-lifecycle.ts), so no worker runs it and it has no binary.
 */
export interface SentinelEngine extends EngineBase {
  readonly kind: 'sentinel';
  /** The engines the options name (besides those the plan picks), for the key's allowed list. */
  memberEngines(options: Readonly<Record<string, unknown>>): readonly string[];
}

export type EngineDefinition = ToolEngine | SentinelEngine;

/** What a parser knows besides the report text. */
export interface ParseContext {
  /**
   * The validated target the scan ran against. Some reports do not say where they looked:
   * sqlmap's log has no URL, nikto's JSON has no scheme, wapiti paths are relative.
   */
  readonly target: ScanTarget;
}

/**
 * A parser fed the report piece by piece, so a large report is never held whole in memory: the
 * runner reads the file in chunks (UTF-8 decoded across chunk boundaries; bytes that are not
 * UTF-8 arrive as U+FFFD) and calls `write` for each, then `end` once. Like `parse`, it never
 * throws on bad input: `end` returns what could be read, with warnings.
 */
export interface StreamingReportParser {
  write(chunk: string): void;
  end(): ParseResult;
}

/** Which output stream a progress line came from. */
export type OutputStream = 'stdout' | 'stderr';

/** What the one process runner needs to know about a tool: pure functions and data. */
export interface EngineCommand {
  /**
   * The report file, relative to the scan's private workspace; null: the report is stdout. One
   * path segment may be `*` (sqlmap writes `out/<host>/log`): every match, in name order, is read
   * as one report. A missing file is an empty report (sublist3r writes none when it found nothing).
   */
  readonly reportFile: string | null;
  /** Arguments after the binary name, from validated options (defaults filled in) and target. */
  buildArgv(
    options: Readonly<Record<string, unknown>>,
    target: ScanTarget,
    context: {
      /** Absolute path of `reportFile` in the workspace (with its `*` segment as written). */
      readonly reportPath: string;
      /** The scan's private workspace (absolute; also the tool's HOME, TMPDIR and cwd). */
      readonly workDir: string;
      readonly privileged: boolean;
      /** What the worker's check settled just before the start: the address it judged, and
       *  whether private targets are allowed. */
      readonly pin: TargetPin;
      /**
       * The tool's version as the worker read it at start (`versionArgs`), or null when it could
       * not be read; for tools whose command line changed between versions (nikto's report
       * format). Absent: not known to the caller.
       */
      readonly toolVersion?: string | null;
      /** The scan's validated `config` with its credentials in clear (`{}` for none). */
      readonly config?: Readonly<Record<string, unknown>>;
    },
  ): string[];
  /**
   * Files the tool reads, written into the workspace (mode 0600) before it starts: ZAP's
   * Automation Framework plan, a target list. Paths are relative to the workspace, without `..`.
   * Pure data: the runner does the writing.
   */
  inputFiles?(
    options: Readonly<Record<string, unknown>>,
    target: ScanTarget,
    context: {
      readonly reportPath: string;
      readonly workDir: string;
      /** The scan's validated `config` with its credentials in clear (`{}` for none). */
      readonly config?: Readonly<Record<string, unknown>>;
    },
  ): ReadonlyArray<{ readonly path: string; readonly content: string }>;
  /**
   * Report text to findings; also given the partial report of a cancelled or timed-out run.
   * Never throws: bad input gives what could be read plus warnings.
   */
  parse(report: string, context: ParseContext): ParseResult;
  /**
   * The same parser in streaming form; when present the runner uses it instead of `parse`, so the
   * report is never read whole. `parse(text)` and writing `text` in any chunks must agree.
   */
  createParser?(context: ParseContext): StreamingReportParser;
  /**
   * Progress (0..99) from one line of the tool's output, or null. Tools print progress on stdout
   * (nmap, sqlmap's log) or stderr (nuclei's statistics, trivy's log); the caller keeps the
   * highest value.
   */
  progress?(line: string, stream: OutputStream): number | null;
  /**
   * A progress reader for one run, when the reading depends on the options (theHarvester's
   * share of requested sources that answered) or keeps state between lines. Preferred over
   * `progress` when present; same contract.
   */
  createProgress?(
    options: Readonly<Record<string, unknown>>,
  ): (line: string, stream: OutputStream) => number | null;
  /**
   * A line of the tool's output that means the run failed although its exit code says success
   * (sqlmap exits 0 when it could not reach the target at all), as the message to show, or null.
   * The last such line seen turns a completed run into an engine error; findings are kept.
   */
  failure?(line: string, stream: OutputStream): string | null;
  /**
   * Fixed, non-secret environment variables the tool needs besides the runner's allowlist
   * (`PYTHONUNBUFFERED=1`, so a Python tool's progress lines arrive as they are printed). They
   * cannot replace PATH, HOME, TMPDIR, LANG, LC_ALL or TZ.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Raw sockets (CAP_NET_RAW), when this argv needs them (nmap's SYN, UDP and OS scans): the
   * sandbox gives that one capability to this process only when `needed` says so, with `env`
   * telling the tool it has it although it does not run as root. Unset: no capability at all.
   */
  readonly rawSockets?: {
    needed(argv: readonly string[]): boolean;
    readonly env: Readonly<Record<string, string>>;
  };
  /**
   * Files and directories outside /usr that the tool reads, shown read-only in the scanner
   * sandbox when they exist (Debian's nikto keeps its configuration in /etc/nikto and its plugins
   * and databases in /var/lib/nikto). Absolute paths; a missing one is left out.
   */
  readonly readOnlyPaths?: readonly string[];
  /** Exit codes after which the report is trusted. */
  readonly successExitCodes: readonly number[];
  /**
   * The tool always writes its report when it ran: a success exit without one is an engine
   * error, not a clean scan (nikto exits 1 or even 0 when it cannot start). Leave unset for tools
   * that write nothing when they found nothing (sublist3r).
   */
  readonly reportRequired?: boolean;
}

export function isEngineName(value: unknown): value is EngineName {
  return typeof value === 'string' && (ENGINE_NAMES as readonly string[]).includes(value);
}
