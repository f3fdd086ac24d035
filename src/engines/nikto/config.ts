/**
 * The scan's `config` (../web-config.ts) for nikto. nikto reads its settings from several config
 * files in turn, each overriding the one before (config_init: the system file, /etc/nikto/
 * config.txt for Debian's 2.1.5, then `$HOME/nikto.conf`, then `./nikto.conf`). The runner makes
 * the workspace nikto's HOME and cwd, so the cookies and the user agent go into `nikto.conf`
 * (0600, workspace) and nikto reads it after the system file: the plugin, database and template
 * directories and `@@DEFAULT` stay the system's (a `-config` file would replace the system file
 * and lose them), and no cookie is on the argv.
 * - cookies: `STATIC-COOKIE="name"="value";…`, sent with every request (nikto's cookie jar);
 * - userAgent: `USERAGENT=…` (nikto replaces `@VERSION`, `@EVASIONS` and `@TESTID` in it);
 * - auth: basic only, as `-id user:password` on the argv, nikto's only way (README.md);
 * - headers: nikto 2.1.5 sends no custom request header (no flag, no config key), and bearer
 *   authentication is a header, so neither is in the schema; exclude: nikto does not crawl, it
 *   requests its database's paths, which nothing can exclude. Refused as nuclei refuses
 *   `exclude`: an unknown key.
 */
import { type WebConfig, webConfigProblem, webConfigSchemaOf } from '../web-config.js';

/** The file nikto reads as `$HOME/nikto.conf` (and `./nikto.conf`): the workspace is both. */
export const NIKTO_CONFIG_FILE = 'nikto.conf';

export const niktoConfigSchema = webConfigSchemaOf(['cookies', 'auth', 'userAgent']);

/**
 * What nikto cannot take beyond the shared checks: bearer authentication (a header); a `#` in a
 * cookie or the user agent (nikto's config reader cuts every line at `#`, so the value would
 * arrive cut short); a `:` in the basic password (nikto splits `-id` at colons, the third part
 * being the realm). Without repeating a credential.
 */
export function niktoConfigProblem(
  config: Readonly<Record<string, unknown>>,
): { readonly field: string; readonly reason: string } | null {
  const shared = webConfigProblem(config);
  if (shared !== null) {
    return shared;
  }
  const auth = config.auth as Record<string, unknown> | undefined;
  if (auth?.type === 'bearer') {
    return {
      field: 'auth.type',
      reason: 'nikto sends no custom headers: only basic authentication',
    };
  }
  if (typeof auth?.password === 'string' && auth.password.includes(':')) {
    return {
      field: 'auth.password',
      reason:
        'the value (not repeated here) has a colon, which nikto reads as the end of the password',
    };
  }
  const cookies = (config.cookies ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(cookies)) {
    if (name.includes('#')) {
      return { field: `cookies.${name}`, reason: 'nikto cannot take a # in a cookie name' };
    }
    if (typeof value === 'string' && value.includes('#')) {
      return {
        field: `cookies.${name}`,
        reason: 'the value (not repeated here) has a #, which nikto reads as a comment',
      };
    }
  }
  if (typeof config.userAgent === 'string' && config.userAgent.includes('#')) {
    return { field: 'userAgent', reason: 'nikto cannot take a # in the user agent' };
  }
  return null;
}

/**
 * The `nikto.conf` lines for `config`, in a fixed order; empty when it sets none of them. A
 * nikto scan's own config never has a `#` (niktoConfigProblem); a sentinel parent's may (it is
 * checked as a web config), and what nikto would cut short is left out rather than sent cut.
 */
export function niktoConfigLines(config: WebConfig): string[] {
  const lines: string[] = [];
  const cookies = Object.entries(config.cookies)
    .filter(([name, value]) => !name.includes('#') && !value.includes('#'))
    .map(([name, value]) => `"${name}"="${value}"`);
  if (cookies.length > 0) {
    lines.push(`STATIC-COOKIE=${cookies.join(';')}`);
  }
  if (config.userAgent !== null && !config.userAgent.includes('#')) {
    lines.push(`USERAGENT=${config.userAgent}`);
  }
  return lines;
}

/**
 * The `-id` flag for basic authentication (on the argv: nikto has no other way). Bearer
 * authentication and a password with a colon (only from a sentinel parent's config) give none.
 */
export function niktoAuthFlags(config: WebConfig): string[] {
  return config.auth?.type === 'basic' && !config.auth.password.includes(':')
    ? ['-id', `${config.auth.username}:${config.auth.password}`]
    : [];
}
