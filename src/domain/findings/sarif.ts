/**
 * The `?format=sarif` rendering of scan results: a SARIF 2.1.0 log (OASIS Static Analysis Results
 * Interchange Format) with one run, so results can be loaded into SARIF viewers and security
 * dashboards. Pure and deterministic: the same input gives the same bytes.
 *
 * Mapping, for readers of the file:
 * - `tool.driver`: the engine (name, version when known, information URI when known) and one
 *   rule (reportingDescriptor) per distinct `ruleId`, sorted by id, with the properties GitHub
 *   code scanning and DefectDojo read (`security-severity`, `tags` with `security`, `precision`;
 *   see `createSarifRuleCollector`);
 * - one result per finding, most severe first (then by rule id, fingerprint and finding id);
 * - `level` from the severity (see `SARIF_LEVELS`);
 * - locations: every result has a physical location, because GitHub refuses a whole upload
 *   when one result lacks it: an http(s) URL as it is; a host as `tcp://host:port` (the
 *   protocol as the scheme, see `networkUri`), with the logical location `host:port/protocol`
 *   (see `networkLocationName`) beside it; a finding with neither gets the scan target;
 * - `partialFingerprints["rampart/v1"]` carries the Rampart fingerprint, so viewers track the
 *   same issue across scans (DefectDojo makes it `unique_id_from_tool`: `rampart:<fingerprint>`);
 * - a finding with an issue (issue 23) adds `baselineState`, `suppressions` (its issue's triage)
 *   and `properties.issueId` (see `issueParts`);
 * - `invocations[0].executionSuccessful` is true only for a completed scan, and the run's
 *   property bag holds the scan id, type, target, status and times.
 *
 * For exports too large to hold, `createSarifRuleCollector` and `createSarifWriter` produce the
 * same bytes from findings read in result order (`compareSarifResults`) one page at a time: a
 * first pass collects the rules (memory grows with distinct rule ids, not findings), a second
 * writes the results.
 */
import type { BaselineState } from '../issues/issue.js';
import type { TriageState } from '../issues/triage.js';
import type { Finding, FindingIssue, Severity } from './finding.js';
import { compareSeverity } from './severity-order.js';

export const SARIF_VERSION = '2.1.0';
export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
/** Key of the Rampart fingerprint in `result.partialFingerprints`. */
export const SARIF_FINGERPRINT_KEY = 'rampart/v1';

export type SarifLevel = 'error' | 'warning' | 'note' | 'none';

/**
 * Severity → SARIF `level`. SARIF has three levels that mean "a problem" for five severities:
 * critical and high are `error`, medium is `warning`, low and info are `note` (the result's
 * `severity` property and the rule's `security-severity` keep them apart). Info is no longer
 * `none`: DefectDojo reads `none` as Medium and `note` as Info, and GitHub lists `note`.
 */
export const SARIF_LEVELS: Readonly<Record<Severity, SarifLevel>> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

/**
 * Severity → the rule's `properties["security-severity"]`, one fixed CVSS-like score each, in
 * the middle of both consumers' bands. GitHub code scanning (rules tagged `security`): > 9.0
 * critical, 7.0–8.9 high, 4.0–6.9 medium, 3.9 or less low. DefectDojo: ≥ 9 Critical, ≥ 7 High,
 * ≥ 4 Medium, > 0 Low, else Info. Info is 0.0: Info in DefectDojo; GitHub has no band below low,
 * so it shows Low there (the result's level, `note`, still tells it from a defect).
 */
export const SECURITY_SEVERITY_SCORES: Readonly<Record<Severity, string>> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: '0.0',
};

export type SarifPrecision = 'very-high' | 'high' | 'medium' | 'low';

/**
 * An engine → the rule's `properties.precision` (how often its results are true). Findings carry
 * no confidence of their own, so this is per engine, from how it finds things; engines not listed
 * are `medium`.
 */
export const ENGINE_PRECISIONS: Readonly<Record<string, SarifPrecision>> = {
  // Reports an injection only after a payload worked.
  sqlmap: 'high',
  // Match installed package versions against advisories.
  trivy: 'high',
  // Observed facts: the names and addresses public sources list.
  harvester: 'high',
  sublist3r: 'high',
  // Open ports are observed, but vulners CVEs match a banner's product and version only; nikto,
  // wapiti, ZAP and nuclei infer from responses. Their default: medium.
};
const DEFAULT_PRECISION: SarifPrecision = 'medium';

