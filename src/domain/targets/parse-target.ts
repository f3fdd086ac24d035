/**
 * Validation and classification of scan targets (decisions.md, "Scans": target types, inference,
 * grammar). A target is checked against the grammar of its given or inferred type and against the
 * engine's target types; the reason of a refusal becomes the message of 400 `INVALID_TARGET`.
 *
 * Decisions beyond the contract's words:
 * - A trailing dot (`example.com.`) is refused: the contract's "labels 1–63 characters" leaves no
 *   room for the empty root label, and one spelling per name keeps assets and scanner output apart.
 * - A name whose last label is a number (`example.123`, `0x7f`) is refused: WHATWG URL parsing and
 *   inet_aton read such hosts as IPv4 addresses, so they could reach `127.0.0.1` in disguise.
 * - URLs with user information (`http://user:pass@host/`) are refused: credentials would be stored
 *   and shown with the scan, and `good.com@evil.com` is the classic way to mislead a reader.
 * - URLs with a backslash are refused: WHATWG reads `\` as `/` in http(s) URLs, other parsers do not.
 * - A URL's port must be 1–65535 in plain decimal; an empty port (`http://host:/`) is refused.
 * - Invisible formatting characters (Unicode Cf: zero-width, bidirectional marks) count as control
 *   characters; they are never needed, since a URL path can carry them percent-encoded.
 * - A name of four labels made only of digits and hyphens (`169.254.169.254-254`,
 *   `10.0-255.0-255.1-254`) is refused: nmap reads it as an address range, not as a name to
 *   resolve, so it would sweep addresses no check ever judged. No real host name looks like that.
 */
import ipaddr from 'ipaddr.js';
import {
  allowlistEntryError,
  isCanonicalIPv4,
  parseCanonicalAddress,
} from '../network/ip-allowlist.js';
import type { ScanTarget, TargetType } from './target.js';

export type ParseTargetResult = { ok: true; target: ScanTarget } | { ok: false; reason: string };

/** "Max length 2048" for any target. */
export const MAX_TARGET_LENGTH = 2048;

export const ALL_TARGET_TYPES: readonly TargetType[] = [
  'host',
  'url',
  'domain',
  'ip',
  'network',
  'image',
];

/** Whether `value` names a target type at all (an unknown one is INVALID_FIELD_VALUE). */
export function isTargetType(value: unknown): value is TargetType {
  return ALL_TARGET_TYPES.some((type) => type === value);
}

type Parsed =
  | { ok: true; host: string | null; hostIsAddress: boolean }
  | { ok: false; reason: string };

/** What a target looks like, before its type's grammar is applied. */
type Shape = 'url' | 'network' | 'ip' | 'name' | 'other';

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function hostResult(host: string, hostIsAddress: boolean): Parsed {
  return { ok: true, host: host.toLowerCase(), hostIsAddress };
}

/** Echoes part of a target in a reason: shortened, and with invisible characters as U+XXXX. */
function show(text: string): string {
  const short = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return short.replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Z}]/gu, (c) => codePoint(c));
}

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

// "Whitespace, control characters, backticks and a leading `-` are never valid."
function characterProblem(value: string): string | null {
  if (value === '') {
    return 'target is empty';
  }
  if (value.length > MAX_TARGET_LENGTH) {
    return `target is longer than ${MAX_TARGET_LENGTH} characters`;
  }
  const bad = /[\s\p{Cc}\p{Cf}\p{Cs}`]/u.exec(value);
  if (bad !== null) {
    const char = bad[0];
    const where = `at position ${bad.index + 1}`;
    if (char === '`') {
      return `target contains a backtick ${where}`;
    }
    const kind = /\s/u.test(char)
      ? 'whitespace'
      : /\p{Cc}/u.test(char)
        ? 'a control character'
        : 'an invisible or invalid character';
    return `target contains ${kind} (${codePoint(char)}) ${where}`;
  }
  if (value.startsWith('-')) {
    return "target starts with '-'";
  }
  return null;
}

/** WHATWG's "ends in a number": such a host is parsed as an IPv4 address, in any notation. */
function endsInNumber(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  return /^(\d+|0x[0-9a-f]*)$/i.test(last);
}

/**
 * Whether nmap would read the name as an IPv4 range: four octet specs, each a number or a range of
 * numbers (`1-254`). Any label of digits and hyphens counts, whatever nmap then makes of it.
 */
