import { Type } from '@sinclair/typebox';
import { PortList } from '../option-types.js';

/** nmap's timing templates, slowest first (`-T0` … `-T5`). */
export const NMAP_TIMINGS = ['T0', 'T1', 'T2', 'T3', 'T4', 'T5'] as const;
export type NmapTiming = (typeof NMAP_TIMINGS)[number];

/** The specification's defaults; the schema and `nmapOptionsWithDefaults` both read them here. */
const DEFAULTS = {
  ports: '1-1024',
  timing: 'T3',
  serviceDetection: true,
  osDetection: false,
  scriptScan: false,
  udpScan: false,
} as const satisfies Partial<NmapOptions>;

/**
 * One NSE category (`vuln`, `default`) or script name (`http-title`). Narrower than `ToolWord` on
 * purpose: `--script` also takes file paths (`/tmp/x.nse` would run any script on the worker),
 * directories, globs (`http-*`), comma lists and boolean expressions (`not intrusive`), so `/`,
 * `.`, `*`, `,` and spaces are all refused. Each list item becomes one comma-separated name.
 *
 * Refused as well: the `broadcast` category and `broadcast-*` scripts (they probe the worker's
 * own network, not the target: a way around TARGET_NOT_ALLOWED), `external` (sends target data to
 * third-party services), `dos`, `all` (every script there is, exploits and brute force included)
 * and the words `and`, `or`, `not`, which are operators in the expression the names go into.
 * Scripts of those three categories under other names (`lltd-discovery`, `ipv6-ra-flood`, and
 * those that `vuln` or `default` pull in) are kept out by that expression (argv.ts).
 */
export const NseName = Type.String({
  pattern: '^(?!(broadcast|external|dos|all|and|or|not)$)(?!broadcast-)[a-z0-9][a-z0-9_-]{0,63}$',
  description: 'NSE category or script name; not all, broadcast, broadcast-*, external or dos',
});

/** nmap options (specification, "Engine options"). */
export const nmapOptionsSchema = Type.Object(
  {
    ports: Type.Optional({ ...PortList, default: DEFAULTS.ports }),
    timing: Type.Optional(Type.String({ enum: [...NMAP_TIMINGS], default: DEFAULTS.timing })),
    serviceDetection: Type.Optional(Type.Boolean({ default: DEFAULTS.serviceDetection })),
    osDetection: Type.Optional(Type.Boolean({ default: DEFAULTS.osDetection })),
    scriptScan: Type.Optional(Type.Boolean({ default: DEFAULTS.scriptScan })),
    scripts: Type.Optional(
      Type.Array(NseName, {
        maxItems: 100,
        default: [],
        description: 'NSE script categories or script names (no paths, globs or expressions)',
      }),
    ),
    udpScan: Type.Optional(Type.Boolean({ default: DEFAULTS.udpScan })),
    topPorts: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  },
  { additionalProperties: false },
);

/** nmap options with every default applied: what `buildNmapArgv` takes. */
export interface NmapOptions {
  readonly ports: string;
  readonly timing: NmapTiming;
  readonly serviceDetection: boolean;
  readonly osDetection: boolean;
  readonly scriptScan: boolean;
  readonly scripts: readonly string[];
  readonly udpScan: boolean;
  /** When set, nmap scans the N most common ports and `ports` is not used. */
  readonly topPorts: number | undefined;
}

function isTiming(value: unknown): value is NmapTiming {
  return typeof value === 'string' && (NMAP_TIMINGS as readonly string[]).includes(value);
}

function booleanOr(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/**
 * Typed nmap options from an `options` object that already passed `nmapOptionsSchema`; absent
 * fields get the specification's defaults. The type checks only narrow `unknown`: they do not
 * replace validation.
 * @example nmapOptionsWithDefaults({ timing: 'T4' }).ports // '1-1024'
 */
export function nmapOptionsWithDefaults(input: Record<string, unknown>): NmapOptions {
  const scripts = Array.isArray(input.scripts) ? input.scripts : [];
  return {
    ports: typeof input.ports === 'string' ? input.ports : DEFAULTS.ports,
    timing: isTiming(input.timing) ? input.timing : DEFAULTS.timing,
    serviceDetection: booleanOr(input.serviceDetection, DEFAULTS.serviceDetection),
    osDetection: booleanOr(input.osDetection, DEFAULTS.osDetection),
    scriptScan: booleanOr(input.scriptScan, DEFAULTS.scriptScan),
    scripts: scripts.filter((name): name is string => typeof name === 'string'),
    udpScan: booleanOr(input.udpScan, DEFAULTS.udpScan),
    topPorts: typeof input.topPorts === 'number' ? input.topPorts : undefined,
  };
}
