/**
 * The `?format=sarif` rendering of scan results: a SARIF 2.1.0 log (OASIS Static Analysis Results
 * Interchange Format) with one run, so results can be loaded into SARIF viewers and security
 * dashboards. Pure and deterministic: the same input gives the same bytes.
 *
 * Mapping, for readers of the file:
 * - `tool.driver`: the engine (name, version when known, information URI when known) and one
 *   rule (reportingDescriptor) per distinct `ruleId`, sorted by id;
 * - one result per finding, most severe first (then by rule id, fingerprint and finding id);
 * - `level` from the severity (see `SARIF_LEVELS`);
 * - locations: an http(s) URL becomes a physical location (`artifactLocation.uri`); a host,
 *   port and protocol become a logical location named `host:port/protocol` (see
 *   `networkLocationName`), since a network service is no file;
 * - `partialFingerprints["rampart/v1"]` carries the Rampart fingerprint, so viewers track the
 *   same issue across scans;
 * - `invocations[0].executionSuccessful` is true only for a completed scan, and the run's
 *   property bag holds the scan id, type, target, status and times.
 *
 * For exports too large to hold, `createSarifRuleCollector` and `createSarifWriter` produce the
 * same bytes from findings read in result order (`compareSarifResults`) one page at a time: a
 * first pass collects the rules (memory grows with distinct rule ids, not findings), a second
 * writes the results.
 */
import type { Finding, Severity } from './finding.js';
import { compareSeverity } from './severity-order.js';

export const SARIF_VERSION = '2.1.0';
export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
/** Key of the Rampart fingerprint in `result.partialFingerprints`. */
export const SARIF_FINGERPRINT_KEY = 'rampart/v1';

export type SarifLevel = 'error' | 'warning' | 'note' | 'none';

/**
 * Severity → SARIF `level`. SARIF has four levels for five severities: critical and high are
 * both `error` (the finding's own `severity` property keeps them apart), medium is `warning`,
 * low is `note`, and info is `none` (an observation such as an open port, not a defect).
 */
export const SARIF_LEVELS: Readonly<Record<Severity, SarifLevel>> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'none',
};

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

export interface SarifReportingDescriptor {
  readonly id: string;
  readonly name: string;
  readonly shortDescription: SarifMessage;
  readonly helpUri?: string;
  readonly properties: { readonly tags: readonly string[] };
}

export interface SarifLogicalLocation {
  readonly name: string;
  readonly fullyQualifiedName: string;
  readonly kind: string;
}

export interface SarifLocation {
  readonly physicalLocation?: { readonly artifactLocation: { readonly uri: string } };
  readonly logicalLocations?: readonly SarifLogicalLocation[];
}

export interface SarifResult {
  readonly ruleId: string;
  readonly ruleIndex: number;
  readonly level: SarifLevel;
  readonly message: SarifMessage;
  readonly locations: readonly SarifLocation[];
  readonly partialFingerprints: Readonly<Record<string, string>>;
  readonly properties: {
    readonly severity: Severity;
    readonly toolSeverity: string | null;
    readonly category: string;
    readonly cve: readonly string[];
    readonly cwe: readonly string[];
    readonly engine: string;
    readonly findingId: string;
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

function logicalLocation(name: string): SarifLocation {
  // SARIF's well-known kinds describe code ('function', 'module', …); 'resource' is the nearest
  // for a network endpoint and keeps the file to well-known values.
  return { logicalLocations: [{ name, fullyQualifiedName: name, kind: 'resource' }] };
}

/**
 * Where a finding is: an http(s) URL → physical location; otherwise a host → logical location
 * `host:port/protocol`; otherwise any other URL → logical location named by the URL; otherwise
 * no location.
 */
function locationsOf(finding: Finding): SarifLocation[] {
  const { host, port, protocol, url } = finding.location;
  const uri = url === null ? null : httpUri(url);
  if (uri !== null) {
    return [{ physicalLocation: { artifactLocation: { uri } } }];
  }
  if (host !== null && host !== '') {
    return [logicalLocation(networkLocationName(host, port, protocol))];
  }
  if (url !== null && url !== '') {
    return [logicalLocation(url)];
  }
  return [];
}

/**
 * One rule per rule id. Name, short description and help URI come from the most severe finding
 * of the rule (the first in result order); tags are `security` plus every CWE and CVE id seen
 * with the rule, each group sorted.
 */
/** What a rule is made of: these fields of each finding of the rule. */
export type SarifRuleSource = Pick<Finding, 'ruleId' | 'title' | 'references' | 'identifiers'>;

export interface SarifRuleCollector {
  /** Adds findings, which must arrive in result order (`compareSarifResults`). */
  add(findings: Iterable<SarifRuleSource>): void;
  /** The rules so far, sorted by id. */
  rules(): SarifReportingDescriptor[];
}

/**
 * Collects the rules from findings in result order, keeping per rule only its first (most severe)
 * finding's title and references and the CWE and CVE ids seen: memory grows with the rules, not
 * with the findings.
 */
export function createSarifRuleCollector(): SarifRuleCollector {
  const byRule = new Map<
    string,
    { title: string; references: readonly string[]; cwe: Set<string>; cve: Set<string> }
  >();
  return {
    add(findings) {
      for (const finding of findings) {
        let rule = byRule.get(finding.ruleId);
        if (rule === undefined) {
          rule = {
            title: finding.title,
            references: finding.references,
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
      return [...byRule.keys()].sort(compareStrings).map((ruleId) => {
        const rule = byRule.get(ruleId);
        const title = rule?.title ?? ruleId;
        const helpUri = (rule?.references ?? [])
          .map(httpUri)
          .find((uri): uri is string => uri !== null);
        return {
          id: ruleId,
          name: title,
          shortDescription: { text: title },
          ...(helpUri === undefined ? {} : { helpUri }),
          properties: {
            tags: [
              'security',
              ...[...(rule?.cwe ?? [])].sort(compareStrings),
              ...[...(rule?.cve ?? [])].sort(compareStrings),
            ],
          },
        };
      });
    },
  };
}

function buildRules(sorted: readonly Finding[]): SarifReportingDescriptor[] {
  const collector = createSarifRuleCollector();
  collector.add(sorted);
  return collector.rules();
}

function buildResult(finding: Finding, ruleIndex: number): SarifResult {
  const description = finding.description?.trim() ?? '';
  return {
    ruleId: finding.ruleId,
    ruleIndex,
    level: sarifLevel(finding.severity),
    message: {
      text: description === '' ? finding.title : `${finding.title}\n\n${description}`,
    },
    locations: locationsOf(finding),
    partialFingerprints: { [SARIF_FINGERPRINT_KEY]: finding.fingerprint },
    properties: {
      severity: finding.severity,
      toolSeverity: finding.toolSeverity,
      category: finding.category,
      cve: finding.identifiers.cve,
      cwe: finding.identifiers.cwe,
      engine: finding.engine,
      findingId: finding.id,
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
    sorted.map((finding) => buildResult(finding, ruleIndex.get(finding.ruleId) ?? -1)),
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
        // SARIF reads the part after the last `/` as the run instance, the rest as its category.
        automationDetails: { id: `${scan.scanType}/${scan.id}` },
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
  let written = 0;
  return {
    head,
    results(findings) {
      if (findings.length === 0) {
        return '';
      }
      const results = findings.map((finding) =>
        buildResult(finding, ruleIndex.get(finding.ruleId) ?? -1),
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
