/**
 * The `?format=defectdojo` rendering of scan results: a JSON file in DefectDojo's "Generic
 * Findings Import" format, `{ "findings": [ … ] }`, for `POST /api/v2/import-scan/` with
 * `scan_type=Generic Findings Import` (or the same scan type in DefectDojo's UI).
 *
 * DefectDojo refuses the whole file when one finding has a key outside its vocabulary, so every
 * key written here is one of `DEFECTDOJO_FINDING_KEYS` (the type below only allows those).
 * DefectDojo de-duplicates this scan type by a hash of title, cwe, line, file_path and description
 * (its legacy hash fields), so the description is built only from what identifies the finding
 * (engine, rule, category, normalized location, CWE and CVE ids, fingerprint): nothing that
 * changes between two scans of the same target. The tool's own text, which may change (a DBMS a
 * payload revealed, an OS-guess accuracy), goes to `impact`, which DefectDojo never hashes.
 */
import type { Finding, Severity } from './finding.js';
import { normalizeLocation } from './fingerprint.js';

/**
 * Every key DefectDojo's Generic Findings Import JSON parser accepts on a finding: the `required`
 * and `allowed` sets of `dojo/tools/generic/json_parser.py`, plus the keys it takes out of the
 * finding before that check (`endpoints`, `files`, `tags`, `vulnerability_ids`, `cwes`).
 * Source: github.com/DefectDojo/django-DefectDojo, dojo/tools/generic/json_parser.py at commit
 * 03609eb7c1b9c194f0cf220c1ee1c4cd14c0a4b1 (dev branch, 2026). Rampart writes a subset that has
 * been accepted for years (`DefectDojoFinding`); the list is kept whole so it can be compared with
 * the source.
 */
export const DEFECTDOJO_FINDING_KEYS = [
  // required
  'title',
  'severity',
  'description',
  // allowed
  'date',
  'cwe',
  'cve',
  'epss_score',
  'epss_percentile',
  'cvssv3',
  'cvssv3_score',
  'cvssv4',
  'cvssv4_score',
  'mitigation',
  'impact',
  'steps_to_reproduce',
  'severity_justification',
  'references',
  'active',
  'verified',
  'false_p',
  'out_of_scope',
  'risk_accepted',
  'under_review',
  'is_mitigated',
  'thread_id',
  'mitigated',
  'numerical_severity',
  'param',
  'payload',
  'line',
  'file_path',
  'component_name',
  'component_version',
  'static_finding',
  'dynamic_finding',
  'scanner_confidence',
  'unique_id_from_tool',
  'vuln_id_from_tool',
  'sast_source_object',
  'sast_sink_object',
  'sast_source_line',
  'sast_source_file_path',
  'nb_occurences',
  'publish_date',
  'service',
  'planned_remediation_date',
  'planned_remediation_version',
  'effort_for_fixing',
  'tags',
  'kev_date',
  'known_exploited',
  'ransomware_used',
  'fix_available',
  'fix_version',
  // taken out of the finding before the check
  'endpoints',
  'files',
  'vulnerability_ids',
  'cwes',
] as const;

export type DefectDojoFindingKey = (typeof DEFECTDOJO_FINDING_KEYS)[number];

/** The keys the same parser reads at the top level of the file (`_get_test_json`). */
export const DEFECTDOJO_FILE_KEYS = [
  'name',
  'type',
  'version',
  'description',
  'dynamic_tool',
  'static_tool',
  'soc',
  'findings',
] as const;

/** DefectDojo's severity words (Finding.SEVERITIES), ours in the same order. */
export const DEFECTDOJO_SEVERITIES: Readonly<Record<Severity, string>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
};

// Lengths of DefectDojo's Finding columns (dojo/models.py): a longer value fails the import.
const MAX_TITLE = 511;
const MAX_TOOL_ID = 500;

