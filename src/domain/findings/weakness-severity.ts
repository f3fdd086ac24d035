/**
 * One severity, one category and one location shape per weakness, whichever engine reported it
 * (README, "Findings: one severity per weakness"). Applied once to every engine's drafts, after
 * the engine's own mapping, by `finalizeFindings`; the tool's own rating stays in `toolSeverity`.
 * Pure.
 *
 * A finding's weakness class is the class (weakness-classes.ts) of the first of its CWE ids that
 * has a row in `WEAKNESS_SEVERITIES`, else its category when that names a row (sqlmap says
 * `sql-injection` whatever the CWE). A finding with a class:
 * - takes the class as its `category` (wapiti's and ZAP's `vulnerability` with CWE-89 becomes
 *   `sql-injection`, as sqlmap says);
 * - takes the row's severity, `confirmed` when the engine confirmed it by exploitation (the
 *   engine's confidence is `confirmed`: sqlmap's injection points, a nuclei out-of-band callback,
 *   a ZAP alert a user confirmed), else `unconfirmed`.
 * Left as the engine rated them: findings the engine rated `info` (wapiti's anomalies, a 500 while
 * injecting, are signals, not claims of a weakness) and findings with a CVE id (the advisory rates
 * that flaw in that product: trivy's package CVE with CWE-79 is not an observed XSS).
 *
 * Every finding also has its category spelled in the one vocabulary (`CATEGORY_ALIASES`), and a
 * finding that has a URL or a port has a transport: `protocol` null becomes `tcp` (HTTP and the
 * tools' other probes run over TCP; nmap's `udp` is kept).
 */
import type { DraftFinding, FindingLocation, Severity } from './finding.js';
import { weaknessClassOf } from './weakness-classes.js';

/** The normalized severity of a weakness class, confirmed by exploitation or not. */
export interface WeaknessSeverity {
  readonly confirmed: Severity;
  readonly unconfirmed: Severity;
}

/**
 * The table. Injections that run the attacker's query or code are critical however they were
 * found (an SQL injection that sqlmap exploited and the one wapiti saw from the database's error
 * are the same flaw). Weaknesses whose impact a scanner usually cannot see without exploiting
 * them (SSRF without a callback, a token missing from a form) are a level lower unconfirmed.
 */
export const WEAKNESS_SEVERITIES: ReadonlyMap<string, WeaknessSeverity> = new Map<
  string,
  WeaknessSeverity
>([
  ['sql-injection', { confirmed: 'critical', unconfirmed: 'critical' }],
  ['os-command-injection', { confirmed: 'critical', unconfirmed: 'critical' }],
  ['code-injection', { confirmed: 'critical', unconfirmed: 'critical' }],
  ['file-inclusion', { confirmed: 'critical', unconfirmed: 'high' }],
  ['xxe', { confirmed: 'high', unconfirmed: 'high' }],
  ['path-traversal', { confirmed: 'high', unconfirmed: 'high' }],
  ['xss', { confirmed: 'high', unconfirmed: 'high' }],
  ['ssrf', { confirmed: 'high', unconfirmed: 'medium' }],
  ['crlf-injection', { confirmed: 'medium', unconfirmed: 'medium' }],
  ['open-redirect', { confirmed: 'medium', unconfirmed: 'low' }],
  ['csrf', { confirmed: 'medium', unconfirmed: 'low' }],
]);

/**
 * Engines' names for one category, to the one name every engine's findings use: ZAP's
 * `informational` is wapiti's and nikto's `information`; nikto's `default-credentials` is
 * nuclei's `default-login`.
 */
export const CATEGORY_ALIASES: ReadonlyMap<string, string> = new Map([
  ['informational', 'information'],
  ['default-credentials', 'default-login'],
]);

/** Whether a category names a weakness class of the table (`sql-injection`, `xss` …). */
export function isWeaknessCategory(category: string): boolean {
  return WEAKNESS_SEVERITIES.has(category);
}

/**
 * The weakness class of a finding that has a row in the table: by its CWE ids first, else by its
 * category; null when neither names one.
 * @example weaknessOf({ category: 'vulnerability', identifiers: { cve: [], cwe: ['CWE-89'] } }) // 'sql-injection'
 */
export function weaknessOf(finding: Pick<DraftFinding, 'category' | 'identifiers'>): string | null {
  for (const cwe of finding.identifiers.cwe) {
    const weakness = weaknessClassOf(cwe);
    if (weakness !== null && WEAKNESS_SEVERITIES.has(weakness)) {
      return weakness;
    }
  }
  return WEAKNESS_SEVERITIES.has(finding.category) ? finding.category : null;
}

/** The location with its transport: `tcp` when it has a URL or a port and no protocol. */
export function normalizedLocation(location: FindingLocation): FindingLocation {
  const protocol = location.protocol?.trim() ?? '';
  if (protocol !== '') {
    return location;
  }
  const hasUrl = (location.url?.trim() ?? '') !== '';
  return hasUrl || location.port !== null
    ? { ...location, protocol: 'tcp' }
    : { ...location, protocol: null };
}

/**
 * A finding in the common vocabulary (module comment): category, severity by the table, and the
 * location's transport. Everything else, `toolSeverity` included, is kept; the input is not
 * modified, and a finding that needs no change is returned as it is.
 * @example normalizeFinding(wapitiSqlInjection, { confirmed: false }).category // 'sql-injection'
 */
export function normalizeFinding<T extends DraftFinding>(
  finding: T,
  how: { readonly confirmed: boolean },
): T {
  const category = CATEGORY_ALIASES.get(finding.category) ?? finding.category;
  const rated = finding.severity !== 'info' && finding.identifiers.cve.length === 0;
  const weakness = rated ? weaknessOf({ ...finding, category }) : null;
  const row = weakness === null ? undefined : WEAKNESS_SEVERITIES.get(weakness);
  const severity =
    row === undefined ? finding.severity : how.confirmed ? row.confirmed : row.unconfirmed;
  const location = normalizedLocation(finding.location);
  const newCategory = weakness ?? category;
  if (
    newCategory === finding.category &&
    severity === finding.severity &&
    location.protocol === finding.location.protocol
  ) {
    return finding;
  }
  return { ...finding, category: newCategory, severity, location };
}
