/**
 * The nmap command line: typed options and a validated target in, the arguments after the binary
 * name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import type { NmapOptions } from './options.js';

export interface NmapArgvContext {
  /** Where nmap writes its XML report (`-oX`), inside the scan's temp directory. */
  readonly outputFile: string;
  /** Whether the worker may open raw sockets: then a SYN scan (`-sS`), else a connect scan. */
  readonly privileged: boolean;
}

/**
 * How often nmap prints a "Timing: About N% done" line on stdout (`parseNmapProgress` reads it).
 * Two seconds keeps the progress fresh without flooding the runner's output buffer.
 */
export const NMAP_STATS_INTERVAL = '2s';

/** The target types nmap takes (the specification's compatibility table). */
const NMAP_TARGET_TYPES: ReadonlySet<ScanTarget['type']> = new Set([
  'host',
  'ip',
  'domain',
  'network',
]);

/**
 * Each option's flags, in the order they appear on the command line. Keyed by option name so the
 * compiler rejects an option without an entry; each entry sees all options because `ports` gives
 * way to `topPorts`.
 */
const OPTION_FLAGS: { readonly [K in keyof NmapOptions]-?: (options: NmapOptions) => string[] } = {
  udpScan: (o) => (o.udpScan ? ['-sU'] : []),
  timing: (o) => [`-${o.timing}`],
  // `--top-ports` replaces the port list: with both, nmap would scan the union.
  topPorts: (o) => (o.topPorts === undefined ? [] : ['--top-ports', String(o.topPorts)]),
  ports: (o) => (o.topPorts === undefined ? ['-p', o.ports] : []),
  serviceDetection: (o) => (o.serviceDetection ? ['-sV'] : []),
  osDetection: (o) => (o.osDetection ? ['-O'] : []),
  scriptScan: (o) => (o.scriptScan ? ['-sC'] : []),
  // One argument with `=`, so the value can never be read as an option or a target; the schema
  // keeps each name to `[a-z0-9_-]`, so the joined list is plain names and commas.
  scripts: (o) => (o.scripts.length === 0 ? [] : [`--script=${o.scripts.join(',')}`]),
};

/** True when the target is an IPv6 literal or IPv6 CIDR, which nmap only takes with `-6`. */
function isIpv6Target(target: ScanTarget): boolean {
  return (target.type === 'ip' || target.type === 'network') && target.value.includes(':');
}

/** Flags that come from the target rather than from the options. */
function targetFlags(target: ScanTarget): string[] {
  return [
    // A single named asset is scanned even when it drops pings: a host behind a firewall that
    // blocks ICMP must not be reported as down with no ports. A CIDR range keeps host discovery,
    // or every address of a /16 would get a full port scan.
    ...(target.type === 'network' ? [] : ['-Pn']),
    ...(isIpv6Target(target) ? ['-6'] : []),
  ];
}

/**
 * The nmap arguments for one scan, e.g. for `{ type: 'ip', value: '10.0.0.5' }` with defaults:
 * `-sT -T3 -p 1-1024 -sV -Pn --stats-every 2s --no-stylesheet -oX <file> -- 10.0.0.5`.
 * The target comes last, after `--`: nmap 7.93 ends option parsing there (`nmap -sn -Pn -- -sV`
 * answers `Failed to resolve "-sV"`), so even a value starting with `-` could only be a target.
 * Throws for a target type nmap does not take: the engine definition already excludes those.
 */
export function buildNmapArgv(
  options: NmapOptions,
  target: ScanTarget,
  context: NmapArgvContext,
): string[] {
  if (!NMAP_TARGET_TYPES.has(target.type)) {
    throw new Error(`nmap does not scan ${target.type} targets`);
  }
  const optionFlags = Object.values(OPTION_FLAGS).flatMap((flags) => flags(options));
  return [
    // Without raw sockets nmap refuses -sS ("requires root privileges") and quits.
    context.privileged ? '-sS' : '-sT',
    ...optionFlags,
    ...targetFlags(target),
    // Progress on stdout; the XML report goes to a file so the two never mix.
    '--stats-every',
    NMAP_STATS_INTERVAL,
    // Leaves out the xml-stylesheet instruction that points at a path on the worker.
    '--no-stylesheet',
    '-oX',
    context.outputFile,
    '--',
    target.value,
  ];
}