/**
 * Home pages of the engines' tools, used as `tool.driver.informationUri` when the caller passes
 * none. `sentinel` is Rampart's own multi-engine scan and has no entry.
 */
export const ENGINE_INFORMATION_URIS: Readonly<Record<string, string>> = {
  nmap: 'https://nmap.org/',
  zap: 'https://www.zaproxy.org/',
  trivy: 'https://trivy.dev/',
  nuclei: 'https://github.com/projectdiscovery/nuclei',
  nikto: 'https://github.com/sullo/nikto',
  sqlmap: 'https://sqlmap.org/',
  wapiti: 'https://wapiti-scanner.github.io/',
  harvester: 'https://github.com/laramies/theHarvester',
  sublist3r: 'https://github.com/aboul3la/Sublist3r',
};

export interface SarifScanInput {
  readonly id: string;
  readonly scanType: string;
  readonly target: string;
  readonly status: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601, null while the scan has not ended. */
  readonly completedAt: string | null;
}

export interface RenderSarifInput {
  readonly scan: SarifScanInput;
  readonly toolName: string;
  readonly toolVersion: string | null;
  readonly findings: readonly Finding[];
  /** Overrides the `ENGINE_INFORMATION_URIS` entry for `toolName`; ignored unless http(s). */
  readonly informationUri?: string;
}

// The subset of the SARIF 2.1.0 object model that Rampart writes.

export interface SarifMessage {
  readonly text: string;
}

export interface SarifMultiformatMessage {
  readonly text: string;
  readonly markdown?: string;
}

export interface SarifReportingDescriptor {
  readonly id: string;
  readonly name: string;
  readonly shortDescription: SarifMessage;
  readonly fullDescription: SarifMessage;
  readonly help: SarifMultiformatMessage;
  readonly helpUri?: string;
  readonly defaultConfiguration: { readonly level: SarifLevel };
  readonly properties: {
    /** The highest severity among the rule's findings (see `createSarifRuleCollector`). */
    readonly severity: Severity;
    readonly 'security-severity': string;
    readonly precision: SarifPrecision;
    readonly tags: readonly string[];
  };
}

export interface SarifLogicalLocation {
  readonly name: string;
  readonly fullyQualifiedName: string;
  readonly kind: string;
}

export interface SarifLocation {
  readonly physicalLocation: { readonly artifactLocation: { readonly uri: string } };
  readonly logicalLocations?: readonly SarifLogicalLocation[];
}

/**
 * SARIF 2.1.0 §3.35: a request to suppress a result, here a triage decision kept in Rampart
 * (`external`) and in effect (`accepted`).
 */
export interface SarifSuppression {
  readonly kind: 'external';
  readonly status: 'accepted';
  readonly justification?: string;
  readonly properties: {
    /** The issue's triage: false_positive, accepted_risk or out_of_scope. */
    readonly triage: Exclude<TriageState, 'none'>;
    /** accepted_risk with an expiry: when it returns to none (ISO 8601). */
    readonly expiresAt?: string;
  };
}

export interface SarifResult {
  readonly ruleId: string;
  readonly ruleIndex: number;
  readonly level: SarifLevel;
  readonly message: SarifMessage;
  readonly locations: readonly SarifLocation[];
  readonly partialFingerprints: Readonly<Record<string, string>>;
  /** Findings with an issue only (every result of the run, or none): see `issueParts`. */
  readonly baselineState?: BaselineState;
  /** Findings with an issue only: empty when untriaged, one suppression when triaged. */
  readonly suppressions?: readonly SarifSuppression[];
  readonly properties: {
    readonly severity: Severity;
    readonly toolSeverity: string | null;
    readonly category: string;
    /**
     * Not `cve`/`cwe`: DefectDojo reads a result's `properties.cwe` as one string and its whole
     * SARIF import fails on a list.
     */
    readonly cveIds: readonly string[];
    readonly cweIds: readonly string[];
    readonly engine: string;
    readonly findingId: string;
    /** The finding's issue (GET /api/v1/issues/:issueId), when it has one. */
    readonly issueId?: string;
  };
}

export interface SarifRun {
  readonly tool: {
    readonly driver: {
      readonly name: string;
      readonly version?: string;
      readonly informationUri?: string;
      readonly rules: readonly SarifReportingDescriptor[];
    };
  };
  readonly invocations: readonly [
    { readonly executionSuccessful: boolean; readonly endTimeUtc?: string },
  ];
  readonly automationDetails: { readonly id: string };
  readonly results: readonly SarifResult[];
  readonly properties: {
    readonly scanId: string;
    readonly scanType: string;
    readonly target: string;
    readonly status: string;
    readonly createdAt: string;
    readonly completedAt: string | null;
  };
}

