/**
 * The source findings of a correlation, flattened and ranked once, and the two orders
 * correlation sorts by (README, "Correlation"). Sources are numbered by their position in the
 * input; what the orders compare sits in parallel arrays (typed arrays for the ranks), so sorting
 * a million sources compares numbers and strings without an object per source.
 */
import { SEVERITIES } from '../../domain/findings/finding.js';
import { ENGINE_NAMES } from '../engine.js';
import { confidenceOf } from './confidence.js';
import {
  CONFIDENCES,
  type Confidence,
  type CorrelatedFinding,
  type SourceFinding,
} from './types.js';

export interface SourceTable {
  readonly findings: readonly SourceFinding[];
  /** Index into CONFIDENCES: higher is more confident. */
  readonly confidenceRank: Uint8Array;
  /** Index into SEVERITIES: 0 for critical … 4 for info (an unknown value after info). */
  readonly severityRank: Uint8Array;
  /** Index into ENGINE_NAMES (an unknown engine after all). */
  readonly engineRank: Uint8Array;
  readonly fingerprints: readonly string[];
  /**
   * The first six UTF-16 code units of each fingerprint, three per number (exact in a double; a
   * missing unit counts as 0). Comparing these numbers first orders fingerprints as comparing
   * the strings does, except for ties, where the strings decide; with hex fingerprints a tie
   * among a million is rare, so sorting seldom reaches for the strings themselves (which sit all
   * over memory).
   */
  readonly fingerprintHead: Float64Array;
  readonly fingerprintHead2: Float64Array;
  readonly scanIds: readonly string[];
  readonly findingIds: readonly string[];
}

function rankIn(list: readonly string[], value: string): number {
  const rank = list.indexOf(value);
  return rank === -1 ? list.length : rank;
}

function isCorrelated(item: SourceFinding | CorrelatedFinding): item is CorrelatedFinding {
  return 'sources' in item && Array.isArray(item.sources);
}

/**
 * Every source finding of the input, correlated findings taken apart into their sources, in input
 * order, with its ranks.
 */
export function sourceTableOf(items: readonly (SourceFinding | CorrelatedFinding)[]): SourceTable {
  const findings: SourceFinding[] = [];
  for (const item of items) {
    if (isCorrelated(item)) {
      for (const source of item.sources) {
        findings.push(source.finding);
      }
    } else {
      findings.push(item);
    }
  }
  const count = findings.length;
  const table = {
    findings,
    confidenceRank: new Uint8Array(count),
    severityRank: new Uint8Array(count),
    engineRank: new Uint8Array(count),
    fingerprints: [] as string[],
    fingerprintHead: new Float64Array(count),
    fingerprintHead2: new Float64Array(count),
    scanIds: [] as string[],
    findingIds: [] as string[],
  };
  for (let i = 0; i < count; i++) {
    const finding = findings[i] as SourceFinding;
    const fingerprint = finding.fingerprint;
    table.confidenceRank[i] = CONFIDENCES.indexOf(confidenceOf(finding));
    table.severityRank[i] = rankIn(SEVERITIES, finding.severity);
    table.engineRank[i] = rankIn(ENGINE_NAMES, finding.engine);
    table.fingerprints.push(fingerprint);
    table.fingerprintHead[i] = codeUnits(fingerprint, 0);
    table.fingerprintHead2[i] = codeUnits(fingerprint, 3);
    table.scanIds.push(finding.scanId);
    table.findingIds.push(finding.findingId);
  }
  return table;
}

/** Code units `at` to `at + 2` of `text` in one number below 2^48 (0 for a missing one). */
function codeUnits(text: string, at: number): number {
  let value = 0;
  for (let i = at; i < at + 3; i++) {
    value = value * 0x10000 + (i < text.length ? text.charCodeAt(i) : 0);
  }
  return value;
}

export function confidenceAt(table: SourceTable, index: number): Confidence {
  return CONFIDENCES[table.confidenceRank[index] ?? 0] ?? 'low';
}

/** Code-unit order, so the result does not depend on the locale of the process. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** fingerprint, then scanId, then findingId: the tie-breakers of both orders. */
function compareIdentity(table: SourceTable, a: number, b: number): number {
  return (
    (table.fingerprintHead[a] ?? 0) - (table.fingerprintHead[b] ?? 0) ||
    (table.fingerprintHead2[a] ?? 0) - (table.fingerprintHead2[b] ?? 0) ||
    compareStrings(table.fingerprints[a] ?? '', table.fingerprints[b] ?? '') ||
    compareStrings(table.scanIds[a] ?? '', table.scanIds[b] ?? '') ||
    compareStrings(table.findingIds[a] ?? '', table.findingIds[b] ?? '')
  );
}

/**
 * The order of the sources of one finding, the primary first: confidence (most confident first),
 * severity (most severe first), engine (ENGINE_NAMES order), fingerprint, scanId, findingId.
 */
export function compareSources(table: SourceTable, a: number, b: number): number {
  return (
    (table.confidenceRank[b] ?? 0) - (table.confidenceRank[a] ?? 0) ||
    (table.severityRank[a] ?? 0) - (table.severityRank[b] ?? 0) ||
    (table.engineRank[a] ?? 0) - (table.engineRank[b] ?? 0) ||
    compareIdentity(table, a, b)
  );
}

/**
 * The order of the output, by primary source: severity, engine, fingerprint, scanId, findingId.
 */
export function compareOutputs(table: SourceTable, a: number, b: number): number {
  return (
    (table.severityRank[a] ?? 0) - (table.severityRank[b] ?? 0) ||
    (table.engineRank[a] ?? 0) - (table.engineRank[b] ?? 0) ||
    compareIdentity(table, a, b)
  );
}
