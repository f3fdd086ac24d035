/**
 * One trivy record (a vulnerability, a misconfiguration, a secret, a license) to a draft finding.
 * Pure; `record-walker.ts` finds the records in the report and says where each one sits.
 *
 * Identity (`ruleId`; the location is the same for every finding of one scan): trivy's own id
 * first, then what tells two occurrences of it apart on a rescan, never line numbers, scores,
 * layers or dates, which move when nothing about the issue changed:
 * - vulnerability: id, package@installed version, result target (+ Kubernetes resource);
 * - misconfiguration: check id, target (+ resource), the cause's IaC resource and trivy's message
 *   (which names the container or statement, so one check failing twice in a file is two issues);
 * - secret: rule id, target (+ resource), and the matched line as trivy masked it;
 * - license: license name, package or file, target (+ resource).
 */
import type { DraftFinding, FindingLocation, Severity } from '../../domain/findings/finding.js';

/** A JSON object read from the report; nothing about its fields is trusted. */
export type JsonNode = Readonly<Record<string, unknown>>;

/** The record lists a result can hold, by their key in trivy's JSON. */
export const RECORD_KINDS = [
  'Vulnerabilities',
  'Misconfigurations',
  'Secrets',
  'Licenses',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** Where a record sits. */
export interface RecordPlace {
  /** The result's `Target`: `requirements.txt`, `alpine:3.19 (alpine 3.19.1)`, `Node.js`. */
  readonly target: string | null;
  /** The result's `Class` (`os-pkgs`, `lang-pkgs`, `config`, `secret`, `license`) and `Type`. */
  readonly resultClass: string | null;
  readonly resultType: string | null;
  /** `Namespace/Kind/Name` of a Kubernetes resource, null outside cluster reports. */
  readonly resource: string | null;
  /** The finding location: the same for every finding of one scan (see parse.ts). */
  readonly location: FindingLocation;
}

/** Why a record gave no finding; `parse.ts` counts these into warnings. */
export type SkipReason = 'no-id' | 'not-affected' | 'not-failed';

export type RecordOutcome =
  | { readonly finding: DraftFinding; readonly skipped?: undefined }
  | { readonly finding?: undefined; readonly skipped: SkipReason };

/** trivy's severity names to the common scale: one to one, UNKNOWN → info (FORMATS.md). */
export const TRIVY_SEVERITY: Readonly<Record<string, Severity>> = {
  CRITICAL: 'critical',
  HIGH: 'high',
  MEDIUM: 'medium',
  LOW: 'low',
  UNKNOWN: 'info',
};

/** `VendorSeverity` numbers (0 unknown, 1 low … 4 critical) for records without `Severity`. */
const VENDOR_SEVERITY: readonly Severity[] = ['info', 'low', 'medium', 'high', 'critical'];

/** Longest text kept for descriptions; trivy's are a paragraph, a hostile report could hold MBs. */
const MAX_TEXT = 4000;
/** Longest value kept in titles, evidence lines, ids and `raw`. */
const MAX_FIELD = 300;
/** Longest masked match that enters a secret's identity. */
const MAX_MATCH_IN_ID = 200;
const MAX_REFERENCES = 50;
/** Package paths listed for one vulnerability found in several copies of a package. */
export const MAX_PACKAGE_PATHS = 20;

/** A run of trivy's mask characters in a secret's `Match`. */
const MASKED_RUN = /\*{3,}/g;
const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;
const CWE_ID = /^CWE-(\d{1,6})$/i;
const WEB_LINK = /^https?:\/\/\S+$/i;

export function isNode(value: unknown): value is JsonNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `text` cut to `max` characters, marked with `…` when cut. */
export function capped(text: string, max: number = MAX_FIELD): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A non-blank string, trimmed and capped; anything else is null. */
export function text(value: unknown, max: number = MAX_FIELD): string | null {
  return typeof value === 'string' && value.trim() !== '' ? capped(value.trim(), max) : null;
}

function integer(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

/** The common severity of a trivy `Severity` value; missing or unknown values are never guessed up. */
export function severityFromTrivy(value: unknown): Severity {
  return typeof value === 'string'
    ? (TRIVY_SEVERITY[value.trim().toUpperCase()] ?? 'info')
    : 'info';
}

/**
 * A vulnerability's severity: `Severity` when trivy wrote a known one, else (very old or
 * hand-made reports) the vendor rating of `SeveritySource`, else info.
 */
function vulnerabilitySeverity(record: JsonNode): Severity {
  const given = text(record.Severity)?.toUpperCase();
  if (given !== undefined && given in TRIVY_SEVERITY) {
    return severityFromTrivy(given);
  }
  const vendors = isNode(record.VendorSeverity) ? record.VendorSeverity : {};
  const source = text(record.SeveritySource);
  const rating = source === null ? null : integer(vendors[source]);
  return rating === null ? 'info' : (VENDOR_SEVERITY[rating] ?? 'info');
}

/** `CWE-416` ids, upper case, de-duplicated; `NVD-CWE-Other`/`NVD-CWE-noinfo` are not ids. */
function cweIds(value: unknown): string[] {
  const ids = list(value)
    .map((item) => (typeof item === 'string' ? CWE_ID.exec(item.trim()) : null))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => `CWE-${match[1]}`);
  return [...new Set(ids)];
}

/** The primary link first, then the references: web links only, each once, at most 50. */
function links(primary: unknown, references: unknown): string[] {
  const all = [primary, ...list(references)]
    .map((link) => text(link, 2000))
    .filter((link): link is string => link !== null && WEB_LINK.test(link));
  return [...new Set(all)].slice(0, MAX_REFERENCES);
}

/** The rule id: named parts joined with `|`; an absent part stays an empty slot. */
function identity(parts: ReadonlyArray<string | null>): string {
  return parts.map((part) => part ?? '').join('|');
}

/** The resource slot exists only in cluster reports, so image and repository ids stay short. */
function withResource(parts: ReadonlyArray<string | null>, place: RecordPlace): string[] {
  return [...parts.map((part) => part ?? ''), ...(place.resource === null ? [] : [place.resource])];
}

/** Where a record sits, in words: `requirements.txt` or `coredns in kube-system/Deployment/coredns`. */
function describePlace(place: RecordPlace): string {
  const target = place.target ?? 'the scanned artifact';
  return place.resource === null ? target : `${target} in ${place.resource}`;
}

function placeEvidence(place: RecordPlace): string[] {
  return [
    `target: ${place.target ?? '(none)'}${place.resultType === null ? '' : ` (${place.resultType})`}`,
    ...(place.resource === null ? [] : [`resource: ${place.resource}`]),
  ];
}

function lines(start: number | null, end: number | null): string | null {
  if (start === null) {
    return null;
  }
  return end === null || end === start ? `${start}` : `${start}-${end}`;
}

/** `Upgrade <pkg> to <version>`; several fixed versions (one per release line) are all named. */
function upgradeAdvice(pkg: string, fixed: string | null): string | null {
  if (fixed === null) {
    return null;
  }
  return fixed.includes(',') ? `Upgrade ${pkg} to one of: ${fixed}` : `Upgrade ${pkg} to ${fixed}`;
}

/** The CVSS entry of the severity's source (else the first) as `cvss (nvd): 7.5 CVSS:3.1/…`. */
function cvssLine(record: JsonNode): string | null {
  const cvss = isNode(record.CVSS) ? record.CVSS : {};
  const source = text(record.SeveritySource);
  const key = source !== null && isNode(cvss[source]) ? source : Object.keys(cvss)[0];
  const entry = key === undefined ? undefined : cvss[key];
  if (!isNode(entry)) {
    return null;
  }
  const score = entry.V3Score ?? entry.V2Score;
  const vector = text(entry.V3Vector) ?? text(entry.V2Vector);
  const shown = typeof score === 'number' ? String(score) : '?';
  return `cvss (${capped(key ?? '', 40)}): ${shown}${vector === null ? '' : ` ${vector}`}`;
}

function vulnerability(record: JsonNode, place: RecordPlace): RecordOutcome {
  const id = text(record.VulnerabilityID);
  if (id === null) {
    return { skipped: 'no-id' };
  }
  const status = text(record.Status);
  if (status === 'not_affected') {
    return { skipped: 'not-affected' };
  }
  const pkg = text(record.PkgName) ?? 'unknown package';
  const version = text(record.InstalledVersion);
  const fixed = text(record.FixedVersion);
  const pkgPath = text(record.PkgPath);
  const layer = isNode(record.Layer) ? text(record.Layer.DiffID) : null;
  const cvss = cvssLine(record);
  const title = text(record.Title);
  const packageText = `${pkg}${version === null ? '' : ` ${version}`}`;
  return {
    finding: {
      ruleId: identity(withResource([id, `${pkg}@${version ?? ''}`, place.target], place)),
      title: `${id} in ${packageText}${title === null ? '' : `: ${title}`}`,
      severity: vulnerabilitySeverity(record),
      toolSeverity: text(record.Severity),
      category: 'vulnerability',
      location: place.location,
      identifiers: { cve: CVE_ID.test(id) ? [id.toUpperCase()] : [], cwe: cweIds(record.CweIDs) },
      description: text(record.Description, MAX_TEXT),
      evidence: [
        `package: ${packageText} (${describePlace(place)})`,
        `fixed version: ${fixed ?? 'none available'}`,
        ...(status === null ? [] : [`status: ${status}`]),
        ...(pkgPath === null ? [] : [`path: ${pkgPath}`]),
        ...(layer === null ? [] : [`layer: ${layer}`]),
        ...(cvss === null ? [] : [cvss]),
        ...placeEvidence(place),
      ].join('\n'),
      remediation: upgradeAdvice(pkg, fixed),
      references: links(record.PrimaryURL, record.References),
      raw: {
        kind: 'vulnerability',
        id,
        pkgName: pkg,
        installedVersion: version,
        fixedVersion: fixed,
        status,
        severity: text(record.Severity),
        severitySource: text(record.SeveritySource),
        pkgPaths: pkgPath === null ? [] : [pkgPath],
        target: place.target,
        class: place.resultClass,
        type: place.resultType,
        resource: place.resource,
      },
    },
  };
}

/**
 * The same vulnerability found in one more copy of the package (trivy lists it once per
 * `PkgPath`; the identity leaves the path out, see the module comment): the path is added to the
 * evidence and to `raw.pkgPaths`, up to `MAX_PACKAGE_PATHS`; `seen` counts every copy so far.
 */
export function withAnotherPackagePath(
  finding: DraftFinding,
  record: JsonNode,
  seen: number,
): DraftFinding {
  const path = text(record.PkgPath);
  const raw = isNode(finding.raw) ? finding.raw : {};
  const paths = list(raw.pkgPaths).filter((item): item is string => typeof item === 'string');
  if (path === null || paths.includes(path)) {
    return finding;
  }
  if (paths.length >= MAX_PACKAGE_PATHS) {
    const more = `more copies: ${seen - MAX_PACKAGE_PATHS}`;
    const evidence = (finding.evidence ?? '').replace(/\nmore copies: \d+$/, '');
    return { ...finding, evidence: `${evidence}\n${more}` };
  }
  return {
    ...finding,
    evidence: `${finding.evidence ?? ''}\npath: ${path}`,
    raw: { ...raw, pkgPaths: [...paths, path] },
  };
}

/** Misconfiguration statuses that are findings; PASS and EXCEPTION rows are not. */
const FAILING_STATUSES: ReadonlySet<string> = new Set(['FAIL']);

function misconfiguration(record: JsonNode, place: RecordPlace): RecordOutcome {
  const id = text(record.ID) ?? text(record.AVDID);
  if (id === null) {
    return { skipped: 'no-id' };
  }
  const status = text(record.Status);
  if (status !== null && !FAILING_STATUSES.has(status)) {
    return { skipped: 'not-failed' };
  }
  const cause = isNode(record.CauseMetadata) ? record.CauseMetadata : {};
  const causeResource = text(cause.Resource);
  const message = text(record.Message);
  const span = lines(integer(cause.StartLine), integer(cause.EndLine));
  const avdId = text(record.AVDID);
  const checkType = text(record.Type);
  return {
    finding: {
      ruleId: identity(withResource([id, place.target, causeResource, message], place)),
      title: `${id}: ${text(record.Title) ?? message ?? 'misconfiguration'}`,
      severity: severityFromTrivy(record.Severity),
      toolSeverity: text(record.Severity),
      category: 'misconfiguration',
      location: place.location,
      identifiers: { cve: [], cwe: [] },
      description:
        [text(record.Description, MAX_TEXT), message]
          .filter((part) => part !== null)
          .join('\n\n') || null,
      evidence: [
        `check: ${id}${avdId === null || avdId === id ? '' : ` (${avdId})`}${checkType === null ? '' : `, ${checkType}`}`,
        ...(message === null ? [] : [`message: ${message}`]),
        `file: ${describePlace(place)}${span === null ? '' : `, lines ${span}`}`,
        ...(causeResource === null ? [] : [`resource in file: ${causeResource}`]),
        ...placeEvidence(place),
      ].join('\n'),
      remediation: text(record.Resolution, MAX_TEXT),
      references: links(record.PrimaryURL, record.References),
      raw: {
        kind: 'misconfiguration',
        id,
        avdId,
        type: checkType,
        status,
        severity: text(record.Severity),
        causeResource,
        startLine: integer(cause.StartLine),
        endLine: integer(cause.EndLine),
        target: place.target,
        resource: place.resource,
      },
    },
  };
}

function secret(record: JsonNode, place: RecordPlace): RecordOutcome {
  const id = text(record.RuleID);
  if (id === null) {
    return { skipped: 'no-id' };
  }
  const start = integer(record.StartLine);
  const end = integer(record.EndLine);
  // trivy masks the secret itself with `*` in Match and in the Code lines. The Code lines are not
  // kept at all; in Match each masked run is shortened to `***`, so neither the finding nor its
  // identity shows how long the secret is, and a rotated secret of another length is the same issue.
  const matched = text(record.Match, MAX_TEXT);
  const match =
    matched === null ? null : capped(matched.replace(MASKED_RUN, '***'), MAX_MATCH_IN_ID);
  const title = text(record.Title) ?? id;
  const span = lines(start, end);
  return {
    finding: {
      ruleId: identity(
        withResource([id, place.target, match ?? (span === null ? null : `line ${span}`)], place),
      ),
      title: `Secret: ${title} in ${place.target ?? 'the scanned artifact'}${span === null ? '' : ` line ${span}`}`,
      severity: severityFromTrivy(record.Severity),
      toolSeverity: text(record.Severity),
      category: 'secret',
      location: place.location,
      identifiers: { cve: [], cwe: [] },
      description: `trivy's ${id} rule (${text(record.Category) ?? 'secret'}) matched in ${describePlace(place)}.`,
      evidence: [
        ...(match === null ? [] : [`match (masked): ${match}`]),
        `lines: ${span ?? 'unknown'}`,
        ...placeEvidence(place),
      ].join('\n'),
      remediation:
        'Remove the secret from the artifact and its history, and revoke or rotate it: it has been exposed.',
      references: [],
      raw: {
        kind: 'secret',
        ruleId: id,
        category: text(record.Category),
        severity: text(record.Severity),
        startLine: start,
        endLine: end,
        target: place.target,
        resource: place.resource,
      },
    },
  };
}

function license(record: JsonNode, place: RecordPlace): RecordOutcome {
  const name = text(record.Name);
  if (name === null) {
    return { skipped: 'no-id' };
  }
  const pkg = text(record.PkgName);
  const file = text(record.FilePath);
  const category = text(record.Category);
  return {
    finding: {
      ruleId: identity(withResource([`license:${name}`, pkg ?? file, place.target], place)),
      title: `License ${name}${pkg === null ? '' : ` in ${pkg}`}`,
      severity: severityFromTrivy(record.Severity),
      toolSeverity: text(record.Severity),
      category: 'license',
      location: place.location,
      identifiers: { cve: [], cwe: [] },
      description: `trivy classifies the ${name} license as ${category ?? 'unclassified'} (found in ${describePlace(place)}).`,
      evidence: [
        ...(pkg === null ? [] : [`package: ${pkg}`]),
        ...(file === null ? [] : [`file: ${file}`]),
        ...placeEvidence(place),
      ].join('\n'),
      remediation: null,
      references: links(record.Link, []),
      raw: { kind: 'license', name, category, pkgName: pkg, file, target: place.target },
    },
  };
}

const BUILDERS: Readonly<
  Record<RecordKind, (record: JsonNode, place: RecordPlace) => RecordOutcome>
> = {
  Vulnerabilities: vulnerability,
  Misconfigurations: misconfiguration,
  Secrets: secret,
  Licenses: license,
};

/** The finding for one record of `kind`, or why it gives none. */
export function recordFinding(
  kind: RecordKind,
  record: JsonNode,
  place: RecordPlace,
): RecordOutcome {
  return BUILDERS[kind](record, place);
}
