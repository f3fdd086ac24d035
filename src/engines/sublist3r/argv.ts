/**
 * The sublist3r command line: typed options and a validated domain target in, the arguments after
 * the binary name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import type { Sublist3rOptions } from './options.js';

export interface Sublist3rArgvContext {
  /** Where sublist3r writes its subdomain list (`-o`), inside the scan's workspace. */
  readonly outputFile: string;
}

/**
 * The domains sublist3r 1.1 enumerates: its own check in `main()`, written out. Rampart's domain
 * grammar is wider (punycode labels such as `xn--bcher-kva`, `a--b`, a last label with digits);
 * for those sublist3r prints "Error: Please enter a valid domain" and exits 0 with no output,
 * which would read as a clean scan. Letters, digits, single hyphens or dots between them, and a
 * last label of two or more letters.
 */
const SUBLIST3R_DOMAIN = /^[a-z0-9]+([-.][a-z0-9]+)*\.[a-z]{2,}$/i;

/** Whether sublist3r would accept `name` as its `-d` value (see SUBLIST3R_DOMAIN). */
export function isSublist3rDomain(name: string): boolean {
  return name.length <= 253 && SUBLIST3R_DOMAIN.test(name);
}

/**
 * Each option's arguments, in command-line order. Keyed by option name so the compiler rejects an
 * option without an entry. Values are glued to their long option with `=`, so none can be read as
 * an option of its own; the schema holds each to a closed enum, a boolean, an integer or a digit
 * list.
 */
const OPTION_FLAGS: {
  readonly [K in keyof Sublist3rOptions]-?: (options: Sublist3rOptions) => string[];
} = {
  // sublist3r splits `-e` on commas; each item is one of the eleven enum names (no commas).
  engines: (o) => [`--engines=${o.engines.join(',')}`],
  // `-b` takes an optional value (argparse nargs='?'); alone it means "on". It is never the last
  // argument and what follows it always starts with `--`, so nothing is taken as its value.
  bruteforce: (o) => (o.bruteforce ? ['--bruteforce'] : []),
  // Only used by the brute-force module; always written so the effective value is the one asked
  // for, not sublist3r's own default of 30.
  threads: (o) => [`--threads=${o.threads}`],
  ports: (o) => (o.ports === undefined ? [] : [`--ports=${o.ports}`]),
};

/**
 * The sublist3r arguments for one scan, e.g. for `example.com` with defaults:
 * `--domain=example.com --engines=baidu,…,passivedns --threads=10 --output=<file> --no-color`.
 * The domain is glued to `--domain=`: argparse reads the whole argument as that option's value,
 * so it can never be taken for an option (the target grammar already refuses a leading `-`).
 * Throws for a target that is not a domain, or a domain sublist3r would refuse (it would exit 0
 * with nothing, indistinguishable from a clean result).
 */
export function buildSublist3rArgv(
  options: Sublist3rOptions,
  target: ScanTarget,
  context: Sublist3rArgvContext,
): string[] {
  if (target.type !== 'domain') {
    throw new Error(`sublist3r does not scan ${target.type} targets`);
  }
  if (!isSublist3rDomain(target.value)) {
    throw new Error(
      `sublist3r refuses the domain ${JSON.stringify(target.value.slice(0, 80))}: it takes only letters, digits, single hyphens and dots, ending in a letters-only label (no punycode labels)`,
    );
  }
  return [
    `--domain=${target.value}`,
    ...Object.values(OPTION_FLAGS).flatMap((flags) => flags(options)),
    // The subdomain list goes to a file; stdout stays for progress (and carries a banner).
    `--output=${context.outputFile}`,
    // No ANSI colour codes around the progress lines.
    '--no-color',
  ];
}
