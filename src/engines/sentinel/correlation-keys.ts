/**
 * Correlation keys: what a finding could share with findings of other engines (README,
 * "Correlation"). Two findings that have a key in common are about the same issue; `correlate`
 * merges findings along shared keys.
 *
 * Every key holds the finding's normalized host first, so findings on different hosts can never
 * share a key, and a finding without a host has no keys at all. The rules:
 *
 * | rule       | who                                                | key parts after the host |
 * |------------|----------------------------------------------------|--------------------------|
 * | `cve`      | any finding with CVE ids (one key per id)          | port, CVE id |
 * | `weakness` | web findings (http(s) URL) with a weakness class: a missing security header, else the class of each CWE id (domain/findings/weakness-classes.ts) | port, URL path, class, parameter |
 * | `service`  | nmap open ports, nuclei info-level service/technology detections | port, transport |
 * | `hostname` | theHarvester host names, sublist3r sub-domains     | (the name is the host) |
 *
 * The port is the location's, else the URL's explicit port, else the scheme's (80, 443), else
 * `-`. The parameter is the one the engine names, else the only query parameter of the URL it
 * matched, else `-` (web-details.ts).
 *
 * trivy findings have none: their location is an artifact (an image has no host, a repository
 * URL is where code lives, not a server running it), so a package CVE is never tied to a host.
 *
 * A key is its parts joined with NUL (`cve␀203.0.113.10␀22␀CVE-2018-15473`; see `keyText` for how
 * parts that hold a NUL are kept apart). Host names and URLs are parsed once per distinct string
 * through a `KeyCache`, and `collectKeys` writes into a reused sink, so keys for 100,000 findings
 * take a small part of a second.
 */
import { normalizeHost } from '../../domain/findings/fingerprint.js';
import { weaknessClassOf } from '../../domain/findings/weakness-classes.js';
import { rawText } from './raw-fields.js';
import type { CorrelationRule, SourceFinding } from './types.js';
import { missingHeaderOf, parameterUrl, reportedParameter } from './web-details.js';

/** One key of a finding: the rule that made it and the key text. */
export interface CorrelationKey {
  readonly rule: CorrelationRule;
  readonly key: string;
}

/** A key part that is not known (no port, no parameter). */
export const UNKNOWN = '-';

/** What keys need of an http(s) URL. */
interface WebUrl {
  /** Normalized like `normalizeHost` (IPv6 without brackets). */
  readonly host: string;
  /** The explicit port, else 80 for http and 443 for https. */
  readonly port: string;
  /** The path as the WHATWG parser (and so `normalizeUrl`) writes it: no query, no fragment. */
  readonly path: string;
  /** The name of the query's only parameter (`?id=1`, `?id=1&id=2`), else null. */
  readonly onlyParameter: string | null;
}

/** The one name the query's parameters have, or null for none or several. */
function onlyParameterOf(query: URLSearchParams): string | null {
  let only: string | null = null;
  for (const name of query.keys()) {
    if (only !== null && name !== only) {
      return null;
    }
    only = name;
  }
  return only === '' ? null : only;
}

/**
 * Host names, URLs and CWE ids already read, so each distinct string is parsed once. One cache
 * per `correlate` call; it only ever grows with distinct strings of that call's findings.
 */
export interface KeyCache {
  readonly hosts: Map<string, string>;
  readonly urls: Map<string, WebUrl | null>;
  /** CWE id → weakness class (null: none). */
  readonly weaknesses: Map<string, string | null>;
}

export function createKeyCache(): KeyCache {
  return { hosts: new Map(), urls: new Map(), weaknesses: new Map() };
}

function cachedWeakness(cache: KeyCache, cwe: string): string | null {
  let weakness = cache.weaknesses.get(cwe);
  if (weakness === undefined) {
    weakness = weaknessClassOf(cwe);
    cache.weaknesses.set(cwe, weakness);
  }
  return weakness;
}

function cachedHost(cache: KeyCache, host: string): string {
  let normalized = cache.hosts.get(host);
  if (normalized === undefined) {
    normalized = normalizeHost(host);
    cache.hosts.set(host, normalized);
  }
  return normalized;
}

