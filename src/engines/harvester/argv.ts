/**
 * The theHarvester command line: typed options and a validated domain in, the arguments after the
 * binary name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 *
 * Every value is glued to its long option with `=` (`--domain=example.com`): Python's argparse
 * takes everything after the `=` as that option's value, even text starting with `-`, so no value
 * can ever be read as an option. The long names are the same in every release since 3.x.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import type { HarvesterOptions } from './options.js';

export interface HarvesterArgvContext {
  /**
   * The JSON report path (`<workspace>/report.json`). theHarvester writes `<name>.json` and
   * `<name>.xml` (the newest releases also `<name>.jsonl`) after dropping the extension of `--filename`:
   * `os.path.splitext` in current releases, `rsplit('.', 1)` in older 4.x. Passing the `.json`
   * path itself gives `report.json` with both, even when a folder of the path holds a dot.
   */
  readonly reportPath: string;
}

/**
 * Each option's flags, in command-line order. Keyed by option name so the compiler rejects an
 * option without an entry.
 */
const OPTION_FLAGS: {
  readonly [K in keyof HarvesterOptions]-?: (options: HarvesterOptions) => string[];
} = {
  // One comma-separated list: the schema holds every item to the closed list of source names,
  // so the joined value is plain names and commas.
  sources: (o) => [`--source=${o.sources.join(',')}`],
  limit: (o) => [`--limit=${o.limit}`],
  // Both are active DNS queries from the worker, off by default (the engine is passive OSINT).
  dnsLookup: (o) => (o.dnsLookup ? ['--dns-lookup'] : []),
  dnsBrute: (o) => (o.dnsBrute ? ['--dns-brute'] : []),
};

/**
 * The theHarvester arguments for one scan, e.g. for the domain `example.com` with defaults:
 * `--domain=example.com --source=baidu,certspotter,… --limit=200 --filename=<workspace>/report.json`.
 * Throws for a target type theHarvester does not take: the engine definition already excludes it.
 */
export function buildHarvesterArgv(
  options: HarvesterOptions,
  target: ScanTarget,
  context: HarvesterArgvContext,
): string[] {
  if (target.type !== 'domain') {
    throw new Error(`theHarvester does not scan ${target.type} targets`);
  }
  return [
    `--domain=${target.value}`,
    ...Object.values(OPTION_FLAGS).flatMap((flags) => flags(options)),
    `--filename=${context.reportPath}`,
  ];
}
