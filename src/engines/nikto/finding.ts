/**
 * One nikto item (from JSON or XML) to a finding. The readers in parse-json.ts and parse-xml.ts
 * reduce both formats to `NiktoItem` and `NiktoHost`; everything about ids, locations, severity
 * and wording is decided here, once.
 */
import type { DraftFinding } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { classifyNiktoItem } from './classify.js';

/** A tested host as the report describes it; every field may be missing. */
export interface NiktoHost {
  /** The host name nikto used (or the `-vhost`); empty for an IP target in some versions. */
  readonly hostname: string | null;
  readonly ip: string | null;
  readonly port: number | null;
  readonly banner: string | null;
  /** Only XML says it (`sitename`, `<ssl>`); JSON has no scheme anywhere. */
  readonly scheme: 'http' | 'https' | null;
}

/** One reported item. */
export interface NiktoItem {
  /** The test id as written (`"999100"`, `"000366"`, `"0"`). */
  readonly id: string;
  /** nikto 2.1.x only (`OSVDB` / `@osvdbid`), as written. */
  readonly osvdb: string | null;
  readonly method: string | null;
  /** The requested path (`url` / `<uri>`), possibly with a query. */
  readonly path: string | null;
  readonly message: string;
  /** nikto 2.5 `references` (one or more URLs in one string), split. */
  readonly references: readonly string[];
  /** XML `<namelink>`: the full URL, when nikto wrote one. */
  readonly link: string | null;
}

export const EMPTY_HOST: NiktoHost = {
  hostname: null,
  ip: null,
  port: null,
  banner: null,
  scheme: null,
};

/** The outcome for one item: a finding, or a warning for an error record. */
export type ItemOutcome =
  | { readonly kind: 'finding'; readonly finding: DraftFinding }
  | { readonly kind: 'warning'; readonly warning: string };

const MAX_TITLE = 200;
const MAX_RAW_TEXT = 1000;
const MAX_SUBJECT = 120;
const CVE_ID = /CVE-\d{4}-\d{4,}/gi;
const CWE_IN_TEXT = /\bCWE-(\d{1,5})\b/gi;
const CWE_IN_URL = /cwe\.mitre\.org\/data\/definitions\/(\d{1,5})\.html/gi;
/** `/path: message` as nikto writes it when the path is part of the message. */
const PATH_PREFIX = /^(\/\S*?):\s?/;
/** The thing an item is about, when the message names it: `Uncommon header 'x-cache' found`. */
const QUOTED_SUBJECT = /'([^'\n]{1,120})'/;
const COOKIE_SUBJECT = /^Cookie (\S{1,120}) created/i;
/**
 * Header findings that share one test id and name their header unquoted: nikto 2.6 `Suggested
 * security header missing: content-security-policy. See: …` (one item per header, all test
 * 013587) and `Retrieved access-control-allow-origin header: *.` The header name is the subject,
 * lower-cased (HTTP header names are not case-sensitive). Items whose test id already names the
 * header (2.1.x `The anti-clickjacking X-Frame-Options header is not present.`, 999957) keep
 * their rule id, and so their fingerprint.
 */
const HEADER_SUBJECTS: readonly RegExp[] = [
  /\bheader missing:\s*([A-Za-z0-9][A-Za-z0-9_-]{0,119})/i,
  /^Retrieved ([A-Za-z0-9][A-Za-z0-9_-]{0,119}) header\b/i,
];
/** An absolute http(s) URL inside an item's path (nikto 2.6 writes `/root` + the URL). */
const ABSOLUTE_IN_PATH = /https?:\/\//i;
/** Messages whose quoted text changes between scans ("banner changed from 'Apache/2.4.1' …"). */
const VOLATILE_QUOTES = /changed from/i;

