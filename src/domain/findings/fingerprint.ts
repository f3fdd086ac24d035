/**
 * Finding fingerprints: a stable identity for "the same issue at the same place", so a rescan
 * can be compared with the previous one and duplicates inside one scan can be merged.
 *
 * The fingerprint is the hex SHA-256 of the UTF-8 JSON text of the array
 *
 *     ["rampart-fingerprint/v1", engine, ruleId, host, port, protocol, url]
 *
 * where the location parts are normalized by `normalizeLocation`. A JSON array keeps the parts
 * apart unambiguously (no separator that a rule id or URL could contain, and `null` differs from
 * the string `"null"`). The leading version tag lets a future change of the normalization be told
 * apart instead of silently changing every fingerprint. Title, description, severity and the raw
 * record are deliberately left out: tools reword those between versions, and a changed severity
 * is still the same issue.
 */
import { createHash } from 'node:crypto';
import type { DraftFinding, FindingLocation, FingerprintedFinding } from './finding.js';
import { compareSeverity } from './severity-order.js';
import { normalizeFinding } from './weakness-severity.js';

/** The first element of the hashed array; bump it when the normalization below changes. */
export const FINGERPRINT_VERSION = 'rampart-fingerprint/v1';

/** Code-unit order, so the result does not depend on the locale of the process. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Trimmed, or null when nothing is left: an empty part means "does not apply", like null. */
function presentOrNull(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

// Characters that would make `http://${host}/` parse as something other than a bare host
// (userinfo, port, path, query, fragment, percent-decoding). A host containing one of them is
// not run through the URL parser.
const NOT_A_BARE_HOST = /[\s/?#@\\%:[\]]/;

/**
 * Normalizes a host name or address for fingerprinting:
 * 1. surrounding whitespace and IPv6 brackets (`[::1]`) are removed, and one trailing dot (the
 *    DNS root, `example.com.`) is dropped;
 * 2. the rest is parsed as a WHATWG URL host, which lower-cases names, converts international
 *    names to punycode, and writes IPv4 and IPv6 literals canonically (`2001:DB8:0::1` →
 *    `2001:db8::1`, `127.1` → `127.0.0.1`);
 * 3. a value the URL parser refuses (an IPv6 zone id, stray punctuation) is only lower-cased.
 * @example normalizeHost(' WWW.Example.COM. ') // 'www.example.com'
 */
export function normalizeHost(host: string): string {
  let value = host.trim();
  if (value.startsWith('[') && value.endsWith(']')) {
    value = value.slice(1, -1);
  }
  if (value.length > 1 && value.endsWith('.')) {
    value = value.slice(0, -1);
  }
  if (value.includes(':')) {
    // Only an IPv6 literal has a colon here (a port would be in the `port` field).
    return parsedHostname(`http://[${value}]/`)?.slice(1, -1) ?? value.toLowerCase();
  }
  if (value === '' || NOT_A_BARE_HOST.test(value)) {
    return value.toLowerCase();
  }
  return parsedHostname(`http://${value}/`) ?? value.toLowerCase();
}

function parsedHostname(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/**
 * Normalizes a URL for fingerprinting. The URL is parsed with the WHATWG URL parser (as browsers
 * and Node do), which already lower-cases the scheme and host, drops the scheme's default port
 * (80 for http and ws, 443 for https and wss, 21 for ftp), resolves `.` and `..` path segments and
 * turns an empty http(s) path into `/`. Then:
 * - the fragment is dropped (it never reaches the server);
 * - user name and password are dropped (credentials are not part of where the issue is);
 * - one trailing dot of the host is dropped;
 * - query parameters are sorted by name, then by value (code-unit order, duplicates kept), and
 *   re-serialized as `application/x-www-form-urlencoded` (so `a=1%202` and `a=1+2` agree, and a
 *   bare `?flag` becomes `flag=`); an empty query is dropped.
 * The path keeps its case and its trailing slash: servers may treat those as other resources.
 * A string the parser refuses is returned trimmed and otherwise unchanged.
 * @example normalizeUrl('HTTPS://Example.com:443/a?b=2&a=1#top') // 'https://example.com/a?a=1&b=2'
 */
export function normalizeUrl(url: string): string {
  const trimmed = url.trim();
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return trimmed;
  }
  parsed.hash = '';
  parsed.username = '';
  parsed.password = '';
  if (parsed.hostname.length > 1 && parsed.hostname.endsWith('.')) {
    parsed.hostname = parsed.hostname.slice(0, -1);
  }
  const params = [...parsed.searchParams].sort(
    ([nameA, valueA], [nameB, valueB]) =>
      compareStrings(nameA, nameB) || compareStrings(valueA, valueB),
  );
  const query = new URLSearchParams(params).toString();
  parsed.search = query === '' ? '' : `?${query}`;
  return parsed.href;
}

/**
 * The location as it enters the fingerprint: host by `normalizeHost`, protocol trimmed and
 * lower-cased, URL by `normalizeUrl`, port unchanged. Empty strings become null.
 * @example normalizeLocation({ host: 'Example.COM', port: 443, protocol: 'TCP', url: null })
 *   // { host: 'example.com', port: 443, protocol: 'tcp', url: null }
 */
export function normalizeLocation(location: FindingLocation): FindingLocation {
  const host = presentOrNull(location.host);
  const protocol = presentOrNull(location.protocol);
  const url = presentOrNull(location.url);
  return {
    host: host === null ? null : normalizeHost(host),
    port: location.port,
    protocol: protocol === null ? null : protocol.toLowerCase(),
    url: url === null ? null : normalizeUrl(url),
  };
}

/**
 * The fingerprint of a finding: 64 lower-case hex characters, the SHA-256 of
 * `JSON.stringify([FINGERPRINT_VERSION, engine, ruleId, host, port, protocol, url])` with the
 * location normalized by `normalizeLocation`. Engine and rule id are taken exactly as given.
 * @example fingerprintFinding('nmap', draft) // 'c0ffee…' (64 hex characters)
 */
export function fingerprintFinding(engine: string, draft: DraftFinding): string {
  const location = normalizeLocation(draft.location);
  const material = JSON.stringify([
    FINGERPRINT_VERSION,
    engine,
    draft.ruleId,
    location.host,
    location.port,
    location.protocol,
    location.url,
  ]);
  return createHash('sha256').update(material, 'utf8').digest('hex');
}

/** Values of both lists, each once, in order of first appearance. */
function union(first: readonly string[], second: readonly string[]): string[] {
  return [...new Set([...first, ...second])];
}

/**
 * Folds a later duplicate into the finding kept for its fingerprint: the first draft wins except
 * where the duplicate adds information, so nothing a tool reported is lost by merging.
 */
function mergeDuplicate(kept: FingerprintedFinding, duplicate: DraftFinding): FingerprintedFinding {
  // Severity and toolSeverity travel together, so the tool's own rating explains the level shown.
  const moreSevere = compareSeverity(duplicate.severity, kept.severity) < 0;
  return {
    ...kept,
    severity: moreSevere ? duplicate.severity : kept.severity,
    toolSeverity: moreSevere ? duplicate.toolSeverity : kept.toolSeverity,
    identifiers: {
      cve: union(kept.identifiers.cve, duplicate.identifiers.cve),
      cwe: union(kept.identifiers.cwe, duplicate.identifiers.cwe),
    },
    references: union(kept.references, duplicate.references),
    description: kept.description ?? duplicate.description,
    evidence: kept.evidence ?? duplicate.evidence,
    remediation: kept.remediation ?? duplicate.remediation,
  };
}

/**
 * Adds fingerprints and merges drafts that share one within a scan. For each fingerprint the
 * first draft is kept, at the position of its first appearance, and later duplicates are folded
 * into it:
 * - `severity` becomes the highest of the group, with the `toolSeverity` of the draft that had it
 *   (the earliest such draft on a tie);
 * - CVE ids, CWE ids and references become unions, in order of first appearance;
 * - `description`, `evidence` and `remediation` that are null are taken from the first duplicate
 *   that has them;
 * - everything else (`ruleId`, `title`, `category`, `location`, `raw`) is the first
 *   draft's.
 * Before merging, each draft is put in the common vocabulary by `normalizeFinding`
 * (weakness-severity.ts: the category, the severity of its weakness class, `confirmed` when
 * `isConfirmed` says the engine exploited it, and the location's protocol). The fingerprint is
 * taken from the draft as the engine reported it, before that, so fingerprints stay those of
 * releases without the normalization. Drafts without duplicates are returned otherwise unchanged
 * apart from the added fingerprint. The input is not modified.
 * @example finalizeFindings('nmap', [portDraft, portDraft]).length // 1
 */
export function finalizeFindings(
  engine: string,
  drafts: readonly DraftFinding[],
  isConfirmed: (draft: DraftFinding) => boolean = () => false,
): FingerprintedFinding[] {
  // A Map keeps insertion order, and `set` on an existing key keeps its position.
  const byFingerprint = new Map<string, FingerprintedFinding>();
  for (const reported of drafts) {
    const fingerprint = fingerprintFinding(engine, reported);
    const draft = normalizeFinding(reported, { confirmed: isConfirmed(reported) });
    const kept = byFingerprint.get(fingerprint);
    byFingerprint.set(
      fingerprint,
      kept === undefined ? { ...draft, fingerprint } : mergeDuplicate(kept, draft),
    );
  }
  return [...byFingerprint.values()];
}
