/**
 * The scan's `config` (../web-config.ts) for wapiti 3.0.4: cookies through a JSON cookie file in
 * the workspace (`--cookie=<file>`, wapiti's `jsoncookie` format), headers, user agent, HTTP
 * authentication and exclusions as arguments. wapiti has no other way to take a header or a
 * credential than its argv (README.md says so): those values are one argument each, glued to
 * their flag, never through a shell.
 */
import { excludedUrl, type WebConfig } from '../web-config.js';

/** The cookie file in the workspace. */
export const WAPITI_COOKIE_FILE = 'cookies.json';

/**
 * The key under which wapiti's `JsonCookie.cookiejar(netloc)` looks cookies up for the target's
 * host: an IPv4 address as it is, an IPv6 address in brackets with `.local`, a name with a
 * leading dot (and `.local` when it has no dot of its own), all without the port.
 * @example cookieDomainKey('http://127.0.0.1:8080/') // '127.0.0.1'
 * @example cookieDomainKey('http://app.test/') // '.app.test'
 */
export function cookieDomainKey(targetUrl: string): string {
  const host = new URL(targetUrl).hostname;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
    return host;
  }
  if (host.startsWith('[')) {
    return `${host}.local`;
  }
  return host.includes('.') ? `.${host}` : `.${host}.local`;
}

/** The cookie file's JSON, or null when `config` has no cookies. */
export function wapitiCookieFile(config: WebConfig, targetUrl: string): string | null {
  const entries = Object.entries(config.cookies);
  if (entries.length === 0) {
    return null;
  }
  const cookies = Object.fromEntries(
    entries.map(([name, value]) => [
      name,
      { value, version: 0, expires: null, secure: false, port: null },
    ]),
  );
  return `${JSON.stringify({ [cookieDomainKey(targetUrl)]: { '/': cookies } })}\n`;
}

/**
 * wapiti 3.0.4 turns each `--exclude` pattern into a regular expression ending in `\Z(?ms)`,
 * which Python 3.11 refuses ("global flags not at the start"): with any exclusion the crawl
 * stops at once. Debian's 3.0.4+dfsg-2 fixed other 3.11 problems but not this one. The service
 * gives wapiti a `usercustomize` module (Python loads it from the user site directory under
 * HOME, which is the workspace) that replaces the function with the same translation, the flags
 * at the start. It touches nothing else.
 */
export const WAPITI_EXCLUDE_FIX = `# Written by Rampart: wapiti 3.0.4's wildcard_translate on Python >= 3.11.
import re
try:
    import wapitiCore.net.crawler as _crawler

    def _wildcard_translate(pattern):
        return re.compile("(?ms)" + "".join(".*" if c == "*" else re.escape(c) for c in pattern) + r"\\Z")

    _crawler.wildcard_translate = _wildcard_translate
except Exception:
    pass
`;

/** Python versions whose user site directory gets the fix (whichever runs wapiti). */
const PYTHON_VERSIONS = ['3.11', '3.12', '3.13'];

/** The input files for `config`: the cookie file, and the exclusion fix when excluding. */
export function wapitiInputFiles(
  config: WebConfig,
  targetUrl: string,
): Array<{ path: string; content: string }> {
  const cookies = wapitiCookieFile(config, targetUrl);
  return [
    ...(cookies === null ? [] : [{ path: WAPITI_COOKIE_FILE, content: cookies }]),
    ...(config.exclude.length === 0
      ? []
      : PYTHON_VERSIONS.map((version) => ({
          path: `.local/lib/python${version}/site-packages/usercustomize.py`,
          content: WAPITI_EXCLUDE_FIX,
        }))),
  ];
}

/**
 * The arguments for `config`, each glued to its flag with `=`:
 * `--cookie=<ws>/cookies.json`, `--header=Name: value`, `--user-agent=…`,
 * `--auth-type=basic --auth-cred=user%password` (bearer: an `Authorization` header),
 * `--exclude=<absolute URL pattern>`.
 */
export function wapitiConfigArgs(config: WebConfig, targetUrl: string, workDir: string): string[] {
  const headers = Object.entries(config.headers).map(([name, value]) => `${name}: ${value}`);
  if (config.auth?.type === 'bearer') {
    headers.push(`Authorization: Bearer ${config.auth.token}`);
  }
  return [
    ...(Object.keys(config.cookies).length === 0
      ? []
      : [`--cookie=${workDir}/${WAPITI_COOKIE_FILE}`]),
    ...headers.map((header) => `--header=${header}`),
    ...(config.userAgent === null ? [] : [`--user-agent=${config.userAgent}`]),
    ...(config.auth?.type === 'basic'
      ? ['--auth-type=basic', `--auth-cred=${config.auth.username}%${config.auth.password}`]
      : []),
    ...config.exclude.map((pattern) => `--exclude=${excludedUrl(pattern, targetUrl)}`),
  ];
}
