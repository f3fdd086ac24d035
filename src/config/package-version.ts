/** package.json's version, for `rampart --version` and rampart_build_info. */
import { readFileSync } from 'node:fs';

/** src/<dir>/ and dist/<dir>/ are both two levels below package.json. */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}