/** `T` when every key of it is in the vocabulary, else `never` (a compile-time check). */
type InVocabulary<T> = [Exclude<keyof T, DefectDojoFindingKey>] extends [never] ? T : never;

/** What Rampart writes for one finding: only keys of the vocabulary, checked by the compiler. */
export type DefectDojoFinding = InVocabulary<{
  readonly title: string;
  readonly severity: string;
  readonly description: string;
  readonly unique_id_from_tool: string;
  readonly vuln_id_from_tool: string;
  readonly static_finding: boolean;
  readonly dynamic_finding: boolean;
  readonly cwe?: number;
  readonly vulnerability_ids?: readonly string[];
  readonly endpoints?: readonly string[];
  readonly mitigation?: string;
  readonly impact?: string;
  readonly references?: string;
  readonly active?: boolean;
  readonly false_p?: boolean;
  readonly risk_accepted?: boolean;
  readonly out_of_scope?: boolean;
}>;

/**
 * A triaged finding's status in DefectDojo's words (issue 23): the triage's own flag, and
 * `active: false`, as DefectDojo itself leaves a finding it marks false positive, out of scope or
 * risk accepted. Nothing for an untriaged finding (DefectDojo's defaults: active, none of them).
 */
function triageFlags(
  finding: Finding,
): Pick<DefectDojoFinding, 'active' | 'false_p' | 'risk_accepted' | 'out_of_scope'> {
  switch (finding.issue?.triage.state) {
    case 'false_positive':
      return { active: false, false_p: true };
    case 'accepted_risk':
      return { active: false, risk_accepted: true };
    case 'out_of_scope':
      return { active: false, out_of_scope: true };
    default:
      return {};
  }
}

// Engines whose findings come from reading artifacts (images, file systems, IaC), not from
// talking to a running target.
const STATIC_ENGINES = new Set(['trivy']);

/** At most `max` UTF-16 code units, without splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

/** `CWE-89` → 89; null for anything else. */
function cweNumber(id: string): number | null {
  const match = /^CWE-(\d{1,9})$/i.exec(id.trim());
  return match === null ? null : Number(match[1]);
}

/** A host as it goes into a URL authority: IPv6 literals in brackets. */
function authorityHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Where the finding is, as one DefectDojo endpoint string (its parser turns a string with `://`
 * into an endpoint by its URL parser, and prefixes `//` to one without): the URL when there is
 * one, else `protocol://host:port` (`tcp://10.0.0.5:22`), `host:port` or the host alone. Null when
 * the finding has no host (a package in an image). From the normalized location, so the same
 * place is written the same way on every scan.
 */
export function defectDojoEndpoint(finding: Finding): string | null {
  const location = normalizeLocation(finding.location);
  if (location.url !== null) {
    return location.url;
  }
  if (location.host === null) {
    return null;
  }
  const host = authorityHost(location.host);
  const withPort = location.port === null ? host : `${host}:${location.port}`;
  return location.protocol === null || location.port === null
    ? withPort
    : `${location.protocol}://${withPort}`;
}

/** Sorted, each once: the same set is written the same way whatever order a scan found it in. */
function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/**
 * The description DefectDojo hashes: only what identifies the finding, so two scans of the same
 * target give the same text, and two findings Rampart tells apart (by fingerprint) never share
 * DefectDojo's hash. Markdown (DefectDojo renders it), one fact a line.
 */
export function defectDojoDescription(finding: Finding): string {
  const endpoint = defectDojoEndpoint(finding);
  const cwes = sortedUnique(finding.identifiers.cwe);
  const cves = sortedUnique(finding.identifiers.cve);
  return [
    `- Engine: ${finding.engine}`,
    `- Rule: ${finding.ruleId}`,
    `- Category: ${finding.category}`,
    ...(endpoint === null ? [] : [`- Location: ${endpoint}`]),
    ...(cwes.length === 0 ? [] : [`- CWE: ${cwes.join(', ')}`]),
    ...(cves.length === 0 ? [] : [`- CVE: ${cves.join(', ')}`]),
    `- Rampart fingerprint: ${finding.fingerprint}`,
  ].join('\n');
}