function readAsNmapRange(name: string): boolean {
  const labels = name.split('.');
  return labels.length === 4 && labels.every((label) => /^[0-9][0-9-]*$/.test(label));
}

function looksLikeAddress(text: string): boolean {
  // An IPv6 address has at least two colons; one colon is a host:port.
  return text.includes(':')
    ? /^[0-9a-fx.]*:[0-9a-fx.]*:[0-9a-fx:.]*(%.*)?$/i.test(text)
    : /^[0-9a-fx.]+$/i.test(text) && endsInNumber(text);
}

function shapeOf(value: string): Shape {
  if (value.includes('://')) {
    return 'url';
  }
  const slash = value.indexOf('/');
  if (slash !== -1) {
    return looksLikeAddress(value.slice(0, slash)) ? 'network' : 'other';
  }
  if (looksLikeAddress(value)) {
    return 'ip';
  }
  return value.includes(':') ? 'other' : 'name';
}

/** The reason for a target of no recognizable shape. */
function otherReason(value: string): string {
  if (/^[^:/]+:(\d*|\d+\/.*)$/.test(value)) {
    return `${show(value)} has a port; ports are accepted only in URLs (http://host:port/)`;
  }
  if (/^https?:/i.test(value)) {
    return `${show(value)} is not an absolute URL (http://host/…)`;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1];
  if (scheme !== undefined) {
    return `${show(scheme)}: targets are not accepted; use an http or https URL`;
  }
  return `${show(value)} is not an http(s) URL, IP address, CIDR range or DNS name`;
}

/**
 * Host names: "letters, digits, hyphens and dots (internationalized names as punycode), labels
 * 1–63 characters, at most 253 in all". A domain also needs "at least one dot".
 */
function parseName(name: string, isDomain: boolean): Parsed {
  if (name.length > 253) {
    return fail(`${show(name)} is longer than 253 characters`);
  }
  if (/[^\x21-\x7e]/.test(name)) {
    let ascii = '';
    try {
      ascii = new URL(`http://${name}`).hostname;
    } catch {
      // Not convertible: the reason below names no punycode form.
    }
    const hint = /^[a-z0-9.-]+$/.test(ascii) ? ` (${ascii})` : '';
    return fail(`${show(name)}: internationalized names must be given as punycode${hint}`);
  }
  if (name.endsWith('.')) {
    return fail(`${show(name)} ends with a dot; leave the trailing dot out`);
  }
  for (const label of name.split('.')) {
    if (label === '') {
      return fail(`${show(name)} has an empty label`);
    }
    if (!/^[a-z0-9-]+$/i.test(label)) {
      return fail(`label ${show(label)} may contain only letters, digits and hyphens`);
    }
    if (label.length > 63) {
      return fail(`label ${show(label)} is longer than 63 characters`);
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      return fail(`label ${show(label)} starts or ends with a hyphen`);
    }
  }
  if (endsInNumber(name)) {
    return fail(`${show(name)} ends in a numeric label, which is read as an IPv4 address`);
  }
  if (readAsNmapRange(name)) {
    return fail(
      `${show(name)} is read as an address range by nmap (four labels of digits or digit ranges), not as a name`,
    );
  }
  if (isDomain && !name.includes('.')) {
    return fail(`targetType domain does not match ${show(name)}: a domain has at least one dot`);
  }
  // Punycode labels must decode; WHATWG URL refuses `xn--zz` and lower-cases the rest.
  if (/(^|\.)xn--/i.test(name) && !sameHost(name, `http://${name}`)) {
    return fail(`${show(name)} contains an invalid punycode (xn--) label`);
  }
  return hostResult(name, false);
}

function sameHost(host: string, url: string): boolean {
  try {
    return new URL(url).hostname === host.toLowerCase();
  } catch {
    return false;
  }
}

// "Addresses in targets must be canonical (`127.0.0.1`, not `127.1`, `0x7f.0.0.1` or `2130706433`)."
function parseIp(value: string): Parsed {
  if (!value.includes(':')) {
    return isCanonicalIPv4(value)
      ? hostResult(value, true)
      : fail(
          `${show(value)} is not a canonical IPv4 address (four decimal numbers 0-255 without leading zeros)`,
        );
  }
  const zone = value.indexOf('%');
  if (zone !== -1) {
    return fail(`${show(value)}: IPv6 zone ids (${show(value.slice(zone))}) are not accepted`);
  }
  return parseCanonicalAddress(value)?.kind() === 'ipv6'
    ? hostResult(value, true)
    : fail(`${show(value)} is not a valid IPv6 address`);
}

