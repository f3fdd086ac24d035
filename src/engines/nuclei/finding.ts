/**
 * nuclei results to findings: severity, category, identifiers, evidence and a small raw record,
 * and the merging of results that are the same issue.
 *
 * Identity (the fingerprint's rule id and location): `ruleId` is the template id, plus
 * `:<matcher name>` (or `:<extractor name>`) when the result names one — one template run can
 * report several issues that differ only there, such as one line per missing security header.
 * The location comes from `matched-at` (see location.ts). Timestamps, the resolved IP, the curl
 * command, extracted values, requests and responses are never part of it: they change between
 * scans of the same issue. Results with the same rule id and normalized location are merged into
 * one finding here (their extracted values and matched-at spellings combined), so that
 * `finalizeFindings` has nothing left to fold and nothing a result reported is lost.
 */
import type { DraftFinding, Severity } from '../../domain/findings/finding.js';
import { normalizeLocation } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { type ResolvedLocation, resolveLocation } from './location.js';
import { cap, MAX_LIST_ITEMS, type NucleiResult } from './result.js';

/** nuclei's severities on the common scale; `unknown`, a missing or any other value → info. */
const SEVERITIES: Readonly<Record<string, Severity>> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
  info: 'info',
};

/** The category of a template from its directory in nuclei-templates (`http/<dir>/…`, `dns/…`). */
const DIRECTORY_CATEGORIES: Readonly<Record<string, string>> = {
  cves: 'vulnerability',
  cnvd: 'vulnerability',
  vulnerabilities: 'vulnerability',
  'default-logins': 'default-login',
  'default-login': 'default-login',
  'exposed-panels': 'exposed-panel',
  exposures: 'exposure',
  misconfiguration: 'misconfiguration',
  technologies: 'technology',
  takeovers: 'takeover',
  iot: 'iot',
  dns: 'dns',
  ssl: 'ssl',
};

/** The same from tags, for results without a template path (nuclei 2, `-json-export` of old). */
const TAG_CATEGORIES: ReadonlyArray<readonly [string, string]> = [
  ['cve', 'vulnerability'],
  ['default-login', 'default-login'],
  ['panel', 'exposed-panel'],
  ['takeover', 'takeover'],
  ['exposure', 'exposure'],
  ['misconfig', 'misconfiguration'],
  ['tech', 'technology'],
];

const MAX_EVIDENCE_CHARS = 4096;
/** At most this many distinct `matched-at` spellings kept for one finding. */
const MAX_MATCHED_AT = 10;

export function severityOf(toolSeverity: string | null): Severity {
  return SEVERITIES[toolSeverity?.toLowerCase() ?? ''] ?? 'info';
}

/** Whether nuclei's severity was one of the five levels (else it is shown as info). */
export function hasKnownSeverity(toolSeverity: string | null): boolean {
  return SEVERITIES[toolSeverity?.toLowerCase() ?? ''] !== undefined;
}

function categoryOf(result: NucleiResult): string {
  const directories = (result.templatePath ?? '').split('/').slice(0, 2);
  for (const directory of directories) {
    const category = DIRECTORY_CATEGORIES[directory];
    if (category !== undefined) {
      return category;
    }
  }
  const tags = new Set(result.tags.map((tag) => tag.toLowerCase()));
  const byTag = TAG_CATEGORIES.find(([tag]) => tags.has(tag));
  if (byTag !== undefined) {
    return byTag[1];
  }
  return result.cveIds.length > 0 ? 'vulnerability' : 'detection';
}

/** The template's variant that makes a separate issue: matcher name, else extractor name. */
function variantOf(result: NucleiResult): string | null {
  return result.matcherName ?? result.extractorName;
}

export function ruleIdOf(result: NucleiResult): string {
  const variant = variantOf(result);
  return variant === null ? result.templateId : `${result.templateId}:${variant}`;
}

/** Results read so far that make one finding. */
export interface PendingFinding {
  readonly result: NucleiResult;
  readonly ruleId: string;
  readonly resolved: ResolvedLocation;
  readonly matchedAt: string[];
  readonly extracted: string[];
  results: number;
}

function addUnique(into: string[], items: readonly string[], max: number): void {
  for (const item of items) {
    if (into.length >= max) {
      return;
    }
    if (!into.includes(item)) {
      into.push(item);
    }
  }
}