function present(text: string | null): text is string {
  return text !== null && text.trim() !== '';
}

/**
 * One finding in DefectDojo's Generic Findings Import vocabulary:
 * - `title` (cut to DefectDojo's 511 characters), `severity` as Critical|High|Medium|Low|Info;
 * - `description` from `defectDojoDescription` (no per-run data);
 * - `unique_id_from_tool` = the fingerprint, `vuln_id_from_tool` = the rule id;
 * - `cwe` = the first CWE id as an integer, `vulnerability_ids` = the CVE ids;
 * - `endpoints` = `[defectDojoEndpoint]` when there is a host;
 * - `mitigation` = the remediation, `impact` = the tool's own description, `references` one a
 *   line; each left out when empty;
 * - `static_finding` for trivy (artifacts), `dynamic_finding` for every other engine;
 * - a triaged finding: `active: false` and `false_p`, `risk_accepted` or `out_of_scope` true
 *   (`triageFlags`).
 * No `date`: DefectDojo takes the import's scan date, and no per-run value is written.
 */
export function toDefectDojoFinding(finding: Finding): DefectDojoFinding {
  const cwe = finding.identifiers.cwe.map(cweNumber).find((value) => value !== null);
  const endpoint = defectDojoEndpoint(finding);
  const isStatic = STATIC_ENGINES.has(finding.engine);
  return {
    title: cut(finding.title, MAX_TITLE),
    severity: DEFECTDOJO_SEVERITIES[finding.severity],
    description: defectDojoDescription(finding),
    unique_id_from_tool: finding.fingerprint,
    vuln_id_from_tool: cut(finding.ruleId, MAX_TOOL_ID),
    static_finding: isStatic,
    dynamic_finding: !isStatic,
    ...(cwe === undefined ? {} : { cwe }),
    ...(finding.identifiers.cve.length === 0
      ? {}
      : { vulnerability_ids: [...finding.identifiers.cve] }),
    ...(endpoint === null ? {} : { endpoints: [endpoint] }),
    ...(present(finding.remediation) ? { mitigation: finding.remediation } : {}),
    ...(present(finding.description) ? { impact: finding.description } : {}),
    ...(finding.references.length === 0 ? {} : { references: finding.references.join('\n') }),
    ...triageFlags(finding),
  };
}

/** The text before the first finding of a file. */
export const DEFECTDOJO_HEAD = '{"findings":[';
/** The text after the last finding. */
export const DEFECTDOJO_TAIL = ']}\n';

/**
 * A writer of one file, for findings given a page at a time: `head`, then `findings(page)` for
 * each page, then `end()`; the bytes are those of `renderDefectDojo` of every finding in order.
 */
export interface DefectDojoWriter {
  readonly head: string;
  findings(page: readonly Finding[]): string;
  end(): string;
}

export function createDefectDojoWriter(): DefectDojoWriter {
  let written = 0;
  return {
    head: DEFECTDOJO_HEAD,
    findings(page) {
      if (page.length === 0) {
        return '';
      }
      const text = page.map((finding) => `\n${JSON.stringify(toDefectDojoFinding(finding))}`);
      const joined = text.join(',');
      const out = written === 0 ? joined : `,${joined}`;
      written += page.length;
      return out;
    },
    end() {
      return written === 0 ? DEFECTDOJO_TAIL : `\n${DEFECTDOJO_TAIL}`;
    },
  };
}

/**
 * The whole file at once: `{"findings":[` then one finding a line, then `]}`. An empty list gives
 * `{"findings":[]}`.
 * @example JSON.parse(renderDefectDojo([])) // { findings: [] }
 */
export function renderDefectDojo(findings: readonly Finding[]): string {
  const writer = createDefectDojoWriter();
  return writer.head + writer.findings(findings) + writer.end();
}
