/**
 * What the `weakness` correlation rule needs to know about a web finding beyond its URL and CWE
 * ids, read from each engine's own data (README, "Correlation"):
 *
 * - the attacked parameter: ZAP, wapiti and sqlmap name it (an empty name means the finding is
 *   about no parameter); nuclei and nikto never do, so the caller falls back on the query of the
 *   URL they matched (nuclei's location URL drops the query, its `raw.matchedAt` keeps it);
 * - the security response header a finding reports missing, told from each engine's wording,
 *   because tools map a missing header to different CWEs (ZAP: 16, 693, 1021 or 319 depending on
 *   header and version) or to none at all (wapiti, nuclei, nikto).
 */
import { rawList, rawText } from './raw-fields.js';
import type { SourceFinding } from './types.js';

/**
 * The parameter the engine names for the finding: the name, `''` when the engine says the finding
 * is about no parameter, or null when the engine never reports parameters.
 * @example reportedParameter(wapitiXss) // 'name' (from raw.parameter)
 */
export function reportedParameter(finding: SourceFinding): string | null {
  switch (finding.engine) {
    case 'wapiti':
    case 'sqlmap':
      return rawText(finding.raw, 'parameter') ?? '';
    case 'zap':
      // ZAP's instances of one finding share their parameter (the parser groups them so).
      return rawText(rawList(finding.raw, 'instances')[0], 'param') ?? '';
    default:
      return null;
  }
}

const HTTP_URL = /^https?:\/\//i;

/**
 * The URL whose query may name the parameter, for engines that do not report one: nuclei's first
 * http(s) `matched-at` (its location URL has no query), else the location URL.
 */
export function parameterUrl(finding: SourceFinding): string | null {
  if (finding.engine === 'nuclei') {
    for (const matched of rawList(finding.raw, 'matchedAt')) {
      if (typeof matched === 'string' && HTTP_URL.test(matched)) {
        return matched;
      }
    }
  }
  return finding.location.url;
}

/**
 * Security response headers correlation knows, by every name the engines use for them: the
 * header itself, wapiti's `csp`, ZAP's "Content Security Policy (CSP)" and "Anti-clickjacking",
 * and the Feature-Policy header that Permissions-Policy replaced.
 */
const HEADER_NAMES: ReadonlyMap<string, string> = new Map([
  ['x-frame-options', 'x-frame-options'],
  ['anti-clickjacking', 'x-frame-options'],
  ['content-security-policy', 'content-security-policy'],
  ['csp', 'content-security-policy'],
  ['strict-transport-security', 'strict-transport-security'],
  ['hsts', 'strict-transport-security'],
  ['x-content-type-options', 'x-content-type-options'],
  ['x-xss-protection', 'x-xss-protection'],
  ['permissions-policy', 'permissions-policy'],
  ['feature-policy', 'permissions-policy'],
  ['referrer-policy', 'referrer-policy'],
  ['cross-origin-embedder-policy', 'cross-origin-embedder-policy'],
  ['cross-origin-opener-policy', 'cross-origin-opener-policy'],
  ['cross-origin-resource-policy', 'cross-origin-resource-policy'],
  ['x-permitted-cross-domain-policies', 'x-permitted-cross-domain-policies'],
  ['clear-site-data', 'clear-site-data'],
]);

/** `Content Security Policy (CSP)` → `content-security-policy`; null for an unknown header. */
function knownHeader(name: string): string | null {
  const slug = name
    .replace(/\([^)]*\)/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-');
  return HEADER_NAMES.get(slug) ?? null;
}

/** ZAP: "X-Frame-Options Header Not Set", "X-Content-Type-Options Header Missing". */
const ZAP_NOT_SET = /^(.{1,80}?)\s+header\s+(?:is\s+)?(?:not\s+set|missing)\b/i;
/** ZAP 2.12+: "Missing Anti-clickjacking Header". */
const ZAP_MISSING = /^missing\s+(.{1,80}?)\s+header\b/i;
/** wapiti rule ids: `http-secure-headers:x-frame-options-is-not-set`, `…-configuration:csp-is-not-set`. */
const WAPITI_NOT_SET = /:([a-z0-9-]{1,80}?)-is-not-set$/;
/** nuclei's http-missing-security-headers template names the header as its matcher. */
const NUCLEI_MISSING = 'http-missing-security-headers:';
/** nikto: "The anti-clickjacking X-Frame-Options header is not present.", "… HTTP header is not defined." */
const NIKTO_NOT_SET =
  /([a-z][a-z0-9-]{0,79})\s+(?:http\s+)?header\s+is\s+not\s+(?:present|set|defined)/i;

/**
 * The security response header the finding reports missing (canonical lower-case name), or null.
 * @example missingHeaderOf(nucleiFinding('http-missing-security-headers:x-frame-options')) // 'x-frame-options'
 */
export function missingHeaderOf(finding: SourceFinding): string | null {
  let name: string | undefined;
  switch (finding.engine) {
    case 'zap': {
      const alert = rawText(finding.raw, 'alert') ?? finding.title;
      name = ZAP_NOT_SET.exec(alert)?.[1] ?? ZAP_MISSING.exec(alert)?.[1];
      break;
    }
    case 'wapiti':
      name = finding.ruleId.endsWith('-is-not-set')
        ? WAPITI_NOT_SET.exec(finding.ruleId)?.[1]
        : undefined;
      break;
    case 'nuclei':
      name = finding.ruleId.startsWith(NUCLEI_MISSING)
        ? finding.ruleId.slice(NUCLEI_MISSING.length)
        : undefined;
      break;
    case 'nikto':
      // nikto's classification files these messages (and only these) under security-header.
      name =
        finding.category === 'security-header' ? NIKTO_NOT_SET.exec(finding.title)?.[1] : undefined;
      break;
    default:
      name = undefined;
  }
  return name === undefined ? null : knownHeader(name);
}