/**
 * Collects results and merges those with the same rule id and normalized location, keeping the
 * order of first appearance. Memory grows with distinct findings, not with the report's size.
 */
export class FindingCollector {
  private readonly byKey = new Map<string, PendingFinding>();

  constructor(private readonly target: ScanTarget) {}

  add(result: NucleiResult): void {
    const ruleId = ruleIdOf(result);
    const resolved = resolveLocation(result, this.target);
    const key = JSON.stringify([ruleId, normalizeLocation(resolved.location)]);
    let pending = this.byKey.get(key);
    if (pending === undefined) {
      pending = { result, ruleId, resolved, matchedAt: [], extracted: [], results: 0 };
      this.byKey.set(key, pending);
    }
    pending.results += 1;
    addUnique(
      pending.matchedAt,
      result.matchedAt === null ? [] : [result.matchedAt],
      MAX_MATCHED_AT,
    );
    addUnique(pending.extracted, result.extractedResults, MAX_LIST_ITEMS);
  }

  findings(): DraftFinding[] {
    return [...this.byKey.values()].map(toDraftFinding);
  }
}

function describe(result: NucleiResult): string | null {
  const parts = [result.description, result.impact === null ? null : `Impact: ${result.impact}`];
  const text = parts.filter((part): part is string => part !== null).join('\n\n');
  return text === '' ? null : text;
}

function evidenceOf(pending: PendingFinding): string {
  const { result } = pending;
  const meta = Object.entries(result.metadata).map(([key, value]) => `${key}=${value}`);
  const lines = [
    ...pending.matchedAt.map((matched) => `matched at: ${matched}`),
    result.matcherName === null ? null : `matcher: ${result.matcherName}`,
    result.extractorName === null ? null : `extractor: ${result.extractorName}`,
    pending.extracted.length === 0 ? null : `extracted: ${pending.extracted.join(', ')}`,
    meta.length === 0 ? null : `meta: ${meta.join(', ')}`,
    result.interaction === null
      ? null
      : `out-of-band interaction: ${result.interaction.protocol ?? 'unknown protocol'} from ${result.interaction.remoteAddress ?? 'an unknown address'}`,
    result.cvssScore === null && result.cvssMetrics === null
      ? null
      : `cvss: ${[result.cvssScore, result.cvssMetrics].filter((part) => part !== null).join(' ')}`,
    result.request === null ? null : `request:\n${result.request}`,
    result.response === null ? null : `response:\n${result.response}`,
  ];
  const text = lines.filter((line): line is string => line !== null).join('\n');
  return cap(text === '' ? `template ${result.templateId} matched` : text, MAX_EVIDENCE_CHARS);
}

function referencesOf(result: NucleiResult): string[] {
  const template =
    result.templateUrl !== null && /^https?:\/\//i.test(result.templateUrl)
      ? [result.templateUrl]
      : [];
  return [...new Set([...result.references, ...template])];
}

/** A small plain record: ids, names, where, and capped values; never requests or responses. */
function rawOf(pending: PendingFinding): Record<string, unknown> {
  const { result } = pending;
  return {
    templateId: result.templateId,
    template: result.templatePath,
    type: result.type,
    severity: result.severity,
    matcherName: result.matcherName,
    extractorName: result.extractorName,
    matchedAt: pending.matchedAt,
    host: result.host,
    port: result.port,
    ip: result.ip,
    timestamp: result.timestamp,
    tags: result.tags.slice(0, 20).map((tag) => cap(tag, 64)),
    extractedResults: pending.extracted,
    classification: {
      cvssScore: result.cvssScore,
      cvssMetrics: result.cvssMetrics,
      cpe: result.cpe,
    },
    interaction: result.interaction,
    locationSource: pending.resolved.source,
    results: pending.results,
  };
}

function toDraftFinding(pending: PendingFinding): DraftFinding {
  const { result } = pending;
  const variant = variantOf(result);
  const name = result.name ?? result.templateId;
  return {
    ruleId: pending.ruleId,
    title: cap(variant === null ? name : `${name} (${variant})`, 300),
    severity: severityOf(result.severity),
    toolSeverity: result.severity,
    category: categoryOf(result),
    location: pending.resolved.location,
    identifiers: { cve: result.cveIds, cwe: result.cweIds },
    description: describe(result),
    evidence: evidenceOf(pending),
    remediation: result.remediation,
    references: referencesOf(result),
    raw: rawOf(pending),
  };
}
