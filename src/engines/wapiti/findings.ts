/**
 * wapiti report entries to findings: location, identifiers and texts, with severity, category
 * and rule id from categories.ts. Pure; both report formats feed it through report-model.ts.
 */
import type { DraftFinding, FindingLocation } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import {
  cweIds,
  entryCategory,
  entrySeverity,
  infoSummary,
  ruleIdOf,
  uniqueUpper,
  usesOldLevels,
} from './categories.js';
import type { Classification, ReportEntry, ReportInfos, ReportModel } from './report-model.js';

const MAX_TITLE = 200;
const MAX_EVIDENCE = 4000;
const CVE = /CVE-\d{4}-\d{4,7}/gi;

/** The origin an entry's path belongs to (`http://127.0.0.1:8080`), or null. */
function httpOrigin(url: string | null | undefined): URL | null {
  if (url === null || url === undefined) {
    return null;
  }
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Where the entry is. The origin comes from the entry's own curl command when it has one (with
 * `--scope=domain` wapiti also visits sub-domains, and `path` is relative to the host it was
 * on), else from the scanned target, else from the report's `infos.target`.
 */
function entryLocation(entry: ReportEntry, fallback: URL | null): FindingLocation {
  const curlUrl = /^curl "([^"]+)"/.exec(entry.curlCommand)?.[1];
  const origin = httpOrigin(curlUrl) ?? fallback;
  if (origin === null) {
    return { host: null, port: null, protocol: null, url: null };
  }
  const port = origin.port === '' ? (origin.protocol === 'https:' ? 443 : 80) : Number(origin.port);
  // A backslash is a character of the path as wapiti sent it, not a separator (the URL parser
  // would turn it into `/`).
  const path = `/${entry.path.replace(/^\/+/, '')}`.replace(/\\/g, '%5C');
  let url: string;
  try {
    url = new URL(path, origin.origin).href;
  } catch {
    url = `${origin.origin}${path}`;
  }
  return { host: origin.hostname.replace(/^\[|\]$/g, ''), port, protocol: 'tcp', url };
}

// ---------------------------------------------------------------------------------------------
// Findings.

function titleOf(entry: ReportEntry): string {
  const where = entry.path || '/';
  const title =
    entry.parameter === 'QUERY_STRING'
      ? `${entry.category} in ${where} (query string)`
      : entry.parameter !== ''
        ? `${entry.category} in ${where} (parameter ${entry.parameter})`
        : entry.info.trim() !== ''
          ? `${entry.category}: ${infoSummary(entry.info)}`
          : `${entry.category} in ${where}`;
  return title.length <= MAX_TITLE ? title : `${title.slice(0, MAX_TITLE - 1)}…`;
}

function descriptionOf(entry: ReportEntry, classification: Classification | undefined): string {
  const point =
    entry.parameter === ''
      ? `${entry.method} ${entry.path || '/'}`
      : `${entry.method} ${entry.path || '/'}, parameter ${entry.parameter}`;
  const reported = `wapiti (${point}): ${entry.info.trim() || entry.category}`;
  return classification?.description ? `${reported}\n\n${classification.description}` : reported;
}

function evidenceOf(entry: ReportEntry): string | null {
  const parts = [
    ...(entry.info.trim() === '' ? [] : [`info: ${entry.info.trim()}`]),
    ...(entry.curlCommand === '' ? [] : [`curl: ${entry.curlCommand}`]),
    ...(entry.httpRequest === '' ? [] : [`request:\n${entry.httpRequest}`]),
  ];
  const text = parts.join('\n');
  if (text === '') {
    return null;
  }
  return text.length <= MAX_EVIDENCE ? text : `${text.slice(0, MAX_EVIDENCE - 1)}…`;
}

function toFinding(
  entry: ReportEntry,
  classification: Classification | undefined,
  location: FindingLocation,
  oldLevels: boolean,
): DraftFinding {
  return {
    ruleId: ruleIdOf(entry),
    title: titleOf(entry),
    severity: entrySeverity(entry, oldLevels),
    toolSeverity: entry.level === null ? null : String(entry.level),
    category: entryCategory(entry),
    location,
    identifiers: {
      cve: uniqueUpper(`${entry.category}\n${entry.info}`.match(CVE) ?? []),
      cwe: cweIds(classification),
    },
    description: descriptionOf(entry, classification),
    evidence: evidenceOf(entry),
    remediation: classification?.solution ?? null,
    references: [
      ...new Set(
        (classification?.references ?? [])
          .map((reference) => reference.url)
          .filter((url) => /^https?:\/\/\S+$/.test(url)),
      ),
    ],
    raw: {
      section: entry.section,
      category: entry.category,
      method: entry.method,
      path: entry.path,
      parameter: entry.parameter,
      level: entry.level,
      ...(entry.module === null ? {} : { module: entry.module }),
      ...(entry.wstg.length === 0 ? {} : { wstg: entry.wstg }),
    },
  };
}

function targetUrl(target: ScanTarget, infos: ReportInfos | null): URL | null {
  return httpOrigin(target.type === 'url' ? target.value : null) ?? httpOrigin(infos?.target);
}

/**
 * One finding per entry of every category, in report order, with the warnings the entries give.
 * Duplicates (wapiti repeats an entry per crawled page variant) are left to `finalizeFindings`,
 * which merges drafts with one fingerprint.
 */
export function buildFindings(
  model: ReportModel,
  target: ScanTarget,
): { findings: DraftFinding[]; warnings: string[] } {
  const oldLevels = usesOldLevels(model.infos?.version ?? null);
  const fallback = targetUrl(target, model.infos);
  const findings: DraftFinding[] = [];
  let noLevel = 0;
  let noOrigin = 0;
  for (const entry of model.entries) {
    const location = entryLocation(entry, fallback);
    noOrigin += location.url === null ? 1 : 0;
    noLevel += entry.section === 'vulnerabilities' && entry.level === null ? 1 : 0;
    findings.push(toFinding(entry, model.classifications.get(entry.category), location, oldLevels));
  }
  const warnings: string[] = [];
  if (noLevel > 0) {
    warnings.push(`${noLevel} vulnerability entr(y/ies) had no readable level: reported as info`);
  }
  if (noOrigin > 0) {
    warnings.push(
      `${noOrigin} entr(y/ies) could not be placed on a URL (no http(s) target or curl command): location is empty`,
    );
  }
  return { findings, warnings };
}
