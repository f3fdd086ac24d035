/**
 * The scan's `config` (../web-config.ts) as a sqlmap configuration file (`-c`), so that cookies,
 * header values and credentials reach sqlmap through a 0600 file in the workspace, never its
 * argv. sqlmap 1.7.2 reads the file with a raw INI parser (no `%` interpolation), takes options
 * from it by their long names in the sections of `lib/core/optiondict.py`, and lets only the
 * options set on the command line override it (`_mergeOptions`); the URL stays on the command
 * line, which satisfies the file's "mandatory option" check.
 */
import { excludedUrlRegex, type WebConfig } from '../web-config.js';

/** The file in the workspace. */
export const SQLMAP_CONFIG_FILE = 'sqlmap.conf';

/** True when `config` sets anything sqlmap takes, so the file and `-c` are needed. */
export function hasSqlmapConfig(config: WebConfig): boolean {
  return (
    Object.keys(config.headers).length > 0 ||
    Object.keys(config.cookies).length > 0 ||
    config.auth !== null ||
    config.exclude.length > 0 ||
    config.userAgent !== null
  );
}

/**
 * `--scope` is a regular expression a URL must match to be tested (sqlmap applies it to the URLs
 * of crawls, logs and bulk files; the one target URL of a scan is tested as given). Exclusions
 * become a negative look-ahead over the whole URL.
 * @example sqlmapScope(['/reset*'], 'http://a.test/x') // '^(?!(?:http://a\\.test/reset.*)$)'
 */
export function sqlmapScope(exclude: readonly string[], targetUrl: string): string {
  const alternatives = exclude.map((pattern) => excludedUrlRegex(pattern, targetUrl));
  return `^(?!(?:${alternatives.join('|')})$)`;
}

/**
 * The INI text. Every value was validated (no CR, LF or NUL), so each is one line; headers are
 * one `Name: value` per continuation line, which sqlmap splits on newlines. Example for a cookie
 * and a basic login: `[Target]\n\n[Request]\ncookie = PHPSESSID=abc\nauthType = basic\n
 * authCred = admin:secret\n`.
 */
export function sqlmapConfigFile(config: WebConfig, targetUrl: string): string {
  const request: string[] = [];
  const cookies = Object.entries(config.cookies).map(([name, value]) => `${name}=${value}`);
  if (cookies.length > 0) {
    request.push(`cookie = ${cookies.join('; ')}`);
  }
  const headers = Object.entries(config.headers).map(([name, value]) => `${name}: ${value}`);
  if (headers.length > 0) {
    request.push(`headers = ${headers.join('\n  ')}`);
  }
  if (config.auth?.type === 'basic') {
    request.push('authType = basic', `authCred = ${config.auth.username}:${config.auth.password}`);
  } else if (config.auth?.type === 'bearer') {
    request.push('authType = bearer', `authCred = ${config.auth.token}`);
  }
  if (config.userAgent !== null) {
    request.push(`agent = ${config.userAgent}`);
  }
  const general =
    config.exclude.length === 0 ? [] : [`scope = ${sqlmapScope(config.exclude, targetUrl)}`];
  return ['[Target]', '', '[Request]', ...request, '', '[General]', ...general, ''].join('\n');
}
