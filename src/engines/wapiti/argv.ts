/**
 * The wapiti command line: typed options and a validated target in, the arguments after the
 * binary name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import type { WebConfig } from '../web-config.js';
import { wapitiConfigArgs } from './config.js';
import { WAPITI_DEFAULT_MODULES, type WapitiModule, type WapitiOptions } from './options.js';

export interface WapitiArgvContext {
  /** Where wapiti writes its JSON report (`--output`), inside the scan's workspace. */
  readonly reportPath: string;
  /** The scan's private workspace: session and configuration databases go below it. */
  readonly workDir: string;
  /** The scan's config (config.ts): cookies, headers, authentication, exclusions. */
  readonly config?: WebConfig;
}

/**
 * Modules another module needs: wapiti 3.0.4 skips `permanentxss` with "Missing dependencies"
 * unless `xss` runs too (`require = ["xss"]`), so asking for it alone would silently do nothing.
 */
const MODULE_REQUIREMENTS: Readonly<Partial<Record<WapitiModule, readonly WapitiModule[]>>> = {
  permanentxss: ['xss'],
};

/** The requested modules plus what they require, each once, in the order given. */
export function modulesToRun(modules: readonly WapitiModule[] | null): readonly WapitiModule[] {
  if (modules === null) {
    return WAPITI_DEFAULT_MODULES;
  }
  return [...new Set(modules.flatMap((name) => [...(MODULE_REQUIREMENTS[name] ?? []), name]))];
}

/**
 * How `maxTime` is shared out. wapiti 3.0.4 has no limit for the whole run: `--max-scan-time`
 * only stops the crawl, and `--max-attack-time` stops each attack module separately. The budget
 * is therefore split evenly between the crawl and every module that runs, so the phases together
 * stay within `maxTime`. wapiti ignores limits below 1 s (`elapsed > limit >= 1`), so each share
 * is at least 1 s; a tiny `maxTime` with many modules can then run longer than asked.
 * @example timeShares(600, 11) // { crawl: 50, perModule: 50 }
 */
export function timeShares(
  maxTimeSeconds: number,
  moduleCount: number,
): { crawl: number; perModule: number } {
  const share = Math.max(1, Math.floor(maxTimeSeconds / (moduleCount + 1)));
  return { crawl: share, perModule: share };
}

/**
 * Each option's flags, in command-line order. Keyed by option name so the compiler rejects an
 * option without an entry. Every value is glued to its flag with `=`, so it is one argument that
 * argparse can never read as another option; the schema keeps each value to a closed list or a
 * number anyway.
 */
const OPTION_FLAGS: {
  readonly [K in keyof WapitiOptions]-?: (options: WapitiOptions) => string[];
} = {
  // `domain` is handled with the target (scopeFlags): the flag is written there.
  scope: () => [],
  maxDepth: (o) => [`--depth=${o.maxDepth}`],
  // Module names come from a closed list without commas: the joined list is names and commas.
  modules: (o) => (o.modules === null ? [] : [`--module=${modulesToRun(o.modules).join(',')}`]),
  maxTimeSeconds: (o) => {
    if (o.maxTimeSeconds === null) {
      return [];
    }
    const { crawl, perModule } = timeShares(o.maxTimeSeconds, modulesToRun(o.modules).length);
    return [`--max-scan-time=${crawl}`, `--max-attack-time=${perModule}`];
  },
};

/**
 * The base URL, start URL and scope. wapiti 3.0.4's own `domain` scope takes in every host of the
 * target's registered domain (`get_fld`): a scan of `shop.example.com` would crawl and attack any
 * sub-domain, one the tenant points at 10.0.0.0/8 or 169.254.169.254 included, and no target
 * check ever judged that name. The specification's `domain` (its default) is therefore run as the
 * target's host: `folder` scope on the origin (`is_in_scope`: `url.startswith(base.path)`, which
 * holds scheme, host and port), with the target URL as the start (issue 18). The other scopes are
 * wapiti's, all within the host.
 * @example scopeFlags('domain', 'https://shop.example/app/?q=1')
 * // ['--url=https://shop.example/', '--scope=folder', '--start=https://shop.example/app/?q=1']
 */
export function scopeFlags(scope: WapitiOptions['scope'], targetUrl: string): string[] {
  // Validation admits only absolute http(s) URLs; anything else keeps to the target itself.
  if (scope !== 'domain' || !URL.canParse(targetUrl)) {
    return [`--url=${targetUrl}`, `--scope=${scope === 'domain' ? 'folder' : scope}`];
  }
  // The start URL is given even when it is the origin, so the command line has one shape.
  return [`--url=${new URL(targetUrl).origin}/`, '--scope=folder', `--start=${targetUrl}`];
}

/**
 * The wapiti arguments for one scan, e.g. for `https://shop.example/` with defaults:
 * `--url=https://shop.example/ --scope=folder --start=https://shop.example/ --depth=3 --format=json
 * --output=<ws>/report.json --store-session=<ws>/session --store-config=<ws>/config
 * --flush-session --no-bugreport --verbose=1`. The target is glued to `--url=` or `--start=`, so
 * even a value starting with `-` could only be a URL. Throws for a target type wapiti does not take: the engine definition excludes those.
 */
export function buildWapitiArgv(
  options: WapitiOptions,
  target: ScanTarget,
  context: WapitiArgvContext,
): string[] {
  if (target.type !== 'url') {
    throw new Error(`wapiti does not scan ${target.type} targets`);
  }
  const optionFlags = Object.values(OPTION_FLAGS).flatMap((flags) => flags(options));
  return [
    ...scopeFlags(options.scope, target.value),
    ...optionFlags,
    // The JSON report goes to a file in the workspace; stdout stays for progress.
    '--format=json',
    `--output=${context.reportPath}`,
    // wapiti keeps a SQLite session per target and a configuration directory (the Wappalyzer
    // database) under ~/.wapiti; HOME is already the workspace, these make it explicit.
    `--store-session=${context.workDir}/session`,
    `--store-config=${context.workDir}/config`,
    // A fresh workspace has no session; this keeps a reused one from resuming an old scan.
    '--flush-session',
    // Otherwise a module crash writes a traceback into the cwd and uploads it to wapiti3.ovh.
    '--no-bugreport',
    // Prints each crawled resource ("[+] GET <url> (<depth>)"), which the progress reader uses.
    '--verbose=1',
    ...(context.config === undefined
      ? []
      : wapitiConfigArgs(context.config, target.value, context.workDir)),
  ];
}