export interface SarifLog {
  readonly $schema: string;
  readonly version: string;
  readonly runs: readonly [SarifRun];
}

/**
 * The SARIF level of a severity (`SARIF_LEVELS`).
 * @example sarifLevel('medium') // 'warning'
 */
export function sarifLevel(severity: Severity): SarifLevel {
  return SARIF_LEVELS[severity];
}

/**
 * Code-point order (the byte order of UTF-8, PostgreSQL's `COLLATE "C"`), so the output depends
 * neither on the locale of the process nor on whether the database or this code sorted it.
 */
function compareStrings(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) {
      return x < y ? -1 : 1;
    }
    if (x > 0xffff) {
      i++;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/**
 * The order of results: most severe first, then rule id, fingerprint and finding id, each in
 * code-point order (what `order by severity_rank, rule_id collate "C", fingerprint collate "C",
 * id` gives).
 */
export function compareSarifResults(a: Finding, b: Finding): number {
  return (
    compareSeverity(a.severity, b.severity) ||
    compareStrings(a.ruleId, b.ruleId) ||
    compareStrings(a.fingerprint, b.fingerprint) ||
    compareStrings(a.id, b.id)
  );
}

/**
 * An http(s) URL in canonical form, or null. Other schemes are refused on purpose: viewers turn
 * these into links, and a `javascript:` URI taken from scanner output must not become one.
 */
function httpUri(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** ISO 8601 UTC as SARIF's date-time properties require, or null when it does not parse. */
function utcDateTime(value: string | null): string | null {
  if (value === null) {
    return null;
  }
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/**
 * The logical-location name of a network finding: `host`, then `:port` when known, then
 * `/protocol` when known (`example.com:443/tcp`); an IPv6 host is bracketed (`[2001:db8::1]:22/tcp`)
 * so the port stays readable.
 * @example networkLocationName('example.com', 443, 'tcp') // 'example.com:443/tcp'
 */
export function networkLocationName(
  host: string,
  port: number | null,
  protocol: string | null,
): string {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const portPart = port === null ? '' : `:${port}`;
  const protocolPart = protocol === null ? '' : `/${protocol}`;
  return `${hostPart}${portPart}${protocolPart}`;
}

/**
 * A network finding as a URI, its physical location: the protocol as the scheme (`tcp` when
 * unknown or not a URI scheme), the host (an IPv6 address bracketed), then `:port` when known.
 * GitHub and DefectDojo want a URI for every result; a service is no file, so this names it.
 * @example networkUri('example.com', 443, 'tcp') // 'tcp://example.com:443'
 */
export function networkUri(host: string, port: number | null, protocol: string | null): string {
  const scheme =
    protocol !== null && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(protocol)
      ? protocol.toLowerCase()
      : 'tcp';
  // A zone id (`fe80::1%eth0`) is left out: RFC 6874 writes it `%25eth0`, which WHATWG URL
  // parsers refuse; the logical location keeps it.
  const hostPart = host.includes(':')
    ? `[${host.split('%')[0]}]`
    : encodeURIComponent(host).toLowerCase();
  return `${scheme}://${hostPart}${port === null ? '' : `:${port}`}`;
}

/**
 * The physical location of a finding that has no place of its own (an image's package, an
 * autonomous system): the scan target, as an http(s) URL or else as a relative reference
 * (`alpine%3A3.18`, the `:` encoded so that no part of it reads as a scheme).
 */
function targetUri(target: string): string {
  return httpUri(target) ?? encodeURIComponent(target).replaceAll('%2F', '/');
}

function physical(uri: string): SarifLocation['physicalLocation'] {
  return { artifactLocation: { uri } };
}

function logicalLocations(name: string): readonly SarifLogicalLocation[] {
  // SARIF's well-known kinds describe code ('function', 'module', …); 'resource' is the nearest
  // for a network endpoint and keeps the file to well-known values.
  return [{ name, fullyQualifiedName: name, kind: 'resource' }];
}

/**
 * Where a finding is, always with a physical location: an http(s) URL as it is; otherwise a host
 * as `networkUri`, with the logical location `host:port/protocol`; otherwise the scan target
 * (`targetUri`), with any other URL (never made a link: a `javascript:` URI taken from scanner
 * output must not become one) as the logical location's name.
 */
function locationsOf(finding: Finding, fallbackUri: string): SarifLocation[] {
  const { host, port, protocol, url } = finding.location;
  const uri = url === null ? null : httpUri(url);
  if (uri !== null) {
    return [{ physicalLocation: physical(uri) }];
  }
  if (host !== null && host !== '') {
    return [
      {
        physicalLocation: physical(networkUri(host, port, protocol)),
        logicalLocations: logicalLocations(networkLocationName(host, port, protocol)),
      },
    ];
  }
  if (url !== null && url !== '') {
    return [{ physicalLocation: physical(fallbackUri), logicalLocations: logicalLocations(url) }];
  }
  return [{ physicalLocation: physical(fallbackUri) }];
}

/** What a rule is made of: these fields of each finding of the rule. */
export type SarifRuleSource = Pick<
  Finding,
  | 'ruleId'
  | 'title'
  | 'severity'
  | 'category'
  | 'engine'
  | 'description'
  | 'remediation'
  | 'references'
  | 'identifiers'
>;

export interface SarifRuleCollector {
  /** Adds findings, which must arrive in result order (`compareSarifResults`). */
  add(findings: Iterable<SarifRuleSource>): void;
  /** The rules so far, sorted by id. */
  rules(): SarifReportingDescriptor[];
}

/** A rule's first (most severe) finding, and the CWE and CVE ids of all its findings. */
interface CollectedRule {
  readonly first: Omit<SarifRuleSource, 'identifiers' | 'ruleId'>;
  readonly cwe: Set<string>;
  readonly cve: Set<string>;
}

/** Markdown's special characters escaped, so scanner text shows as written. */
function markdownText(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~]/g, '\\$&');
}

function help(
  source: CollectedRule['first'],
  references: readonly string[],
): SarifMultiformatMessage {
  const remediation = source.remediation?.trim() ?? '';
  const fix = remediation === '' ? 'The tool gives no remediation for this rule.' : remediation;
  const text = [fix, ...(references.length === 0 ? [] : ['References:', ...references])];
  const markdown = [
    markdownText(fix),
    ...(references.length === 0
      ? []
      : ['**References**', references.map((uri) => `- <${uri}>`).join('\n')]),
  ];
  return { text: text.join('\n'), markdown: markdown.join('\n\n') };
}

function ruleOf(ruleId: string, rule: CollectedRule): SarifReportingDescriptor {
  const { first } = rule;
  const references = first.references.map(httpUri).filter((uri): uri is string => uri !== null);
  const helpUri = references[0];
  const description = first.description?.trim() ?? '';
  const precision = Object.hasOwn(ENGINE_PRECISIONS, first.engine)
    ? (ENGINE_PRECISIONS[first.engine] ?? DEFAULT_PRECISION)
    : DEFAULT_PRECISION;
  return {
    id: ruleId,
    name: first.title,
    shortDescription: { text: first.title },
    fullDescription: { text: description === '' ? first.title : description },
    help: help(first, references),
    ...(helpUri === undefined ? {} : { helpUri }),
    defaultConfiguration: { level: sarifLevel(first.severity) },
    properties: {
      severity: first.severity,
      'security-severity': SECURITY_SEVERITY_SCORES[first.severity],
      precision,
      tags: [
        'security',
        ...(first.category === '' || first.category === 'security' ? [] : [first.category]),
        ...[...rule.cwe].sort(compareStrings),
        ...[...rule.cve].sort(compareStrings),
      ],
    },
  };
}

/**
 * Collects the rules from findings in result order, keeping per rule only its first finding and
 * the CWE and CVE ids seen: memory grows with the rules, not with the findings.
 *
 * A rule is described by its first finding in result order, its most severe: name and short
 * description (the title), full description (the description, else the title), help (the
 * remediation and the http(s) references, as text and markdown), `helpUri` (the first
 * reference), `defaultConfiguration.level`, and the properties `severity`, `security-severity`
 * (`SECURITY_SEVERITY_SCORES`) and `precision` (`ENGINE_PRECISIONS`, by the finding's engine);
 * `tags` are `security`, the category, then every CWE and CVE id seen with the rule, each group
 * sorted.
 *
 * A rule whose findings have several severities takes the highest, rather than being split into
 * one rule id per severity: the rule id stays the finding's `ruleId` (as in JSON and CSV), and
 * GitHub, which tracks an alert by rule id and fingerprint, keeps the same alert when a rescan
 * rates a finding differently. The cost: GitHub and DefectDojo rate every result of such a rule
 * at the rule's severity; each result keeps its own `level` and `properties.severity`.
 */
export function createSarifRuleCollector(): SarifRuleCollector {
  const byRule = new Map<string, CollectedRule>();
  return {
    add(findings) {
      for (const finding of findings) {
        let rule = byRule.get(finding.ruleId);
        if (rule === undefined) {
          rule = {
            first: {
              title: finding.title,
              severity: finding.severity,
              category: finding.category,
              engine: finding.engine,
              description: finding.description,
              remediation: finding.remediation,
              references: finding.references,
            },
            cwe: new Set(),
            cve: new Set(),
          };
          byRule.set(finding.ruleId, rule);
        }
        for (const id of finding.identifiers.cwe) {
          rule.cwe.add(id);
        }
        for (const id of finding.identifiers.cve) {
          rule.cve.add(id);
        }
      }
    },
    rules() {
      return [...byRule.entries()]
        .sort(([a], [b]) => compareStrings(a, b))
        .map(([ruleId, rule]) => ruleOf(ruleId, rule));
    },
  };
}

function buildRules(sorted: readonly Finding[]): SarifReportingDescriptor[] {
  const collector = createSarifRuleCollector();
  collector.add(sorted);
  return collector.rules();
}

/**
 * What a finding's issue adds to its result: `baselineState` (the finding's, against its issue
 * before its scan; SARIF's `absent` is never written, a fixed issue has no finding in the scan)
 * and `suppressions`: one `external`, `accepted` suppression for an issue triaged
 * false_positive, accepted_risk or out_of_scope (the reason as its justification), else an empty
 * list, which SARIF reads as "known not suppressed". SARIF wants both on every result of a run or
 * on none: a scan's findings either all have issues (a scan that feeds issues) or none do.
 */
function issueParts(issue: FindingIssue): Pick<SarifResult, 'baselineState' | 'suppressions'> {
  const { triage } = issue;
  if (triage.state === 'none') {
    return { baselineState: issue.baselineState, suppressions: [] };
  }
  const expiresAt = triage.expiresAt === null ? null : triage.expiresAt.toISOString();
  return {
    baselineState: issue.baselineState,
    suppressions: [
      {
        kind: 'external',
        status: 'accepted',
        ...(triage.reason === null ? {} : { justification: triage.reason }),
        properties: {
          triage: triage.state,
          ...(expiresAt === null ? {} : { expiresAt }),
        },
      },
    ],
  };
}

function buildResult(finding: Finding, ruleIndex: number, fallbackUri: string): SarifResult {
  const description = finding.description?.trim() ?? '';
  return {
    ruleId: finding.ruleId,
    ruleIndex,
    level: sarifLevel(finding.severity),
    message: {
      text: description === '' ? finding.title : `${finding.title}\n\n${description}`,
    },
    locations: locationsOf(finding, fallbackUri),
    partialFingerprints: { [SARIF_FINGERPRINT_KEY]: finding.fingerprint },
    ...(finding.issue === null ? {} : issueParts(finding.issue)),
    properties: {
      severity: finding.severity,
      toolSeverity: finding.toolSeverity,
      category: finding.category,
      cveIds: finding.identifiers.cve,
      cweIds: finding.identifiers.cwe,
      engine: finding.engine,
      findingId: finding.id,
      ...(finding.issue === null ? {} : { issueId: finding.issue.id }),
    },
  };
}

/**
 * The SARIF log as an object (what `renderSarif` serializes), for callers that embed or inspect
 * it. Results are ordered most severe first, then by rule id, fingerprint and finding id; rules
 * by rule id; `ruleIndex` points into `tool.driver.rules`. `version` is omitted when the tool
 * version is unknown, `informationUri` when neither given nor known for the tool, and
 * `endTimeUtc` when the scan has no (parseable) completion time.
 */
export function buildSarifLog(input: RenderSarifInput): SarifLog {
  const sorted = [...input.findings].sort(compareSarifResults);
  const rules = buildRules(sorted);
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  // `?? -1` (SARIF's "no index") is unreachable: every rule id got a rule above.
  return sarifLogAround(
    input,
    rules,
    sorted.map((finding) =>
      buildResult(finding, ruleIndex.get(finding.ruleId) ?? -1, targetUri(input.scan.target)),
    ),
  );
}

/** The log with the given rules and results (in that order), everything else from `input`. */
function sarifLogAround(
  input: Omit<RenderSarifInput, 'findings'>,
  rules: readonly SarifReportingDescriptor[],
  results: readonly SarifResult[],
): SarifLog {
  const { scan } = input;
  // `hasOwn`: a tool named `constructor` must not pick up Object.prototype members.
  const knownUri = Object.hasOwn(ENGINE_INFORMATION_URIS, input.toolName)
    ? ENGINE_INFORMATION_URIS[input.toolName]
    : undefined;
  const givenUri = input.informationUri ?? knownUri;
  const informationUri = givenUri === undefined ? null : httpUri(givenUri);
  const version = input.toolVersion?.trim() ?? '';
  const endTimeUtc = utcDateTime(scan.completedAt);
  return {
    $schema: SARIF_SCHEMA_URI,
    version: SARIF_VERSION,
    runs: [
      {
        tool: {
          driver: {
            name: input.toolName,
            ...(version === '' ? {} : { version }),
            ...(informationUri === null ? {} : { informationUri }),
            rules,
          },
        },
        invocations: [
          {
            executionSuccessful: scan.status === 'completed',
            ...(endTimeUtc === null ? {} : { endTimeUtc }),
          },
        ],
        // SARIF reads the part after the last `/` as the run instance, the rest as its category:
        // `<scanType>/<target>`, so GitHub code scanning keeps one analysis per engine and target
        // (a rescan replaces the last one; another target's stays).
        automationDetails: { id: `${scan.scanType}/${scan.target}/${scan.id}` },
        results,
        properties: {
          scanId: scan.id,
          scanType: scan.scanType,
          target: scan.target,
          status: scan.status,
          createdAt: scan.createdAt,
          completedAt: scan.completedAt,
        },
      },
    ],
  };
}

/**
 * Renders scan results as a SARIF 2.1.0 log: JSON indented by two spaces, ending in a newline.
 * See the module comment and `buildSarifLog` for the mapping; the output is deterministic (the
 * order of `findings` does not matter).
 * @example JSON.parse(renderSarif(input)).version // '2.1.0'
 */
export function renderSarif(input: RenderSarifInput): string {
  return `${JSON.stringify(buildSarifLog(input), null, 2)}\n`;
}

/**
 * `runs[0].results` sits four levels deep in the log (`{` → `runs` → `{` → `results`), so its
 * items are indented by eight spaces. Four nested arrays put them at the same depth:
 * `JSON.stringify([[[[r1, r2]]]], null, 2)` is `WRAP_OPEN` + the items, each after
 * `\n` + eight spaces and separated by commas, + `WRAP_CLOSE`, with every line indented as in
 * the log, in one pass and without re-indenting each result's text.
 */
const WRAP_OPEN = '[\n  [\n    [\n      [';
const WRAP_CLOSE = '\n      ]\n    ]\n  ]\n]';
const EMPTY_RESULTS = '"results": []';
export interface SarifWriter {
  /** Everything before the first result. */
  readonly head: string;
  /** The text of these results (the next ones in result order), separators included. */
  results(findings: readonly Finding[]): string;
  /** Everything after the last result. */
  end(): string;
}

/**
 * Writes the log piece by piece: `head`, then `results(page)` for each page of findings in result
 * order, then `end()`. The pieces joined are exactly `renderSarif` of all the findings, given the
 * rules a `createSarifRuleCollector` collected from the same findings.
 */
export function createSarifWriter(
  input: Omit<RenderSarifInput, 'findings'>,
  rules: readonly SarifReportingDescriptor[],
): SarifWriter {
  const whole = `${JSON.stringify(sarifLogAround(input, rules, []), null, 2)}\n`;
  // Inside a JSON string every `"` is escaped, so `"results": []` only matches the key itself.
  const at = whole.indexOf(EMPTY_RESULTS);
  const head = whole.slice(0, at + EMPTY_RESULTS.length - 1);
  const tail = whole.slice(at + EMPTY_RESULTS.length - 1);
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  const fallbackUri = targetUri(input.scan.target);
  let written = 0;
  return {
    head,
    results(findings) {
      if (findings.length === 0) {
        return '';
      }
      const results = findings.map((finding) =>
        buildResult(finding, ruleIndex.get(finding.ruleId) ?? -1, fallbackUri),
      );
      const json = JSON.stringify([[[results]]], null, 2);
      const items = json.slice(WRAP_OPEN.length, json.length - WRAP_CLOSE.length);
      const text = written === 0 ? items : `,${items}`;
      written += findings.length;
      return text;
    },
    end() {
      return written === 0 ? tail : `\n      ${tail}`;
    },
  };
}
