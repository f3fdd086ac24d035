/**
 * The normalized finding every engine produces. Parsers return drafts (no ids, no clock); the
 * worker adds the scan id, finding ids and timestamps, and `finalizeFindings` adds fingerprints.
 */

/** The common five-level scale, most severe first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/** Where a finding sits; every part that does not apply is null. */
export interface FindingLocation {
  readonly host: string | null;
  readonly port: number | null;
  /** Transport (`tcp`, `udp`) for network findings, null otherwise. */
  readonly protocol: string | null;
  readonly url: string | null;
}

export interface FindingIdentifiers {
  /** `CVE-YYYY-NNNN…`, upper case, de-duplicated. */
  readonly cve: readonly string[];
  /** `CWE-NNN`, upper case, de-duplicated. */
  readonly cwe: readonly string[];
}

/** What a parser returns for one finding. */
export interface DraftFinding {
  /**
   * The tool's own stable name for what was found (`open-port`, a CVE id, a ZAP plugin id …).
   * Together with the engine and the location it makes the fingerprint.
   */
  readonly ruleId: string;
  readonly title: string;
  readonly severity: Severity;
  /** The severity as the tool wrote it (`7.5`, `HIGH`, `3`), null when the tool has none. */
  readonly toolSeverity: string | null;
  /** A short category such as `open-port`, `vulnerability`, `misconfiguration`, `subdomain`. */
  readonly category: string;
  readonly location: FindingLocation;
  readonly identifiers: FindingIdentifiers;
  readonly description: string | null;
  readonly evidence: string | null;
  readonly remediation: string | null;
  readonly references: readonly string[];
  /** The tool's record this finding came from, as plain JSON data. */
  readonly raw: unknown;
}

/** A draft with its fingerprint: the same issue on a rescan has the same fingerprint. */
export interface FingerprintedFinding extends DraftFinding {
  readonly fingerprint: string;
}

/** What a finding of a sentinel scan adds: where it came from and, when scored, its risk. */
export interface CorrelationDetail {
  /** Each engine's original finding this one was made from (JSON, as stored). */
  readonly sources: readonly unknown[];
  /** The correlation rules that merged two or more sources. */
  readonly correlatedBy: readonly string[];
  /** `{ score, factors }` when the sentinel scan asked for risk scores, else null. */
  readonly risk: unknown;
}

/** A stored finding as the API shows it. */
export interface Finding extends FingerprintedFinding {
  readonly id: string;
  readonly scanId: string;
  readonly engine: string;
  readonly createdAt: Date;
  /** Findings of sentinel scans only; null for every other scan's findings. */
  readonly correlation: CorrelationDetail | null;
}

/** What a parser returns: findings and warnings as data (parsers never log). */
export interface ParseResult {
  readonly findings: readonly DraftFinding[];
  readonly warnings: readonly string[];
}

/** Count of findings per severity. */
export type FindingsSummary = Record<Severity, number>;
