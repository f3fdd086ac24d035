import { Type } from '@sinclair/typebox';

/**
 * Every data source theHarvester's `-b/--source` takes, spelled exactly as the tool checks them
 * (case matters: `securityTrails`, `shodanInternetDB`). From the source catalog of current
 * theHarvester (`theHarvester/lib/source_catalog.py`, which `--source` is validated against).
 * Left out on purpose: `all` and the capability selectors (`subdomains`, `emails`, …), which
 * expand to sources that need API keys, and names the tool accepts but never runs (`linkedin`,
 * `netcraft`, `omnisint`, `sublist3r`, `zoomeyeapi`). A source the installed release does not
 * know makes theHarvester print "Invalid source" and exit 1 (an engine error).
 */
export const HARVESTER_SOURCES = [
  'arquivo',
  'baidu',
  'bevigil',
  'brave',
  'bufferoverun',
  'builtwith',
  'censys',
  'certspotter',
  'chaos',
  'commoncrawl',
  'criminalip',
  'crtsh',
  'dehashed',
  'dnsdb',
  'dnsdumpster',
  'duckduckgo',
  'dymo',
  'fofa',
  'fullhunt',
  'github-code',
  'gitlab',
  'hackertarget',
  'haveibeenpwned',
  'hibpverified',
  'hudsonrock',
  'hunter',
  'hunterhow',
  'intelx',
  'leakix',
  'leaklookup',
  'mojeek',
  'netlas',
  'onyphe',
  'otx',
  'pentesttools',
  'projectdiscovery',
  'rapiddns',
  'robtex',
  'rocketreach',
  'securityTrails',
  'securityscorecard',
  'sherlockeye',
  'shodan',
  'shodanInternetDB',
  'shodanct',
  'subdomaincenter',
  'subdomainfinderc99',
  'thc',
  'tomba',
  'urlscan',
  'virustotal',
  'waybackarchive',
  'whoisxml',
  'windvane',
  'yahoo',
  'zoomeye',
] as const;
export type HarvesterSource = (typeof HARVESTER_SOURCES)[number];

/**
 * "All public" (the specification's default): the sources that need no API key, are passive (no
 * traffic to the target) and have been in every theHarvester release since 4.x, so the default
 * never depends on keys or on the exact release installed.
 */
export const HARVESTER_PUBLIC_SOURCES = [
  'baidu',
  'certspotter',
  'crtsh',
  'duckduckgo',
  'hackertarget',
  'otx',
  'rapiddns',
  'subdomaincenter',
  'urlscan',
  'yahoo',
] as const satisfies readonly HarvesterSource[];

/** The specification's defaults; the schema and `harvesterOptionsWithDefaults` both read them. */
const DEFAULTS = {
  sources: HARVESTER_PUBLIC_SOURCES,
  limit: 200,
  dnsLookup: false,
  dnsBrute: false,
} as const satisfies HarvesterOptions;

/** theHarvester options (specification, "Engine options"). */
export const harvesterOptionsSchema = Type.Object(
  {
    sources: Type.Optional(
      Type.Array(Type.String({ enum: [...HARVESTER_SOURCES] }), {
        minItems: 1,
        maxItems: HARVESTER_SOURCES.length,
        uniqueItems: true,
        default: [...DEFAULTS.sources],
        description:
          'theHarvester data sources (default: every source that needs no API key); keyed sources need the key in /etc/theHarvester/api-keys.yaml on the worker',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 5000,
        default: DEFAULTS.limit,
        description: 'Maximum results per source',
      }),
    ),
    dnsLookup: Type.Optional(
      Type.Boolean({
        default: DEFAULTS.dnsLookup,
        description: 'Reverse DNS lookup of the /24 around every address found (active DNS)',
      }),
    ),
    dnsBrute: Type.Optional(
      Type.Boolean({
        default: DEFAULTS.dnsBrute,
        description: 'DNS brute force of subdomain names (active DNS)',
      }),
    ),
  },
  { additionalProperties: false },
);

/** theHarvester options with every default applied: what `buildHarvesterArgv` takes. */
export interface HarvesterOptions {
  readonly sources: readonly HarvesterSource[];
  readonly limit: number;
  readonly dnsLookup: boolean;
  readonly dnsBrute: boolean;
}

export function isHarvesterSource(value: unknown): value is HarvesterSource {
  return typeof value === 'string' && (HARVESTER_SOURCES as readonly string[]).includes(value);
}

function booleanOr(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/**
 * Typed theHarvester options from an `options` object that already passed
 * `harvesterOptionsSchema`; absent fields get the specification's defaults. The type checks only
 * narrow `unknown`: they do not replace validation (an unknown source name is dropped here, and a
 * list left empty falls back to the public sources).
 * @example harvesterOptionsWithDefaults({ limit: 50 }).sources // the ten public sources
 */
export function harvesterOptionsWithDefaults(input: Record<string, unknown>): HarvesterOptions {
  const sources = Array.isArray(input.sources) ? input.sources.filter(isHarvesterSource) : [];
  return {
    sources: sources.length === 0 ? DEFAULTS.sources : [...new Set(sources)],
    limit:
      typeof input.limit === 'number' && Number.isSafeInteger(input.limit)
        ? input.limit
        : DEFAULTS.limit,
    dnsLookup: booleanOr(input.dnsLookup, DEFAULTS.dnsLookup),
    dnsBrute: booleanOr(input.dnsBrute, DEFAULTS.dnsBrute),
  };
}
