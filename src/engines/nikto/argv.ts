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
  /** Where nikto writes its JSON report (`-output`), inside the scan's workspace. */
  readonly outputFile: string;
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
 * The nikto arguments for one scan, e.g. for `https://app.example.com/` with defaults:
 * `-host https://app.example.com/ -Format json -output <file> -Tuning 123 -ask no
 * -nointeractive -Display P`.
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
    // The report goes to a file in the workspace; stdout stays for progress.
    '-Format',
    'json',
    '-output',
    context.outputFile,
    ...optionFlags,
    ...NIKTO_FIXED_FLAGS,
  ];
}
