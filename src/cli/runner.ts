/**
 * The one way a CLI command runs: it resolves the profile into a typed client, calls the handler,
 * prints the handler's data as JSON (`--json`) or its human lines, and turns failures into exit
 * codes — an API error as `CODE: message`, a network error as fetch's message, never a stack.
 *
 * Exit codes: 0 success, 1 error, 2 usage (commander), 3 `scan --wait --fail-on` found a finding
 * at or above the severity.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { createRampartClient, RampartApiError, type RampartClient } from '../client/index.js';
import { resolveProfile } from './profiles.js';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_FAIL_ON = 3;

export interface CommandResult {
  /** What `--json` prints: the API's data. */
  readonly data: unknown;
  /** What a person reads (stdout), when not `--json`. */
  readonly lines: readonly string[];
  readonly exitCode?: number;
  /** The handler wrote stdout itself (a results file): print nothing more. */
  readonly printed?: boolean;
}

export interface RunContext {
  readonly json: boolean;
  readonly profile: string;
  /** A client for the command's profile (resolved on first use). */
  client(): RampartClient;
  /** A progress note on stderr (never with --json on stdout). */
  note(text: string): void;
}

interface GlobalOptions {
  readonly profile?: string;
  readonly json?: boolean;
}

/** A user error the CLI reports with exit 1 (a bad --option, an unreadable file). */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export function globalsOf(command: Command): { profile: string; json: boolean } {
  const options = command.optsWithGlobals<GlobalOptions>();
  return { profile: options.profile ?? 'default', json: options.json === true };
}

/** The message a failure prints: the contract's code and message, or the error's message. */
export function describeFailure(error: unknown): string {
  if (error instanceof RampartApiError) {
    return `${error.code}: ${error.message}`;
  }
  if (error instanceof TypeError && error.cause instanceof Error) {
    // fetch failed: say why (ECONNREFUSED, ENOTFOUND, ...).
    return `${error.message}: ${error.cause.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The action of a command: `.action(runner((ctx, ...args) => ...))`. Commander passes the
 * positional arguments, the command's options and the command itself; the handler gets the
 * arguments and options.
 */
export function runner<Args extends unknown[]>(
  handler: (ctx: RunContext, ...args: Args) => Promise<CommandResult>,
): (...commanderArgs: unknown[]) => Promise<void> {
  return async (...commanderArgs: unknown[]) => {
    const command = commanderArgs[commanderArgs.length - 1] as Command;
    const { profile, json } = globalsOf(command);
    let client: RampartClient | null = null;
    const ctx: RunContext = {
      json,
      profile,
      client() {
        client ??= createRampartClient(resolveProfile(profile));
        return client;
      },
      note(text) {
        process.stderr.write(`${text}\n`);
      },
    };
    try {
      // Commander's (args..., options, command) minus the command itself.
      const result = await handler(ctx, ...(commanderArgs.slice(0, -1) as Args));
      if (result.printed === true) {
        // Already on stdout.
      } else if (json) {
        process.stdout.write(`${JSON.stringify(result.data, null, 2)}\n`);
      } else if (result.lines.length > 0) {
        process.stdout.write(`${result.lines.join('\n')}\n`);
      }
      process.exitCode = result.exitCode ?? EXIT_OK;
    } catch (error) {
      process.stderr.write(`${describeFailure(error)}\n`);
      process.exitCode = EXIT_ERROR;
    }
  };
}

/** Lines of a table: one row per item, columns padded to their widest cell. */
export function table(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
): string[] {
  if (rows.length === 0) {
    return ['(none)'];
  }
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((row) => row[index]?.length ?? 0)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.toUpperCase())), ...cells.map(line)];
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) {
    return '-';
  }
  if (Array.isArray(value)) {
    return value.join(',');
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Lines of one object: `key: value`. */
export function details(item: Record<string, unknown>): string[] {
  return Object.entries(item).map(([key, value]) => `${key}: ${cellText(value)}`);
}

/**
 * Parses engine options: `key=value` gives the string value, `key:=json` the JSON value (a
 * number, boolean, array or object: `topPorts:=100`, `scripts:=["http-title"]`), as httpie does.
 * Strings stay strings, so `ports=443` is the string the nmap schema asks for.
 */
export function parseKeyValues(pairs: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw new CliError(`--option must look like key=value or key:=json, got "${pair}"`);
    }
    const text = pair.slice(at + 1);
    if (pair[at - 1] === ':') {
      const key = pair.slice(0, at - 1);
      try {
        result[key] = JSON.parse(text);
      } catch {
        throw new CliError(`--option ${key}:= needs a JSON value, got "${text}"`);
      }
    } else {
      result[pair.slice(0, at)] = text;
    }
  }
  return result;
}

/** Commander's collector for a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Commander's parser of a whole-number option or argument: anything else is a usage error (exit
 * 2) before any request. The service checks the range (INVALID_PAGE, INVALID_FIELD_VALUE, ...).
 */
export function integer(value: string): number {
  if (!/^-?\d+$/.test(value)) {
    throw new InvalidArgumentError('Not a whole number.');
  }
  return Number(value);
}

/** --page and --limit of a paged list. */
export interface PageOptions {
  readonly page?: number;
  readonly limit?: number;
}

export function withPageOptions(command: Command): Command {
  return command
    .option('--page <n>', 'page, from 1', integer)
    .option('--limit <n>', 'items per page', integer);
}

/** The query fields of --page and --limit (the service's defaults when absent). */
export function pageQuery(opts: PageOptions): { page?: number; limit?: number } {
  return {
    ...(opts.page !== undefined ? { page: opts.page } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
  };
}

/** The line under a paged table: `page 1/3, 42 scans`. */
export function pageLine(
  pagination: { page: number; totalPages: number; total: number },
  noun: string,
): string {
  return `page ${pagination.page}/${pagination.totalPages}, ${pagination.total} ${noun}`;
}
