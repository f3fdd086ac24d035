/**
 * The sqlmap command line: typed options and a validated URL target in, the arguments after the
 * binary name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import type { WebConfig } from '../web-config.js';
import { hasSqlmapConfig, SQLMAP_CONFIG_FILE } from './config.js';
import type { SqlmapOptions } from './options.js';

export interface SqlmapArgvContext {
  /** The scan's private workspace; sqlmap writes `<workDir>/out/<host>/log` there. */
  readonly workDir: string;
  /** The scan's config: anything set means `-c <workDir>/sqlmap.conf` (config.ts). */
  readonly config?: WebConfig;
}

/** The output directory inside the workspace; sqlmap writes one `<host>/log` below it per host. */
export const SQLMAP_OUTPUT_DIR = 'out';

/**
 * Predefined answers to the three questions whose `--batch` default is wrong for a service:
 * - "for the remaining tests, do you want to include all tests for '<DBMS>' extending provided
 *   level (1) and risk (1) values? [Y/n]": the default Y runs every test for the detected DBMS
 *   whatever `level` and `risk` say, so a tenant's `risk: 1` would still get risk-3 payloads
 *   (`lib/controller/checks.py`, 1.7.2). N keeps sqlmap inside the requested level and risk.
 * - "GET parameter 'q' is vulnerable. Do you want to keep testing the others (if any)? [y/N]":
 *   the default N stops at the first injectable parameter; a scan should report all of them.
 * - "got a refresh intent (redirect like response common to login pages) to '<url>'. Do you want
 *   to apply it from now on? [Y/n]": a meta refresh or a `location.href` script in a page, which
 *   the default Y follows to any URL (`lib/request/connect.py`), another host's included. N
 *   keeps sqlmap on the target, as `--ignore-redirects` does for HTTP redirects.
 * sqlmap matches each `question=answer` pair as a case-insensitive substring of the question.
 */
export const SQLMAP_ANSWERS = 'extending=N,keep testing=Y,refresh intent=N';

/**
 * Each option's flags, in the order they appear on the command line. Keyed by option name so the
 * compiler rejects an option without an entry. Values are glued to their flag with `=`, so none
 * can ever be read as an option of its own.
 */
const OPTION_FLAGS: {
  readonly [K in keyof SqlmapOptions]-?: (options: SqlmapOptions) => string[];
} = {
  // Always: a worker has no terminal and no stdin, so sqlmap must never wait for an answer.
  // The schema refuses `batch: false`; should it get here anyway, it is still non-interactive.
  batch: () => ['--batch'],
  level: (o) => [`--level=${o.level}`],
  risk: (o) => [`--risk=${o.risk}`],
  // The schema keeps this to the letters BEUSTQ.
  technique: (o) => [`--technique=${o.technique}`],
  dbs: (o) => (o.dbs ? ['--dbs'] : []),
};

/**
 * The sqlmap arguments for one scan, e.g. for `http://app.example/item?id=1` with defaults:
 * `--url=http://app.example/item?id=1 --batch --level=1 --risk=1 --technique=BEUSTQ --ignore-stdin
 * --ignore-redirects --output-dir=<workDir>/out --answers=extending=N,keep testing=Y,refresh
 * intent=N --disable-coloring`.
 * The target is glued to `--url=`, so even a value starting with `-` could only be the URL.
 * Throws for a target type sqlmap does not take: the engine definition already excludes those.
 */
export function buildSqlmapArgv(
  options: SqlmapOptions,
  target: ScanTarget,
  context: SqlmapArgvContext,
): string[] {
  if (target.type !== 'url') {
    throw new Error(`sqlmap does not scan ${target.type} targets`);
  }
  return [
    `--url=${target.value}`,
    ...Object.values(OPTION_FLAGS).flatMap((flags) => flags(options)),
    // With stdin not a terminal, sqlmap 1.7.2 reads extra target URLs from it and switches to
    // multiple-target mode (a "[1/1] URL" prompt, a results CSV); the worker's stdin is
    // /dev/null, but the scan must not depend on that.
    '--ignore-stdin',
    // sqlmap 1.7.2 cannot follow redirects on the same host only: it asks once ("got a 302
    // redirect to '<url>'. Do you want to follow?") and applies the answer to every later
    // redirect, to any host, and its WAF check follows them whatever the answer was. So it
    // follows none: the redirect response itself is the page it tests.
    '--ignore-redirects',
    // Everything sqlmap writes (log, session, target.txt, dumps) stays in the private workspace.
    `--output-dir=${context.workDir}/${SQLMAP_OUTPUT_DIR}`,
    `--answers=${SQLMAP_ANSWERS}`,
    // The console is read for progress only; no escape sequences in it.
    '--disable-coloring',
    // Cookies, headers, credentials, user agent and scope: from a file, never on the argv.
    ...(context.config !== undefined && hasSqlmapConfig(context.config)
      ? ['-c', `${context.workDir}/${SQLMAP_CONFIG_FILE}`]
      : []),
  ];
}
