/**
 * The risk of a sentinel scan's correlated findings and of the scan as a whole, each score with
 * the factors that make it up, so a user can see why a finding ranks where it does. Pure.
 *
 * Unlike the severity-only `riskScore` of single-engine scans (domain/findings/summary.ts), a
 * sentinel finding has what makes a severity more or less urgent: identifiers, the confidence of
 * each engine that reported it, how many engines agree, and where it sits. The rules are in
 * README.md, "Risk score".
 *
 * ## A finding: `assessFinding`
 *
 * | Factor | Points | When |
 * |---|---|---|
 * | `severity` | critical 70, high 50, medium 30, low 10, info 0 | always, first: the most severe of the finding and its sources |
 * | `exposed-service` | 20 | info only: an open port of a risky service (ftp 21, telnet 23, smb 445, mssql 1433, mysql 3306, rdp 3389, postgresql 5432, vnc 5900, redis 6379, elasticsearch 9200, memcached 11211, mongodb 27017) on an internet-facing host |
 * | `known-cve` | +10 | low and above, with at least one CVE id |
 * | `confirmed` | +10 | low and above, when a source's confidence is `confirmed` |
 * | `exposure` | +10 internet-facing, 0 internal | low and above, when the finding has a host |
 * | `corroboration` | +5 per distinct engine beyond the first, at most +10 | low and above |
 *
 * score = min(100, round(sum of points)). Every other info finding scores 0 with only its severity
 * factor: it is an observation (a subdomain, a web server banner), not a weakness.
 *
 * Ordering rules (risk.test.ts states them as properties): the score never falls when the
 * severity rises, when a source confirms the finding, or when another engine reports it; so a
 * finding confirmed by exploitation or corroborated by another engine never scores below the
 * same weakness from one unconfirmed engine (with the severities of weakness-severity.ts, where
 * a confirmed weakness is never less severe than an unconfirmed one). The severity is the most
 * severe of the finding's sources, not only the shown (most confident) one's, for that reason: an
 * SQL injection sqlmap exploited and wapiti rated critical scores from critical.
 *
 * Internet-facing: an IP literal outside every range refused-ranges.ts refuses (private, loopback,
 * link-local, carrier-grade NAT, cloud metadata, …) and outside the documentation and benchmarking
 * ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 198.18.0.0/15, 2001:db8::/32, 3fff::/20).
 * Those last ones are allowed as scan targets (tests use them), but nothing on the internet is
 * reached at them: they count as not internet-facing, as `.example` and `.test` names do. A DNS
 * name is internet-facing unless it is `localhost`, a single label, or under `.local`,
 * `.localhost`, `.internal`, `.lan`, `.home.arpa`, `.test`, `.invalid` or `.example`. The host is
 * the finding's `location.host`, else its URL's host; without either there is no exposure factor.
 *
 * Worked examples:
 * - Log4Shell (critical, CVE-2021-44228) on `app.example.com`, reported by nuclei and zap:
 *   70 + 10 (known CVE) + 10 (internet-facing) + 5 (one more engine) = **95**; had nuclei also
 *   confirmed it: 105 → capped at **100**.
 * - A medium finding of zap on `http://10.0.0.5/`: 30 + 0 (internal address) = **30**.
 * - nmap's open port 6379 (redis, info) on 8.8.4.4: **20**; the same port on 10.0.0.5: **0**.
 *
 * ## The scan: `assessScan`
 *
 *     score = round(top + (100 − top) × (1 − Π over the other findings with s > 0 of (1 − 0.3 × (s/100)²)))
 *
 * `top` is the highest finding score: the scan is at least as risky as its worst finding. Each
 * further finding closes a share of the distance left to 100: at most 30 % (for a finding of 100),
 * and quadratically less for lower ones (a 50 closes 7.5 %, a 30 closes 2.7 %, a 10 closes 0.3 %),
 * so many small findings cannot add up to one serious one, and the score never exceeds 100.
 * Adding a finding never lowers the score, nor does raising a finding's score.
 *
 * Worked examples:
 * - findings of 95, 30 and 20: 1 − (1 − 0.3 × 0.09)(1 − 0.3 × 0.04) = 1 − 0.973 × 0.988 =
 *   0.038676; 95 + 5 × 0.038676 = 95.19 → **95**.
 * - findings of 50, 50 and 30: 1 − 0.925 × 0.973 = 0.099975; 50 + 50 × 0.099975 = 54.999 → **55**.
 * - no findings → **0**.
 */

import ipaddr from 'ipaddr.js';
import type { Severity } from '../../domain/findings/finding.js';
import { severityRank } from '../../domain/findings/severity-order.js';
import { normalizeAddress } from '../../domain/network/ip-allowlist.js';
import { refusedRangeOf } from '../../domain/targets/refused-ranges.js';
import type { CorrelatedFinding, RiskAssessment, RiskFactor, ScoredFinding } from './types.js';

