/**
 * The nuclei command line: typed options and a validated target in, the arguments after the binary
 * name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 *
 * Every value travels glued to its flag (`-tags=cve,rce`): nuclei parses its command line with
 * goflags over Go's `flag` package, which reads `-name=value` as one argument, so no value can be
 * read as a flag of its own, whatever it starts with.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import { NUCLEI_TEMPLATE_DIRECTORIES, type NucleiOptions } from './options.js';

export interface NucleiArgvContext {
  /** Where nuclei writes its JSON lines (`-o`), inside the scan's workspace. */
  readonly reportPath: string;
  /** ALLOW_PRIVATE_TARGETS (`TargetPin.privateTargetsAllowed`): then no `-lna`. */
  readonly privateTargetsAllowed: boolean;
}

/**
 * Seconds between two statistics lines (`-si`). nuclei prints them on stderr (its
 * `pkg/progress/progress.go` writes with `fmt.Fprintf(os.Stderr, …)`), one JSON object per line
 * with `-sj`; `parseNucleiProgress` reads them.
 */
export const NUCLEI_STATS_INTERVAL_SECONDS = 2;

/**
 * Where the worker image keeps nuclei-templates (`-ud`). The scanner's HOME is the scan's fresh
 * workspace, where nuclei would find no templates and download a fresh copy on every scan; the
 * operator installs them here once (`nuclei -ud /opt/nuclei-templates -ut`) and updates them
 * between scans, never during one (`-duc`).
 */
export const NUCLEI_TEMPLATES_DIR = '/opt/nuclei-templates';

/** The target types nuclei takes (the specification's compatibility table). */
const NUCLEI_TARGET_TYPES: ReadonlySet<ScanTarget['type']> = new Set([
  'host',
  'url',
  'domain',
  'ip',
]);

/**
 * What nuclei would expand into many targets instead of scanning it: an autonomous system number
 * (`AS15169`, or digits alone) becomes every address range the AS announces (asnmap's `IsASN`:
 * upper-cased, `AS` prefix removed, the rest an integer). `AS15169` passes the host grammar, so
 * without this check one scan could sweep a whole network past the target checks.
 */
const ASN_LIKE = /^(as)?[0-9]+$/i;

/**
 * Why nuclei must not be given this target, or null: scan creation answers INVALID_TARGET with it
 * (`EngineDefinition.targetProblem`), and `buildNucleiArgv` refuses it again.
 * @example nucleiTargetProblem({ type: 'host', value: 'AS15169', host: 'AS15169', hostIsAddress: false })
 *   // 'nuclei reads AS15169 as an autonomous system number and would scan all its address ranges'
 */
export function nucleiTargetProblem(target: ScanTarget): string | null {
  return ASN_LIKE.test(target.value)
    ? `nuclei reads ${target.value} as an autonomous system number and would scan all its address ranges`
    : null;
}

/**
 * Each option's flags, in command-line order. Keyed by option name so the compiler rejects an
 * option without an entry. The schema keeps tags to `[a-z0-9_-]` and the other lists to closed
 * enums, so a joined list holds exactly the given items (goflags splits list values on commas).
 */
const OPTION_FLAGS: {
  readonly [K in keyof NucleiOptions]-?: (options: NucleiOptions) => string[];
} = {
  // One `-t` per directory, relative to `-ud`; category names come from a closed table.
  templates: (o) =>
    [...new Set(o.templates.flatMap((category) => NUCLEI_TEMPLATE_DIRECTORIES[category]))].map(
      (directory) => `-t=${directory}`,
    ),
  severity: (o) => [`-severity=${o.severity.join(',')}`],
  tags: (o) => (o.tags.length === 0 ? [] : [`-tags=${o.tags.join(',')}`]),
  excludeTags: (o) => (o.excludeTags.length === 0 ? [] : [`-etags=${o.excludeTags.join(',')}`]),
  concurrency: (o) => [`-c=${o.concurrency}`],
  rateLimit: (o) => [`-rl=${o.rateLimit}`],
};

/**
 * The value given to `-u`. goflags splits `-u` on commas (`CommaSeparatedStringSliceOptions`), so
 * `https://a.example/?x=1,10.0.0.1` would add a second, unvalidated target, and a part starting
 * with a quote (`"`, `'`, a backtick) is read up to the matching quote. A comma can only occur in
 * a URL (host names and addresses have none), where `%2C` is its percent-encoded form; with every
 * comma encoded there is one part, starting with the target's first character (a letter or
 * digit), so exactly the validated target reaches nuclei.
 */
export function nucleiTargetValue(target: ScanTarget): string {
  return target.value.replaceAll(',', '%2C');
}

/**
 * The nuclei arguments for one scan, e.g. for `{ type: 'url', value: 'https://example.com/' }` with
 * defaults: `-u=https://example.com/ -jsonl -o=<report> -silent -nc -duc -stats -sj -si=2
 * -ud=/opt/nuclei-templates -t=http/cves/ -t=network/cves/
 * -ni -lna -severity=info,low,medium,high,critical,unknown -c=25 -rl=150`.
 * nuclei has no positional target (so no `--`): the target is the value glued to `-u`.
 * Throws for a target type nuclei does not take, and for a target nuclei would expand (an ASN).
 */
export function buildNucleiArgv(
  options: NucleiOptions,
  target: ScanTarget,
  context: NucleiArgvContext,
): string[] {
  if (!NUCLEI_TARGET_TYPES.has(target.type)) {
    throw new Error(`nuclei does not scan ${target.type} targets`);
  }
  const problem = nucleiTargetProblem(target);
  if (problem !== null) {
    throw new Error(problem);
  }
  const optionFlags = Object.values(OPTION_FLAGS).flatMap((flags) => flags(options));
  return [
    `-u=${nucleiTargetValue(target)}`,
    // JSON lines into the report file (`-json` in nuclei 2.x, `-jsonl`/`-j` since 3.0).
    '-jsonl',
    `-o=${context.reportPath}`,
    // Findings only on stdout, without ANSI colours: nothing for the runner to buffer or strip.
    '-silent',
    '-nc',
    // No update check against projectdiscovery.io in the middle of a tenant's scan.
    '-duc',
    // Statistics as JSON lines on stderr every few seconds (progress).
    '-stats',
    '-sj',
    `-si=${NUCLEI_STATS_INTERVAL_SECONDS}`,
    `-ud=${NUCLEI_TEMPLATES_DIR}`,
    // No interactsh: out-of-band templates would have a third-party server (oast.*) learn which
    // hosts are scanned, and have the target call it.
    '-ni',
    // -restrict-local-network-access: nuclei's own dialer refuses local and private addresses,
    // also behind a redirect or a name that resolves there later. Left out when private targets
    // are allowed, where it would refuse the very target the tenant may scan.
    ...(context.privateTargetsAllowed ? [] : ['-lna']),
    ...optionFlags,
  ];
}
