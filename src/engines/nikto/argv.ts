/**
 * The nikto command line: typed options and a validated target in, the arguments after the binary
 * name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 *
 * nikto reads its arguments with Perl's Getopt::Long (`no_ignore_case`). Every option that takes
 * a value is declared `name=s`, and Getopt::Long then always takes the next word as the value,
 * even one starting with `-`, so each value below is written as the word after its flag. Full
 * option names are used (never abbreviations such as `-h` or `-o`, which only work while they
 * stay unique among nikto's options).
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import type { NiktoOptions } from './options.js';

export interface NiktoArgvContext {
  /** Where nikto writes its report (`-output`), inside the scan's workspace. */
  readonly outputFile: string;
  /**
   * The installed nikto's version as the worker read it at start (`nikto -Version`), e.g.
   * `2.1.5`; null when it could not be read. It decides the report format and `-nocheck`.
   */
  readonly version: string | null;
}

/** A version's numeric parts: `2.1.5` → [2, 1, 5]; null when it does not start with a number. */
function versionParts(version: string | null): number[] | null {
  const match = /^\s*v?(\d+(?:\.\d+)*)/i.exec(version ?? '');
  return match?.[1] === undefined ? null : match[1].split('.').map(Number);
}

/** Whether `version` is at least `minimum` (both dotted numbers; missing parts count as 0). */
function atLeast(version: string | null, minimum: readonly number[]): boolean {
  const parts = versionParts(version);
  if (parts === null) {
    return false;
  }
  for (let i = 0; i < minimum.length; i += 1) {
    const have = parts[i] ?? 0;
    const want = minimum[i] ?? 0;
    if (have !== want) {
      return have > want;
    }
  }
  return true;
}

/**
 * The report format for a nikto version: JSON from 2.1.6 (its first release with the JSON
 * report plugin); XML before that (Debian's 2.1.5 answers `-Format json` with `+ ERROR: Invalid
 * output format` and writes nothing) and when the version is unknown (every nikto writes XML).
 * @example niktoReportFormat('2.1.5') // 'xml'
 * @example niktoReportFormat('2.5.0') // 'json'
 */
export function niktoReportFormat(version: string | null): 'json' | 'xml' {
  return atLeast(version, [2, 1, 6]) ? 'json' : 'xml';
}

/**
 * Whether the version has `-nocheck`: nikto 2.6 asks a cirt.net host for the latest version on
 * every run unless given it; 2.5 and older have no such flag (and refuse an unknown one), so it
 * is given from 2.6.0 only, never to an unknown version.
 */
export function niktoHasNocheck(version: string | null): boolean {
  return atLeast(version, [2, 6]);
}

/**
 * Each option's flags, in the order they appear on the command line. Keyed by option name so the
 * compiler rejects an option without an entry.
 */
const OPTION_FLAGS: { readonly [K in keyof NiktoOptions]-?: (options: NiktoOptions) => string[] } =
  {
    tuning: (o) => ['-Tuning', o.tuning],
    // nikto converts `600s`, `10m`, `1h` to seconds itself (time_to_seconds); the schema allows
    // only that grammar.
    maxTime: (o) => (o.maxTime === undefined ? [] : ['-maxtime', o.maxTime]),
    // Unset: nikto tries plain HTTP first, then HTTPS, on the port of the URL.
    ssl: (o) => (o.ssl === undefined ? [] : [o.ssl ? '-ssl' : '-nossl']),
  };

/**
 * Flags every run gets: no questions and no update submission (`-ask no` keeps nikto from opening
 * /dev/tty to ask whether to send server banners to cirt.net), no keyboard polling
 * (`-nointeractive`), and the periodic `- STATUS: … (~N% complete …)` lines on stdout that
 * progress.ts reads (`-Display P`; nikto's default plugin set runs its tests with `report:500`).
 */
export const NIKTO_FIXED_FLAGS: readonly string[] = [
  '-ask',
  'no',
  '-nointeractive',
  '-Display',
  'P',
];

/**
 * The `-host` value for a URL target: scheme, host, port and path only.
 * - nikto splits `-host` on commas into several targets (set_targets), so a comma in the path
 *   would add a second, unvalidated target: it is percent-encoded (`%2C`, which the server reads
 *   as the same path).
 * - nikto ignores the query and fragment of the URL anyway (only the path becomes its `-root`),
 *   so they are left out; user info is refused by target validation already.
 * @example niktoHostArgument('https://app.example.com/shop?a=1') // 'https://app.example.com/shop'
 */
export function niktoHostArgument(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname.replaceAll(',', '%2C')}`;
}

/**
 * The nikto arguments for one scan, e.g. for `https://app.example.com/` with defaults and nikto
 * 2.5: `-host https://app.example.com/ -Format json -output <file> -Tuning 123 -ask no
 * -nointeractive -Display P` (`-Format xml` for 2.1.5; `-nocheck` added from 2.6).
 * The target is the value of `-host` (Getopt::Long `host=s`: the next word, whatever it looks
 * like); it is an absolute http(s) URL, validated never to start with `-`.
 * Throws for a target type nikto does not take: the engine definition already excludes those.
 */
export function buildNiktoArgv(
  options: NiktoOptions,
  target: ScanTarget,
  context: NiktoArgvContext,
): string[] {
  if (target.type !== 'url') {
    throw new Error(`nikto does not scan ${target.type} targets`);
  }
  const optionFlags = Object.values(OPTION_FLAGS).flatMap((flags) => flags(options));
  return [
    '-host',
    niktoHostArgument(target.value),
    // The report goes to a file in the workspace; stdout stays for progress. parse.ts tells the
    // format from the report's first character, so either is read.
    '-Format',
    niktoReportFormat(context.version),
    '-output',
    context.outputFile,
    ...optionFlags,
    ...NIKTO_FIXED_FLAGS,
    ...(niktoHasNocheck(context.version) ? ['-nocheck'] : []),
  ];
}