/** The base points of each severity (factor `severity`). */
export const SEVERITY_POINTS: Readonly<Record<Severity, number>> = {
  critical: 70,
  high: 50,
  medium: 30,
  low: 10,
  info: 0,
};

/** Services that should never be reachable from the internet, by their usual TCP port. */
export const RISKY_SERVICE_PORTS: ReadonlyMap<number, string> = new Map([
  [21, 'ftp'],
  [23, 'telnet'],
  [445, 'smb'],
  [1433, 'mssql'],
  [3306, 'mysql'],
  [3389, 'rdp'],
  [5432, 'postgresql'],
  [5900, 'vnc'],
  [6379, 'redis'],
  [9200, 'elasticsearch'],
  [11211, 'memcached'],
  [27017, 'mongodb'],
]);

/** Points of an info finding that is an internet-facing risky service. */
const EXPOSED_SERVICE_POINTS = 20;
const KNOWN_CVE_POINTS = 10;
const CONFIRMED_POINTS = 10;
const EXPOSURE_POINTS = 10;
const CORROBORATION_POINTS_PER_ENGINE = 5;
const CORROBORATION_MAX = 10;
/** CVE ids named in the `known-cve` detail before "+N more". */
const CVES_SHOWN = 3;
/** The share of the remaining distance to 100 a further finding of score 100 closes. */
const FURTHER_FINDING_SHARE = 0.3;

/** Documentation and benchmarking ranges: allowed as targets, but never an internet host. */
const NOT_ROUTED: ReadonlyArray<readonly [string, ReturnType<typeof ipaddr.parseCIDR>]> = [
  '192.0.2.0/24',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '198.18.0.0/15',
  '2001:db8::/32',
  '3fff::/20',
].map((cidr) => [cidr, ipaddr.parseCIDR(cidr)] as const);

/** Names under these suffixes (and these names themselves) never resolve on the internet. */
const INTERNAL_SUFFIXES = [
  'local',
  'localhost',
  'internal',
  'lan',
  'home.arpa',
  'test',
  'invalid',
  'example',
];

/** Where a finding sits, as far as exposure goes. */
type Reach =
  | { readonly internetFacing: true; readonly detail: string }
  | { readonly internetFacing: false; readonly detail: string };

/** The finding's host: `location.host`, else its URL's host (IPv6 without brackets), else null. */
function hostOf(finding: CorrelatedFinding): string | null {
  const { host, url } = finding.location;
  if (host !== null && host !== '') {
    return host;
  }
  if (url === null) {
    return null;
  }
  try {
    const hostname = new URL(url).hostname;
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    return bare === '' ? null : bare;
  } catch {
    return null;
  }
}