function parseWebUrl(text: string, cache: KeyCache): WebUrl | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return null;
  }
  return {
    host: cachedHost(cache, url.hostname),
    port: url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port,
    path: url.pathname,
    onlyParameter: url.search === '' ? null : onlyParameterOf(url.searchParams),
  };
}

function cachedUrl(cache: KeyCache, text: string): WebUrl | null {
  let parsed = cache.urls.get(text);
  if (parsed === undefined) {
    parsed = parseWebUrl(text, cache);
    cache.urls.set(text, parsed);
  }
  return parsed;
}

/** Trimmed, or null when blank. */
function present(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/**
 * The parameter of a web finding: the one the engine names (`-` when it says none); for engines
 * that name none, the only query parameter of the URL they matched, else `-`.
 */
function parameterOf(finding: SourceFinding, cache: KeyCache): string {
  const reported = reportedParameter(finding);
  if (reported !== null) {
    return reported === '' ? UNKNOWN : reported;
  }
  const text = present(parameterUrl(finding));
  return (text === null ? null : cachedUrl(cache, text)?.onlyParameter) ?? UNKNOWN;
}

/** nuclei's result type of network templates: `network` (nuclei 2), `tcp` (nuclei 3). */
const NUCLEI_NETWORK_TYPES: ReadonlySet<string> = new Set(['network', 'tcp']);

/**
 * nuclei results that identify a service rather than report a weakness: info level, and a
 * technology template (`http/technologies/…`, tag `tech`), a template whose id ends in `-detect`
 * or `-detection` (`tech-detect`, `waf-detect`, `openssh-detect`), or a network template (type
 * `network`/`tcp`, or under `network/`: an info-level network match means the port spoke that
 * protocol).
 */
function isNucleiServiceDetection(finding: SourceFinding): boolean {
  if (finding.severity !== 'info') {
    return false;
  }
  const templateId = rawText(finding.raw, 'templateId') ?? finding.ruleId.split(':')[0] ?? '';
  return (
    finding.category === 'technology' ||
    /-detect(?:ion)?$/i.test(templateId) ||
    NUCLEI_NETWORK_TYPES.has(rawText(finding.raw, 'type') ?? '') ||
    (rawText(finding.raw, 'template') ?? '').startsWith('network/')
  );
}

function isService(finding: SourceFinding): boolean {
  switch (finding.engine) {
    case 'nmap':
      return finding.category === 'open-port';
    case 'nuclei':
      return isNucleiServiceDetection(finding);
    default:
      return false;
  }
}

function isDiscoveredHostName(finding: SourceFinding): boolean {
  return (
    (finding.engine === 'harvester' && finding.category === 'host') ||
    (finding.engine === 'sublist3r' && finding.category === 'subdomain')
  );
}

/** Separates the parts of a key text; see `keyText`. */
const SEPARATOR = '\u0000';

/**
 * The text of a key from its parts (the rule first, then the host): the parts joined with NUL,
 * or, should a part hold a NUL itself (a host or parameter from odd tool output), their JSON
 * text. The two forms never meet (a joined key holds a NUL, JSON text never does), so different
 * parts always give different texts.
 */
function keyText(parts: readonly string[]): string {
  for (const part of parts) {
    if (part.includes(SEPARATOR)) {
      return JSON.stringify(parts);
    }
  }
  return parts.join(SEPARATOR);
}

/**
 * The parts of a key text, the rule and the host first (for tests and display).
 * @example keyParts(correlationKeys(nmapOpenPort)[0].key) // ['service', '10.0.0.5', '22', 'tcp']
 */
export function keyParts(key: string): string[] {
  if (!key.startsWith('[')) {
    return key.split(SEPARATOR);
  }
  const parsed: unknown = JSON.parse(key);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/**
 * Where `collectKeys` writes a finding's keys: two parallel lists and how many of their items
 * are this finding's. The caller sets `count` to 0 between findings; the lists are reused, so
 * correlating many findings allocates no list per finding (and never shortens one: setting an
 * array's length is a slow call into the runtime).
 */
export interface KeySink {
  readonly rules: CorrelationRule[];
  readonly keys: string[];
  count: number;
}

/** A sink for one finding at a time. */
export function createKeySink(): KeySink {
  return { rules: [], keys: [], count: 0 };
}

function addKey(sink: KeySink, rule: CorrelationRule, parts: readonly string[]): void {
  const key = keyText(parts);
  for (let i = 0; i < sink.count; i++) {
    if (sink.keys[i] === key) {
      return;
    }
  }
  sink.rules[sink.count] = rule;
  sink.keys[sink.count] = key;
  sink.count += 1;
}

const NO_CLASSES: readonly string[] = Object.freeze([]);
const HEADER_CLASS = 'missing-header:';

/**
 * The weakness classes of a web finding: the missing security header it reports (tools attach
 * different CWEs to one missing header, or none), else the classes of its CWE ids.
 */
function weaknessesOf(finding: SourceFinding, cache: KeyCache): readonly string[] {
  const header = missingHeaderOf(finding);
  if (header !== null) {
    return [`${HEADER_CLASS}${header}`];
  }
  let classes = NO_CLASSES;
  for (const cwe of finding.identifiers.cwe) {
    const weakness = cachedWeakness(cache, cwe);
    if (weakness !== null && !classes.includes(weakness)) {
      classes = [...classes, weakness];
    }
  }
  return classes;
}

/**
 * Writes the correlation keys of one finding into `sink` (after what it holds), each once, in a
 * fixed order: cve, weakness, service, hostname. Never throws; a finding without a host (or from
 * trivy) has none. What a finding could be keyed by is looked at first, so the many findings
 * with nothing to share cost no URL or host parsing.
 */
export function collectKeys(finding: SourceFinding, cache: KeyCache, sink: KeySink): void {
  if (finding.engine === 'trivy') {
    return;
  }
  const { location } = finding;
  const cves = finding.identifiers.cve;
  const weaknesses = location.url === null ? NO_CLASSES : weaknessesOf(finding, cache);
  const service = isService(finding);
  const hostName = isDiscoveredHostName(finding);
  if (cves.length === 0 && weaknesses.length === 0 && !service && !hostName) {
    return;
  }
  const urlText = present(location.url);
  const web = urlText === null ? null : cachedUrl(cache, urlText);
  const hostText = present(location.host);
  const host = hostText === null ? (web?.host ?? null) : cachedHost(cache, hostText);
  if (host === null || host === '') {
    return;
  }
  const port =
    location.port !== null && Number.isInteger(location.port)
      ? String(location.port)
      : (web?.port ?? UNKNOWN);
  for (const cve of cves) {
    const id = cve.trim().toUpperCase();
    if (id !== '') {
      addKey(sink, 'cve', ['cve', host, port, id]);
    }
  }
  if (web !== null && weaknesses.length > 0) {
    // A missing header is about a response header, not a parameter.
    const parameter = weaknesses[0]?.startsWith(HEADER_CLASS)
      ? UNKNOWN
      : parameterOf(finding, cache);
    for (const weakness of weaknesses) {
      addKey(sink, 'weakness', ['weakness', host, port, web.path, weakness, parameter]);
    }
  }
  if (service && port !== UNKNOWN) {
    const transport = present(location.protocol)?.toLowerCase() ?? 'tcp';
    addKey(sink, 'service', ['service', host, port, transport]);
  }
  if (hostName) {
    addKey(sink, 'hostname', ['hostname', host]);
  }
}

/**
 * The correlation keys of one finding, each once, in a fixed order (cve, weakness, service,
 * hostname). Never throws; a finding without a host (or from trivy) has none. Pass one cache to
 * many calls to parse each distinct host and URL once.
 * @example correlationKeys(nmapVulnersCve).map((k) => keyParts(k.key)) // [['cve', '10.0.0.5', '22', 'CVE-2018-15473']]
 */
export function correlationKeys(
  finding: SourceFinding,
  cache: KeyCache = createKeyCache(),
): readonly CorrelationKey[] {
  const sink = createKeySink();
  collectKeys(finding, cache, sink);
  return sink.keys.map((key, index) => ({ rule: sink.rules[index] ?? 'cve', key }));
}
