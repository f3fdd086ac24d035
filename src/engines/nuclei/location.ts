/**
 * Where a nuclei result sits. FORMATS.md: `host` is unreliable (a URL, a bare name, or missing),
 * `matched-at` is a URL for http templates, `name:port` for network/ssl/javascript ones, a bare
 * name for dns ones, or missing; `url` had values such as `/http://dvwa_dvwa_1/`. So the location
 * comes from the first of `matched-at`, `url` (repaired), `host` that reads as one of those
 * shapes, else from the scan's target. The resolved `ip` is never used: behind a CDN or a load
 * balancer it changes between scans, and the fingerprint must not.
 */
import type { FindingLocation } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';

/** Where the location was read from (kept in the finding's raw record). */
export type LocationSource = 'matched-at' | 'url' | 'host' | 'target';

export interface ResolvedLocation {
  readonly location: FindingLocation;
  readonly source: LocationSource;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

function portNumber(text: string | null | undefined): number | null {
  if (text === null || text === undefined || !/^[0-9]{1,5}$/.test(text)) {
    return null;
  }
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** The host of a URL without IPv6 brackets. */
function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * An http(s) URL as a location. The query string and fragment are left out of `url`: templates
 * put random payloads (`{{randstr}}`, out-of-band callback names) into the query, which would give
 * the same issue a new fingerprint on every scan. The full `matched-at` stays in the evidence.
 */
function fromUrl(text: string): FindingLocation | null {
  if (!/^https?:\/\//i.test(text)) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const host = bareHostname(url);
  if (host === '') {
    return null;
  }
  return {
    host,
    port: portNumber(url.port) ?? DEFAULT_PORTS[url.protocol] ?? null,
    protocol: null,
    url: `${url.protocol}//${url.host}${url.pathname}`,
  };
}

const NAME = /^[a-z0-9_](?:[a-z0-9_.-]{0,252})$/i;
const HOST_PORT = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9_.-]+)):([0-9]{1,5})$/i;

/** `name:port`, `[v6]:port` (network, ssl, javascript templates) or a bare name/address (dns). */
function fromHostText(text: string): FindingLocation | null {
  const hostPort = HOST_PORT.exec(text);
  if (hostPort !== null) {
    const port = portNumber(hostPort[3]);
    const host = hostPort[1] ?? hostPort[2] ?? '';
    return port === null ? null : { host, port, protocol: 'tcp', url: null };
  }
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (NAME.test(bare) || (bare.includes(':') && /^[0-9a-f:.]+$/i.test(bare))) {
    return { host: bare, port: null, protocol: null, url: null };
  }
  return null;
}

/** Any of the three shapes nuclei writes into `matched-at` and `host`. */
function fromLocationText(text: string | null): FindingLocation | null {
  if (text === null) {
    return null;
  }
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? fromUrl(text) : fromHostText(text);
}

/** nuclei 3 wrote `url` as `/http://host/` in the fixtures: the leading slash is dropped. */
function fromUrlField(text: string | null): FindingLocation | null {
  return text === null ? null : fromUrl(text.replace(/^\/(?=https?:\/\/)/i, ''));
}

/** The scan target itself, for results that say nothing about where they matched (dns). */
function fromTarget(target: ScanTarget): FindingLocation {
  if (target.type === 'url') {
    const location = fromUrl(target.value);
    if (location !== null) {
      return location;
    }
  }
  return { host: target.host ?? target.value, port: null, protocol: null, url: null };
}

/** The fields of a result that can say where it matched. */
export interface LocationFields {
  readonly matchedAt: string | null;
  readonly url: string | null;
  readonly host: string | null;
  readonly port: string | null;
}

/**
 * The location of one result. A `port` field fills in a location that has none (a bare host).
 * @example resolveLocation({ matchedAt: 'example.com:22', url: null, host: null, port: null }, t)
 *   // { source: 'matched-at', location: { host: 'example.com', port: 22, protocol: 'tcp', url: null } }
 */
export function resolveLocation(fields: LocationFields, target: ScanTarget): ResolvedLocation {
  const candidates: ReadonlyArray<readonly [LocationSource, () => FindingLocation | null]> = [
    ['matched-at', () => fromLocationText(fields.matchedAt)],
    ['url', () => fromUrlField(fields.url)],
    ['host', () => fromLocationText(fields.host)],
  ];
  for (const [source, read] of candidates) {
    const location = read();
    if (location !== null) {
      const port = location.port ?? portNumber(fields.port);
      return { source, location: { ...location, port } };
    }
  }
  return { source: 'target', location: fromTarget(target) };
}