function present(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function truncate(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/** nikto ids are six digits with leading zeros (`000366`); shorter numeric ids are padded. */
export function normalizeTestId(id: string): string {
  const trimmed = id.trim();
  return /^\d{1,6}$/.test(trimmed) ? trimmed.padStart(6, '0') : truncate(trimmed, 64);
}

/**
 * True for the records nikto writes instead of a result: id 0 (or none) — nikto 2.5 reports a
 * name it cannot resolve as `{"id": "0", "msg": "ERROR: Cannot resolve hostname …"}` — or any
 * message starting with `ERROR:`.
 */
export function isErrorRecord(item: NiktoItem): boolean {
  const id = item.id.trim();
  return id === '' || /^0+$/.test(id) || /^\s*\+?\s*ERROR:/i.test(item.message);
}

/**
 * The subject that tells apart items of one test at one URL, or null: the first `'…'`-quoted name
 * in the message (a header, a robots.txt entry, a realm) or the cookie name. Without it, the three
 * "Uncommon header" items nikto reports for `/` would share one fingerprint and be merged.
 */
export function subjectOf(message: string): string | null {
  if (VOLATILE_QUOTES.test(message)) {
    return null;
  }
  const quoted = QUOTED_SUBJECT.exec(message)?.[1] ?? COOKIE_SUBJECT.exec(message)?.[1];
  if (present(quoted)) {
    return truncate(quoted.trim(), MAX_SUBJECT);
  }
  for (const pattern of HEADER_SUBJECTS) {
    const header = pattern.exec(message)?.[1];
    if (present(header)) {
      return header.toLowerCase();
    }
  }
  return null;
}

/**
 * The absolute http(s) URL an item's path holds, or null. nikto reports some items with a whole
 * URL (a redirect's target, a link it followed) and prefixes its `-root` to it (`/shop` +
 * `http://host/x` = `/shophttp://host/x`); the URL is kept as nikto found it, never joined onto
 * the target.
 */
export function absoluteUrlIn(path: string | null): string | null {
  if (!present(path)) {
    return null;
  }
  const text = path.trim();
  const at = text.search(ABSOLUTE_IN_PATH);
  if (at === -1 || (at > 0 && !text.startsWith('/'))) {
    return null;
  }
  // Only a path may come before it: `/shop` yes, `/a?next=http://…` (a query) no.
  if (/[?#]/.test(text.slice(0, at))) {
    return null;
  }
  return usableLink(text.slice(at));
}

/** The message without the `/path: ` prefix nikto sometimes adds (only when it is the item's path). */
function stripPathPrefix(message: string, path: string | null): string {
  const match = PATH_PREFIX.exec(message);
  if (match === null || (present(path) && match[1] !== path)) {
    return message;
  }
  const rest = message.slice(match[0].length).trim();
  return rest === '' ? message : rest;
}

/** The path of an item: its own, else the `/path:` prefix of the message, else `/`. */
function pathOf(item: NiktoItem): string {
  if (present(item.path)) {
    const path = item.path.trim();
    return path.startsWith('/') ? path : `/${path}`;
  }
  return PATH_PREFIX.exec(item.message)?.[1] ?? '/';
}

function defaultPort(scheme: string): number {
  return scheme === 'https' ? 443 : 80;
}

/**
 * http or https for a report without a scheme: the scheme of the requested URL when nikto tested
 * that URL's port; else https for 443 and 8443; else http.
 */
export function schemeFor(host: NiktoHost, port: number | null, target: ScanTarget): string {
  if (host.scheme !== null) {
    return host.scheme;
  }
  if (target.type === 'url') {
    try {
      const url = new URL(target.value);
      const scheme = url.protocol.replace(/:$/, '');
      const targetPort = url.port === '' ? defaultPort(scheme) : Number(url.port);
      if (port === null || port === targetPort) {
        return scheme;
      }
    } catch {
      // Not a URL after all: fall through to the port rule.
    }
  }
  return port === 443 || port === 8443 ? 'https' : 'http';
}

/** The port nikto tested, else the requested URL's. */
function portFor(host: NiktoHost, target: ScanTarget): number | null {
  if (host.port !== null) {
    return host.port;
  }
  if (target.type !== 'url') {
    return null;
  }
  try {
    const url = new URL(target.value);
    return url.port === '' ? defaultPort(url.protocol.replace(/:$/, '')) : Number(url.port);
  } catch {
    return null;
  }
}

/** The location host: nikto's host name, else its IP, else the requested target's host. */
function hostFor(host: NiktoHost, target: ScanTarget): string | null {
  if (present(host.hostname)) {
    return host.hostname.trim();
  }
  if (present(host.ip)) {
    return host.ip.trim();
  }
  return target.host;
}

/** A full http(s) URL nikto wrote itself (XML `namelink`), if it is one with a host. */
function usableLink(link: string | null): string | null {
  if (!present(link)) {
    return null;
  }
  try {
    const url = new URL(link.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
      ? url.href
      : null;
  } catch {
    return null;
  }
}

/** scheme://host:port + path, parsed (and so percent-encoded) by the WHATWG URL parser. */
function buildUrl(scheme: string, host: string | null, port: number | null, path: string): string {
  const hostPart = host === null ? 'unknown-host' : host.includes(':') ? `[${host}]` : host;
  const text = `${scheme}://${hostPart}${port === null ? '' : `:${port}`}${path}`;
  try {
    return new URL(text).href;
  } catch {
    return text;
  }
}

function cvesIn(text: string): string[] {
  return unique(Array.from(text.matchAll(CVE_ID), (match) => match[0].toUpperCase()));
}

function cwesIn(texts: readonly string[]): string[] {
  const ids = texts.flatMap((text) => [
    ...Array.from(text.matchAll(CWE_IN_TEXT), (match) => match[1] ?? ''),
    ...Array.from(text.matchAll(CWE_IN_URL), (match) => match[1] ?? ''),
  ]);
  return unique(ids.filter((id) => id !== '').map((id) => `CWE-${Number(id)}`));
}

function osvdbNumber(osvdb: string | null): number | null {
  if (!present(osvdb) || !/^\d{1,9}$/.test(osvdb.trim())) {
    return null;
  }
  return Number(osvdb.trim());
}

/**
 * The finding (or, for an error record, the warning) for one nikto item of `host`, scanned as part
 * of `target`.
 */
export function niktoItemOutcome(
  item: NiktoItem,
  host: NiktoHost,
  target: ScanTarget,
): ItemOutcome {
  const message = item.message.trim();
  if (isErrorRecord(item)) {
    const where = hostFor(host, target) ?? 'the target';
    return {
      kind: 'warning',
      warning: `nikto reported an error for ${where}: ${truncate(message || '(no message)', 500)}`,
    };
  }
  const id = normalizeTestId(item.id);
  const path = pathOf(item);
  const port = portFor(host, target);
  const location = {
    host: hostFor(host, target),
    port,
    protocol: 'tcp',
    url:
      absoluteUrlIn(item.path) ??
      usableLink(item.link) ??
      buildUrl(schemeFor(host, port, target), hostFor(host, target), port, path),
  };
  const osvdb = osvdbNumber(item.osvdb);
  const references = unique(item.references.filter((ref) => /^https?:\/\/\S+$/i.test(ref)));
  const cves = cvesIn([message, ...references].join(' '));
  const classification = classifyNiktoItem({ id: Number(id), osvdb, message, cves });
  const subject = subjectOf(message);
  const shown = stripPathPrefix(message, item.path) || `nikto test ${id}`;
  const method = present(item.method) ? item.method.trim() : null;
  return {
    kind: 'finding',
    finding: {
      ruleId: subject === null ? id : `${id}:${subject}`,
      title: truncate(shown, MAX_TITLE),
      severity: classification.severity,
      toolSeverity: null,
      category: classification.category,
      location,
      identifiers: { cve: cves, cwe: cwesIn([message, ...references]) },
      description:
        `${message || `nikto test ${id} matched.`} (nikto test ${id}` +
        `${osvdb !== null && osvdb > 0 ? `, OSVDB-${osvdb}` : ''}.)`,
      evidence: [
        `${method ?? 'GET'} ${location.url}`,
        `nikto: ${message}`,
        ...(present(host.banner) ? [`server banner: ${host.banner.trim()}`] : []),
      ].join('\n'),
      remediation: classification.remediation,
      references,
      raw: {
        id: item.id,
        osvdb: item.osvdb,
        method,
        path: item.path,
        msg: truncate(message, MAX_RAW_TEXT),
        references: item.references.slice(0, 10),
        host: host.hostname,
        ip: host.ip,
        port: host.port,
        rule: classification.rule,
      },
    },
  };
}
