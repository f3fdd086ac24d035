import { Type } from '@sinclair/typebox';
import { Duration } from '../option-types.js';

/**
 * Every attack module of wapiti 3.0.4 (`wapiti --list-modules`), in the order wapiti runs them:
 * modules are sorted by their `PRIORITY` (5, then 6 for blindsql, permanentxss and methods),
 * stable over the list in `wapitiCore/attack/attack.py`. The progress bands depend on this order.
 *
 * A closed list on purpose: `-m` is split on commas and takes `-name` (disable), `name:get`,
 * `all` and `common`, so free text could switch on modules nobody asked for. Names that only
 * later versions know (`timesql`, `log4shell`, `ssl`, `takeover`, `wp_enum` …) are refused: 3.0.4
 * would print "Unable to find a module" and run nothing for them, and the scan would look clean.
 */
export const WAPITI_MODULES = [
  'crlf',
  'csp',
  'http_headers',
  'csrf',
  'cookieflags',
  'exec',
  'file',
  'sql',
  'xss',
  'backup',
  'brute_login_form',
  'htaccess',
  'nikto',
  'buster',
  'shellshock',
  'ssrf',
  'redirect',
  'xxe',
  'wapp',
  'blindsql',
  'permanentxss',
  'methods',
] as const;
export type WapitiModule = (typeof WAPITI_MODULES)[number];

/**
 * The modules wapiti 3.0.4 runs when `-m` is not given ("used by default" in `--list-modules`,
 * `attack.commons`), in run order. This is what an absent `modules` option means.
 */
export const WAPITI_DEFAULT_MODULES = [
  'csp',
  'http_headers',
  'cookieflags',
  'exec',
  'file',
  'sql',
  'xss',
  'ssrf',
  'redirect',
  'blindsql',
  'permanentxss',
] as const satisfies readonly WapitiModule[];

/** wapiti's crawl scopes that the specification offers (`punk`, any host, is left out). */
export const WAPITI_SCOPES = ['url', 'page', 'folder', 'domain'] as const;
export type WapitiScope = (typeof WAPITI_SCOPES)[number];

/**
 * The defaults; the schema and `wapitiOptionsWithDefaults` both read them. `scope` is the
 * specification's `domain`, which this service runs as the target's host (argv.ts, issue 18).
 */
const DEFAULTS = { scope: 'domain', maxDepth: 3 } as const satisfies Partial<WapitiOptions>;

/** wapiti options (specification, "Engine options"). */
export const wapitiOptionsSchema = Type.Object(
  {
    modules: Type.Optional(
      Type.Array(Type.String({ enum: [...WAPITI_MODULES] }), {
        minItems: 1,
        maxItems: WAPITI_MODULES.length,
        description:
          "Attack modules of wapiti 3.0.4 (absent: wapiti's default set: csp, http_headers, " +
          'cookieflags, exec, file, sql, xss, ssrf, redirect, blindsql, permanentxss)',
      }),
    ),
    scope: Type.Optional(
      Type.String({
        enum: [...WAPITI_SCOPES],
        default: DEFAULTS.scope,
        description: 'Crawl scope: url, page, folder or domain',
      }),
    ),
    maxDepth: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 20,
        default: DEFAULTS.maxDepth,
        description: 'Crawl depth',
      }),
    ),
    maxTime: Type.Optional({
      ...Duration,
      description: 'Longest run, such as 600s, 10m or 1h, shared by the crawl and each module',
    }),
  },
  { additionalProperties: false },
);

/** wapiti options with every default applied: what `buildWapitiArgv` takes. */
export interface WapitiOptions {
  /** Null: wapiti's own default set (`WAPITI_DEFAULT_MODULES`), no `-m` on the command line. */
  readonly modules: readonly WapitiModule[] | null;
  readonly scope: WapitiScope;
  readonly maxDepth: number;
  /** `maxTime` in seconds, or null when not given. */
  readonly maxTimeSeconds: number | null;
}

const SECONDS_PER_UNIT: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };

/**
 * Seconds of a `Duration` (`600s`, `10m`, `1h`), or null for anything else.
 * @example durationSeconds('10m') // 600
 */
export function durationSeconds(value: unknown): number | null {
  const match = typeof value === 'string' ? /^([1-9][0-9]{0,5})([smh])$/.exec(value) : null;
  const unit = SECONDS_PER_UNIT[match?.[2] ?? ''];
  return match === null || unit === undefined ? null : Number(match[1]) * unit;
}

function isModule(value: unknown): value is WapitiModule {
  return typeof value === 'string' && (WAPITI_MODULES as readonly string[]).includes(value);
}

function isScope(value: unknown): value is WapitiScope {
  return typeof value === 'string' && (WAPITI_SCOPES as readonly string[]).includes(value);
}

/**
 * Typed wapiti options from an `options` object that already passed `wapitiOptionsSchema`;
 * absent fields get the specification's defaults. The checks only narrow `unknown`: they do not
 * replace validation (an unknown module name is dropped here, refused by the schema).
 * @example wapitiOptionsWithDefaults({ modules: ['xss'] }).scope // 'domain'
 */
export function wapitiOptionsWithDefaults(input: Record<string, unknown>): WapitiOptions {
  const modules = Array.isArray(input.modules) ? input.modules.filter(isModule) : [];
  return {
    modules: modules.length === 0 ? null : modules,
    scope: isScope(input.scope) ? input.scope : DEFAULTS.scope,
    maxDepth:
      typeof input.maxDepth === 'number' && Number.isInteger(input.maxDepth)
        ? input.maxDepth
        : DEFAULTS.maxDepth,
    maxTimeSeconds: durationSeconds(input.maxTime),
  };
}