/** Whether a host is reachable from the internet, judged from its text alone (no resolution). */
function reachOf(host: string): Reach {
  const address = normalizeAddress(host);
  if (address !== null) {
    const shown = host.toLowerCase();
    const refused = refusedRangeOf(host);
    if (refused !== null) {
      return { internetFacing: false, detail: `internal address ${shown} (${refused})` };
    }
    const documentation = NOT_ROUTED.find(
      ([, [network, bits]]) => network.kind() === address.kind() && address.match(network, bits),
    );
    if (documentation !== undefined) {
      return {
        internetFacing: false,
        detail: `documentation address ${shown} (${documentation[0]}, not routed on the internet)`,
      };
    }
    return { internetFacing: true, detail: `internet-facing address ${shown}` };
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  const internal =
    name === 'localhost' ||
    !name.includes('.') ||
    INTERNAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
  return internal
    ? { internetFacing: false, detail: `internal name ${name}` }
    : { internetFacing: true, detail: `internet-facing name ${name}` };
}

/** "nmap", "nuclei and zap", "nikto, nuclei and zap". */
function listNames(names: readonly string[]): string {
  return names.length <= 1
    ? (names[0] ?? '')
    : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The distinct engines that reported the finding, sorted by name (its own engine if none). */
function enginesOf(finding: CorrelatedFinding): string[] {
  const engines = new Set(finding.sources.map((source) => source.engine));
  if (engines.size === 0) {
    engines.add(finding.engine);
  }
  return [...engines].sort();
}

/** The risky service an info finding exposes, as "redis on port 6379/tcp", or null. */
function riskyService(finding: CorrelatedFinding): string | null {
  const { port, protocol } = finding.location;
  if (finding.category !== 'open-port' || port === null) {
    return null;
  }
  // The listed services are TCP services; a UDP port of the same number is something else.
  if (protocol !== null && protocol.toLowerCase() !== 'tcp') {
    return null;
  }
  const service = RISKY_SERVICE_PORTS.get(port);
  return service === undefined ? null : `${service} on port ${port}/tcp`;
}

/**
 * The severity the score starts from: the most severe of the finding's and its sources' (the
 * finding shows its primary source's, the most confident one). A merged finding so never scores
 * below what any of its sources would score alone.
 */
function ratedSeverity(finding: CorrelatedFinding): {
  readonly severity: Severity;
  readonly detail: string;
} {
  let severity = finding.severity;
  const raters = new Set<string>();
  for (const source of finding.sources) {
    const rank = severityRank(source.finding.severity);
    if (rank < severityRank(severity)) {
      severity = source.finding.severity;
      raters.clear();
    }
    if (rank === severityRank(severity) && severity !== finding.severity) {
      raters.add(source.engine);
    }
  }
  return severity === finding.severity
    ? { severity, detail: severity }
    : { severity, detail: `${severity}, as ${listNames([...raters].sort())} rated it` };
}

function total(factors: readonly RiskFactor[]): number {
  const sum = factors.reduce((acc, factor) => acc + factor.points, 0);
  return Math.min(100, Math.max(0, Math.round(sum)));
}

/**
 * A correlated finding's risk, 0..100, with its factors in a fixed order: severity,
 * exposed-service, known-cve, confirmed, exposure, corroboration (absent ones left out).
 * @example assessFinding(log4shellOnPublicHostByNucleiAndZap).score // 95
 */
export function assessFinding(finding: CorrelatedFinding): RiskAssessment {
  const rated = ratedSeverity(finding);
  const severity: RiskFactor = {
    factor: 'severity',
    points: SEVERITY_POINTS[rated.severity],
    detail: rated.detail,
  };
  const host = hostOf(finding);
  const reach = host === null ? null : reachOf(host);

  if (rated.severity === 'info') {
    const service = riskyService(finding);
    const factors: RiskFactor[] = [severity];
    if (service !== null && reach?.internetFacing === true) {
      factors.push({
        factor: 'exposed-service',
        points: EXPOSED_SERVICE_POINTS,
        detail: `${service} reachable from the internet (${reach.detail})`,
      });
    }
    return { score: total(factors), factors };
  }

  const factors: RiskFactor[] = [severity];
  const cves = finding.identifiers.cve;
  if (cves.length > 0) {
    const more = cves.length - CVES_SHOWN;
    factors.push({
      factor: 'known-cve',
      points: KNOWN_CVE_POINTS,
      detail: `${cves.slice(0, CVES_SHOWN).join(', ')}${more > 0 ? ` +${more} more` : ''}`,
    });
  }
  const confirmedBy = [
    ...new Set(
      finding.sources
        .filter((source) => source.confidence === 'confirmed')
        .map((source) => source.engine),
    ),
  ].sort();
  if (confirmedBy.length > 0) {
    factors.push({
      factor: 'confirmed',
      points: CONFIRMED_POINTS,
      detail: `confirmed by ${listNames(confirmedBy)}`,
    });
  }
  if (reach !== null) {
    factors.push({
      factor: 'exposure',
      points: reach.internetFacing ? EXPOSURE_POINTS : 0,
      detail: reach.detail,
    });
  }
  const engines = enginesOf(finding);
  if (engines.length > 1) {
    factors.push({
      factor: 'corroboration',
      points: Math.min(CORROBORATION_MAX, CORROBORATION_POINTS_PER_ENGINE * (engines.length - 1)),
      detail: `reported by ${listNames(engines)}`,
    });
  }
  return { score: total(factors), factors };
}

/** Each finding with its risk, in the same order. */
export function scoreFindings(findings: readonly CorrelatedFinding[]): ScoredFinding[] {
  return findings.map((finding) => ({ ...finding, risk: assessFinding(finding) }));
}

/**
 * The scan's risk from its scored findings: the highest finding score, raised by each further
 * finding above 0 (see the module comment). Factors `highest-finding` and `further-findings`;
 * with no findings, 0 and the factor `no-findings`.
 * @example assessScan([f95, f30, f20]).score // 95
 */
export function assessScan(findings: readonly ScoredFinding[]): RiskAssessment {
  let topIndex = -1;
  findings.forEach((finding, index) => {
    const best = findings[topIndex];
    if (best === undefined || finding.risk.score > best.risk.score) {
      topIndex = index;
    }
  });
  const top = findings[topIndex];
  if (top === undefined) {
    return {
      score: 0,
      factors: [{ factor: 'no-findings', points: 0, detail: 'no findings' }],
    };
  }
  const topScore = top.risk.score;
  let remaining = 1;
  let further = 0;
  findings.forEach((finding, index) => {
    const score = finding.risk.score;
    // `> 0` is false for NaN: a corrupt score adds nothing.
    if (index !== topIndex && score > 0) {
      remaining *= 1 - FURTHER_FINDING_SHARE * (Math.min(100, score) / 100) ** 2;
      further += 1;
    }
  });
  const score = Math.min(
    100,
    Math.max(0, Math.round(topScore + (100 - topScore) * (1 - remaining))),
  );
  return {
    score,
    factors: [
      {
        factor: 'highest-finding',
        points: topScore,
        detail: `${top.title} (${top.engine})`,
      },
      {
        factor: 'further-findings',
        points: score - topScore,
        detail: `${further} further finding${further === 1 ? '' : 's'} with a risk above 0`,
      },
    ],
  };
}