/** "`network` = CIDR (IPv4 prefix ≥ /16, IPv6 ≥ /112)", canonical, without host bits. */
function parseNetwork(value: string): Parsed {
  if (value.includes('%')) {
    return fail(`${show(value)}: IPv6 zone ids are not accepted`);
  }
  const error = allowlistEntryError(value);
  if (error !== null) {
    return fail(error);
  }
  const [addressText = '', bitsText = ''] = value.split('/');
  const minBits = addressText.includes(':') ? 112 : 16;
  if (Number(bitsText) < minBits) {
    return fail(`${value} is too wide; the prefix must be at least /${minBits}`);
  }
  return hostResult(addressText, true);
}

function validPort(text: string): boolean {
  return /^[1-9]\d{0,4}$/.test(text) && Number(text) <= 65535;
}

/** A URL's or registry's `host[:port]` part, following the host rules. */
function parseAuthority(authority: string, what: string): Parsed {
  let hostText: string;
  let portText: string | null = null;
  let parsed: Parsed;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    const after = close === -1 ? '' : authority.slice(close + 1);
    if (close === -1 || (after !== '' && !after.startsWith(':'))) {
      return fail(`${what} ${show(authority)} is not a valid [IPv6]:port`);
    }
    hostText = authority.slice(1, close);
    portText = after === '' ? null : after.slice(1);
    parsed = hostText.includes(':')
      ? parseIp(hostText)
      : fail(`${what} ${show(authority)}: brackets are only for IPv6 addresses`);
  } else {
    const colon = authority.indexOf(':');
    if (colon !== authority.lastIndexOf(':')) {
      return fail(`${what} ${show(authority)}: an IPv6 address goes in brackets ([::1]:8080)`);
    }
    hostText = colon === -1 ? authority : authority.slice(0, colon);
    portText = colon === -1 ? null : authority.slice(colon + 1);
    if (hostText === '') {
      return fail(`${what} has no host`);
    }
    parsed = looksLikeAddress(hostText) ? parseIp(hostText) : parseName(hostText, false);
  }
  if (parsed.ok && portText !== null && !validPort(portText)) {
    return fail(`${what} port ${show(portText) || '(empty)'} is not a number from 1 to 65535`);
  }
  return parsed;
}

/**
 * "URLs absolute `http`/`https` URLs that parse (WHATWG) and whose host follows the same rules."
 * The host is read from the text as given: WHATWG would turn `http://127.1/` into 127.0.0.1.
 */
function parseUrl(value: string): Parsed {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
  if (scheme === null) {
    return fail(`${show(value)} is not an absolute URL`);
  }
  if (!/^https?$/i.test(scheme[1] ?? '')) {
    return fail(`${show(scheme[1] ?? '')} URLs are not accepted; only http and https`);
  }
  if (value.includes('\\')) {
    return fail('URLs with a backslash are not accepted');
  }
  const rest = value.slice(scheme[0].length);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority.includes('@')) {
    return fail('URLs with a user name or password are not accepted');
  }
  if (authority === '') {
    return fail(`${show(value)} has no host`);
  }
  const host = parseAuthority(authority, 'URL');
  if (!host.ok || host.host === null) {
    return host;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`${show(value)} is not a valid URL`);
  }
  // Both readings of the host must agree (IPv6 compared as addresses: WHATWG compresses them).
  const agrees = host.host.includes(':')
    ? ipaddr.parse(url.hostname.slice(1, -1)).toNormalizedString() ===
      ipaddr.parse(host.host).toNormalizedString()
    : url.hostname === host.host;
  return agrees ? host : fail(`${show(value)}: URL parsers disagree on its host`);
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A container image reference `[registry[:port]/]path[:tag][@sha256:<64 hex>]` (Docker's grammar). */
function parseImage(value: string): Parsed {
  let name = value;
  const at = name.indexOf('@');
  if (at !== -1) {
    if (!DIGEST.test(name.slice(at + 1))) {
      return fail(
        `image digest ${show(name.slice(at + 1))} is not sha256:<64 lower-case hex digits>`,
      );
    }
    name = name.slice(0, at);
  }
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) {
    const tag = name.slice(colon + 1);
    if (!TAG.test(tag)) {
      return fail(`image tag ${show(tag) || '(empty)'} is not valid (letters, digits, _ . -)`);
    }
    name = name.slice(0, colon);
  }
  if (name.length > 255) {
    return fail('image name is longer than 255 characters');
  }
  const components = name.split('/');
  const first = components[0] ?? '';
  // Docker's rule: the first component names a registry when it has `.` or `:`, is `localhost`,
  // or has upper-case letters (which a path may not).
  const registry =
    components.length > 1 &&
    (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase())
      ? components.shift()
      : undefined;
  for (const component of components) {
    if (!PATH_COMPONENT.test(component)) {
      return fail(
        /[A-Z]/.test(component)
          ? `image path ${show(components.join('/'))} must be lower-case`
          : `image path component ${show(component) || '(empty)'} is not valid (a-z, 0-9, separated by . _ __ or -)`,
      );
    }
  }
  return registry === undefined
    ? { ok: true, host: null, hostIsAddress: false }
    : parseAuthority(registry, 'image registry');
}

