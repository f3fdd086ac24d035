/**
 * The scan's `config` (../web-config.ts) for nuclei 3: every header nuclei sends with each HTTP
 * request goes into `headers.txt` (0600, workspace), one `Name: value` a line, and nuclei reads it
 * with `-H=<file>` (its `-header` flag takes "cli, file": a value naming a file is read line by
 * line), so no credential is on its argv. Cookies become one `Cookie` header, basic
 * authentication an `Authorization: Basic` header, bearer an `Authorization: Bearer` header, the
 * user agent a `User-Agent` header. nuclei does not crawl: it requests its templates' paths, which
 * nothing can exclude, so its config has no `exclude` (webConfigSchemaOf).
 */
import { type WebConfig, webConfigSchemaOf } from '../web-config.js';

export const NUCLEI_HEADERS_FILE = 'headers.txt';

export const nucleiConfigSchema = webConfigSchemaOf(['headers', 'cookies', 'auth', 'userAgent']);

/** The header lines for `config`, in a fixed order; empty when it sets none. */
export function nucleiHeaderLines(config: WebConfig): string[] {
  const lines = Object.entries(config.headers).map(([name, value]) => `${name}: ${value}`);
  const cookies = Object.entries(config.cookies).map(([name, value]) => `${name}=${value}`);
  if (cookies.length > 0) {
    lines.push(`Cookie: ${cookies.join('; ')}`);
  }
  if (config.auth?.type === 'basic') {
    const pair = Buffer.from(`${config.auth.username}:${config.auth.password}`).toString('base64');
    lines.push(`Authorization: Basic ${pair}`);
  } else if (config.auth?.type === 'bearer') {
    lines.push(`Authorization: Bearer ${config.auth.token}`);
  }
  if (config.userAgent !== null) {
    lines.push(`User-Agent: ${config.userAgent}`);
  }
  return lines;
}
