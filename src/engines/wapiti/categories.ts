/**
 * How wapiti's categories and levels map onto Rampart's: severity (and the level scale of older
 * releases), finding category, and the rule id that, with the location, makes the fingerprint.
 * Pure tables and functions.
 */
import type { Severity } from '../../domain/findings/finding.js';
import type { Classification, ReportEntry } from './report-model.js';

// ---------------------------------------------------------------------------------------------
// Tables.

/** wapiti 3.0.4 and later (`CRITICAL_LEVEL = "4"` … `INFO_LEVEL = "0"` in vulnerability.py). */
const LEVEL_SEVERITY: Readonly<Record<number, Severity>> = {
  4: 'critical',
  3: 'high',
  2: 'medium',
  1: 'low',
  0: 'info',
};

/** wapiti 2.x to 3.0.3 counted the other way: `HIGH_LEVEL = "1"`, `MEDIUM = "2"`, `LOW = "3"`. */
const OLD_LEVEL_SEVERITY: Readonly<Record<number, Severity>> = { 1: 'high', 2: 'medium', 3: 'low' };

/**
 * Categories that are configuration weaknesses rather than exploitable flaws, and whose entries
 * say which header, cookie or directive in `info` (a fixed message, never a payload).
 */
const MISCONFIGURATIONS: ReadonlySet<string> = new Set([
  'Content Security Policy Configuration',
  'HTTP Secure Headers',
  'HttpOnly Flag cookie',
  'Secure Flag cookie',
  'Clickjacking Protection',
  'HTTP Strict Transport Security (HSTS)',
  'MIME Type Confusion',
  'Unencrypted Channels',
  'TLS/SSL misconfigurations',
]);

/** Vulnerability-list categories that are inventory, not weaknesses (wapiti 3.2 files them so). */
const INFORMATION: ReadonlySet<string> = new Set([
  'Fingerprint web server',
  'Fingerprint web application framework',
]);

/**
 * Other categories whose parameter-less entries tell issues apart only by `info` (one entry per
 * missing token, technology, metafile …). Their `info` is a fixed message or a JSON object
 * naming a technology; it becomes part of the rule id. Injection categories are not listed:
 * there the parameter tells entries apart, and `info` may carry payload details.
 */
const SUBJECT_IN_INFO: ReadonlySet<string> = new Set([
  ...MISCONFIGURATIONS,
  ...INFORMATION,
  'Cross Site Request Forgery',
  'Fingerprint web technology',
  'Vulnerable software',
  'Review Webserver Metafiles for Information Leakage',
]);

/** Categories renamed between versions keep one rule id, so an upgrade keeps fingerprints. */
const RULE_ALIASES: Readonly<Record<string, string>> = {
  'Reflected Cross Site Scripting': 'cross-site-scripting', // 3.0.4: "Cross Site Scripting"
  XXE: 'xml-external-entity', // 3.0.0–3.0.3; 3.0.4: "XML External Entity"
  'Commands execution': 'command-execution', // 3.0.0–3.0.3; 3.0.4: "Command execution"
  'File Handling': 'path-traversal', // 3.0.0–3.0.3; 3.0.4: "Path Traversal"
};

const MAX_RULE_PART = 100;

// ---------------------------------------------------------------------------------------------
// Small helpers.

/** `SQL Injection` → `sql-injection`. */
function slug(text: string, max = MAX_RULE_PART): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
}

function firstLine(text: string, max: number): string {
  const line = (text.split('\n')[0] ?? '').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** A technology entry's `info` is JSON (`{"name": "nginx", "versions": ["1.19"]}`): its name. */
function technology(info: string): { name: string; versions: string[] } | null {
  if (!info.trimStart().startsWith('{')) {
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(info);
    if (typeof parsed !== 'object' || parsed === null || !('name' in parsed)) {
      return null;
    }
    const { name } = parsed;
    const versions = 'versions' in parsed && Array.isArray(parsed.versions) ? parsed.versions : [];
    return typeof name === 'string' && name.trim() !== ''
      ? { name: name.trim(), versions: versions.filter((v) => typeof v === 'string') }
      : null;
  } catch {
    return null;
  }
}

/** What `info` says in a line: a technology's name and versions, else its first line. */
export function infoSummary(info: string): string {
  const tech = technology(info);
  return tech === null ? firstLine(info, 120) : `${tech.name} ${tech.versions.join(', ')}`.trim();
}

export function uniqueUpper(values: Iterable<string>): string[] {
  return [...new Set([...values].map((value) => value.toUpperCase()))];
}

/** `CWE-89` from reference titles (`CWE-89: Improper …`) and cwe.mitre.org URLs. */
export function cweIds(classification: Classification | undefined): string[] {
  const ids: string[] = [];
  for (const { title, url } of classification?.references ?? []) {
    const fromTitle = /^\s*CWE-(\d{1,5})\b/i.exec(title)?.[1];
    const fromUrl = /cwe\.mitre\.org\/data\/definitions\/(\d{1,5})\.html/i.exec(url)?.[1];
    for (const id of [fromTitle, fromUrl]) {
      if (id !== undefined) {
        ids.push(`CWE-${Number(id)}`);
      }
    }
  }
  return uniqueUpper(ids);
}

// ---------------------------------------------------------------------------------------------
// Severity and version.

/** True for wapiti releases before 3.0.4 (`Wapiti 3.0.3`, `Wapiti-2.3.0`), which used 1..3. */
export function usesOldLevels(version: string | null): boolean {
  const match = /wapiti[\s-]*(\d+)\.(\d+)\.(\d+)/i.exec(version ?? '');
  if (match === null) {
    return false;
  }
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  return major < 3 || (major === 3 && minor === 0 && patch < 4);
}

/**
 * The common severity of an entry. Only vulnerabilities take their level; anomalies (a 500
 * answer or a timeout while injecting) and additionals (fingerprints, allowed methods) are
 * signals, not weaknesses, and are at most info whatever their level.
 */
export function entrySeverity(entry: ReportEntry, oldLevels: boolean): Severity {
  if (entry.section !== 'vulnerabilities' || entry.level === null) {
    return 'info';
  }
  return (oldLevels ? OLD_LEVEL_SEVERITY : LEVEL_SEVERITY)[entry.level] ?? 'info';
}

export function entryCategory(entry: ReportEntry): string {
  if (entry.section === 'anomalies') {
    return 'anomaly';
  }
  if (entry.section === 'additionals' || INFORMATION.has(entry.category)) {
    return 'information';
  }
  return MISCONFIGURATIONS.has(entry.category) ? 'misconfiguration' : 'vulnerability';
}

// ---------------------------------------------------------------------------------------------
// Rule id and location.

/**
 * The rule id: the category slug, then `:<METHOD>:<parameter>` for an injection point, or
 * `:<subject>` (from `info`, see SUBJECT_IN_INFO) for a parameter-less entry of a category whose
 * entries differ only there. With the location URL (origin + path) it makes the fingerprint, so
 * the same flaw in the same parameter keeps its fingerprint whatever payload found it.
 * @example ruleIdOf(xssEntry) // 'cross-site-scripting:GET:name'
 */
export function ruleIdOf(entry: ReportEntry): string {
  const base = RULE_ALIASES[entry.category] ?? (slug(entry.category) || 'unknown');
  if (entry.parameter !== '') {
    return `${base}:${entry.method}:${entry.parameter.slice(0, MAX_RULE_PART)}`;
  }
  if (SUBJECT_IN_INFO.has(entry.category)) {
    const subject = slug(technology(entry.info)?.name ?? entry.info);
    return subject === '' ? base : `${base}:${subject}`;
  }
  return base;
}