function parseAs(value: string, type: TargetType, shape: Shape): Parsed {
  const mismatch = fail(
    shape === 'other' ? otherReason(value) : `targetType ${type} does not match ${show(value)}`,
  );
  switch (type) {
    case 'url':
      return shape === 'url' ? parseUrl(value) : mismatch;
    case 'network':
      return shape === 'network' ? parseNetwork(value) : mismatch;
    case 'ip':
      return shape === 'ip' ? parseIp(value) : mismatch;
    case 'domain':
      return shape === 'name' ? parseName(value, true) : mismatch;
    case 'host':
      return shape === 'ip'
        ? parseIp(value)
        : shape === 'name'
          ? parseName(value, false)
          : mismatch;
    case 'image':
      return shape === 'url' ? mismatch : parseImage(value);
  }
}

/** "URL → url, CIDR → network, IP literal → ip, a name with a dot → domain, single label → host". */
function inferType(value: string, shape: Shape, engineTypes: readonly TargetType[]): TargetType {
  if (engineTypes.includes('image') && shape !== 'url') {
    return 'image';
  }
  const inferred: TargetType =
    shape === 'url'
      ? 'url'
      : shape === 'network'
        ? 'network'
        : shape === 'ip'
          ? 'ip'
          : value.includes('.')
            ? 'domain'
            : 'host';
  // An address or a domain is also a host: an engine that takes only the general type gets it.
  if (
    (inferred === 'ip' || inferred === 'domain') &&
    !engineTypes.includes(inferred) &&
    engineTypes.includes('host')
  ) {
    return 'host';
  }
  return inferred;
}

function notAccepted(
  type: TargetType,
  engineTypes: readonly TargetType[],
  scanType: string | undefined,
): string {
  const engine = scanType === undefined ? 'this scanType' : `scanType ${show(scanType)}`;
  return `${engine} does not accept targetType ${type} (it takes ${engineTypes.join(', ')})`;
}

/**
 * Validates a scan target and settles its type: `givenType` when given, else inferred from the
 * value and the engine's target types. `scanType`, when given, names the engine in reasons.
 *
 * @example parseTarget('https://example.com/a?b=1', undefined, ['url'])
 *   // { ok: true, target: { value, type: 'url', host: 'example.com', hostIsAddress: false } }
 * @example parseTarget('example.com', undefined, ['url'], 'zap')
 *   // { ok: false, reason: 'scanType zap does not accept targetType domain (it takes url)' }
 */
export function parseTarget(
  value: unknown,
  givenType: string | undefined,
  engineTargetTypes: readonly TargetType[],
  scanType?: string,
): ParseTargetResult {
  if (typeof value !== 'string') {
    return fail('target must be a string');
  }
  const problem = characterProblem(value);
  if (problem !== null) {
    return fail(problem);
  }
  const shape = shapeOf(value);
  let type: TargetType;
  if (givenType === undefined) {
    if (shape === 'other' && !engineTargetTypes.includes('image')) {
      return fail(otherReason(value));
    }
    type = inferType(value, shape, engineTargetTypes);
  } else {
    const known = ALL_TARGET_TYPES.find((candidate) => candidate === givenType);
    if (known === undefined) {
      return fail(`targetType ${show(givenType)} is not one of ${ALL_TARGET_TYPES.join(', ')}`);
    }
    type = known;
  }
  if (!engineTargetTypes.includes(type)) {
    return fail(notAccepted(type, engineTargetTypes, scanType));
  }
  const parsed = parseAs(value, type, shape);
  if (!parsed.ok) {
    return parsed;
  }
  return {
    ok: true,
    target: { value, type, host: parsed.host, hostIsAddress: parsed.hostIsAddress },
  };
}
