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
  /**
   * The address the worker resolved a host name target to and judged just before the start
   * (`TargetPin.address`). nmap scans it instead of the name; required for a name.
   */
  readonly pinnedAddress: string | null;
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
 * NSE categories whose scripts never run, whatever the selection: `broadcast` probes the worker's
 * own network instead of the target, `dos` attacks availability, `external` sends target data to
 * third parties. Category selections pull them in under other names (`vuln` holds
 * `broadcast-avahi-dos`, `default` holds `http-open-proxy`), and so do single scripts
 * (`lltd-discovery`, `ipv6-ra-flood`), so the whole selection is wrapped in an expression that
 * leaves them out rather than checked name by name.
 */
export const NSE_NEVER_RUN = ['broadcast', 'dos', 'external'] as const;

/**
 * The `--script` argument for the chosen NSE names, or null for none: `(a or b) and not
 * (broadcast or dos or external)`. One argument with `=`, so the value can never be read as an
 * option or a target. Names are joined with `or`, not commas: nmap splits `--script` on commas
 * before it reads an expression, so `(a,b)` would not parse. The schema keeps each name to
 * `[a-z0-9_-]` without the operator words, so the expression holds exactly those names. A
 * selection of which every script is left out makes nmap quit ("did not match a category,
 * filename, or directory"): an engine error, not a scan that silently ran nothing.
 */
function scriptArgument(names: readonly string[]): string | null {
  return names.length === 0
    ? null
    : `--script=(${names.join(' or ')}) and not (${NSE_NEVER_RUN.join(' or ')})`;
}

/** The NSE names to run: `default` for `scriptScan` (nmap's `-sC`), then `scripts`, each once. */
function scriptSelection(options: NmapOptions): string[] {
  return [...new Set([...(options.scriptScan ? ['default'] : []), ...options.scripts])];
}

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
  // `-sC` is `--script=default`, and `default` holds `external` scripts: it goes into the one
  // wrapped selection below instead.
  scriptScan: () => [],
  scripts: (o) => {
    const argument = scriptArgument(scriptSelection(o));
    return argument === null ? [] : [argument];
  },
};

/** Whether the target is a host name (not an address or a network). */
function isName(target: ScanTarget): boolean {
  return target.type !== 'network' && !target.hostIsAddress;
}

/**
 * What nmap is told to scan: an address or a network as validated; for a host name, the address
 * the worker checked, so nmap never resolves the name again (it could answer differently by then:
 * DNS rebinding). Throws for a name without one: nmap must not pick its own address.
 */
function scannedValue(target: ScanTarget, pinnedAddress: string | null): string {
  if (!isName(target)) {
    return target.value;
  }
  if (pinnedAddress === null) {
    throw new Error(`no address was checked for ${target.value}; nmap scans a name only there`);
  }
  return pinnedAddress;
}

/** Flags that come from the target rather than from the options. */
function targetFlags(target: ScanTarget, scanned: string): string[] {
  return [
    // A single named asset is scanned even when it drops pings: a host behind a firewall that
    // blocks ICMP must not be reported as down with no ports. A CIDR range keeps host discovery,
    // or every address of a /16 would get a full port scan.
    ...(target.type === 'network' ? [] : ['-Pn']),
    // A name scanned at its checked address: no DNS at all, not even the reverse lookup.
    ...(isName(target) ? ['-n'] : []),
    // nmap skips IPv6 addresses and ranges without it.
    ...(scanned.includes(':') ? ['-6'] : []),
  ];
}

/**
 * The nmap arguments for one scan, e.g. for `{ type: 'ip', value: '10.0.0.5' }` with defaults:
 * `-sT -T3 -p 1-1024 -sV -Pn --stats-every 2s --no-stylesheet -oX <file> -- 10.0.0.5`; for the
 * name `example.com` checked at 192.0.2.10: `… -sV -Pn -n … -- 192.0.2.10`.
 * The target comes last, after `--`: nmap 7.93 ends option parsing there (`nmap -sn -Pn -- -sV`
 * answers `Failed to resolve "-sV"`), so even a value starting with `-` could only be a target.
 * Throws for a target type nmap does not take (the engine definition already excludes those) and
 * for a name without a checked address.
 */
export function buildNmapArgv(
  options: NmapOptions,
  target: ScanTarget,
  context: NmapArgvContext,
): string[] {
  if (!NMAP_TARGET_TYPES.has(target.type)) {
    throw new Error(`nmap does not scan ${target.type} targets`);
  }
  const scanned = scannedValue(target, context.pinnedAddress);
  const optionFlags = Object.values(OPTION_FLAGS).flatMap((flags) => flags(options));
  return [
    // Without raw sockets nmap refuses -sS ("requires root privileges") and quits.
    context.privileged ? '-sS' : '-sT',
    ...optionFlags,
    ...targetFlags(target, scanned),
    // Progress on stdout; the XML report goes to a file so the two never mix.
    '--stats-every',
    NMAP_STATS_INTERVAL,
    // Leaves out the xml-stylesheet instruction that points at a path on the worker.
    '--no-stylesheet',
    '-oX',
    context.outputFile,
    '--',
    scanned,
  ];
}
