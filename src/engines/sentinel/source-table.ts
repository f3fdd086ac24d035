/**
 * The source findings of a correlation, flattened and ranked once, and the two orders
 * correlation sorts by (README, "Correlation"). Sources are numbered by their position in the
 * input; their ranks sit in arrays of small integers (no object per source; plain arrays, not
 * typed ones, for the reason in correlate.ts, "Memory"), and the output order has a numeric key
 * (`outputKeys`) so a million findings are put in order by a radix sort.
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
  /** The input itself when it holds no correlated finding. */
  readonly findings: readonly SourceFinding[];
  /** Index into CONFIDENCES: higher is more confident. */
  readonly confidenceRank: readonly number[];
  /** Index into SEVERITIES: 0 for critical … 4 for info (an unknown value after info). */
  readonly severityRank: readonly number[];
  /** Index into ENGINE_NAMES (an unknown engine after all). */
  readonly engineRank: readonly number[];
}

function rankIn(list: readonly string[], value: string): number {
  const rank = list.indexOf(value);
  return rank === -1 ? list.length : rank;
}

function isCorrelated(item: SourceFinding | CorrelatedFinding): item is CorrelatedFinding {
  return 'sources' in item && Array.isArray(item.sources);
}

/** The source findings: correlated findings taken apart, in input order. */
function sourcesOf(
  items: readonly (SourceFinding | CorrelatedFinding)[],
): readonly SourceFinding[] {
  if (!items.some(isCorrelated)) {
    return items as readonly SourceFinding[];
  }
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
  return findings;
}

/**
 * Every source finding of the input, correlated findings taken apart into their sources, in input
 * order, with its ranks.
 */
export function sourceTableOf(items: readonly (SourceFinding | CorrelatedFinding)[]): SourceTable {
  const findings = sourcesOf(items);
  const count = findings.length;
  const confidenceRank = new Array<number>(count);
  const severityRank = new Array<number>(count);
  const engineRank = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const finding = findings[i] as SourceFinding;
    confidenceRank[i] = CONFIDENCES.indexOf(confidenceOf(finding));
    severityRank[i] = rankIn(SEVERITIES, finding.severity);
    engineRank[i] = rankIn(ENGINE_NAMES, finding.engine);
  }
  return { findings, confidenceRank, severityRank, engineRank };
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
  const first = table.findings[a] as SourceFinding;
  const second = table.findings[b] as SourceFinding;
  return (
    compareStrings(first.fingerprint, second.fingerprint) ||
    compareStrings(first.scanId, second.scanId) ||
    compareStrings(first.findingId, second.findingId)
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

/** How many code units of a fingerprint the output key holds, 7 bits each. */
const KEY_UNITS = 9;

/**
 * The first KEY_UNITS code units of `text` in 7 bits each, into `units`, keeping the order of
 * strings: a unit from 127 on counts as 127 and ends what the key holds (the units after it are
 * 0), as a missing unit is; strings that the key cannot tell apart are left to the comparison.
 */
function sevenBitUnits(text: string, units: Uint8Array): void {
  let ended = false;
  for (let at = 0; at < KEY_UNITS; at++) {
    // Written unit by unit (no `fill`, a call into the runtime per finding).
    const unit = ended || at >= text.length ? 0 : text.charCodeAt(at);
    if (unit >= 127) {
      units[at] = 127;
      ended = true;
    } else {
      units[at] = unit;
    }
  }
}

/**
 * A 64-bit key per source that agrees with `compareOutputs` (radix-order.ts): severity (3 bits),
 * engine (4 bits), then the first nine code units of the fingerprint in 7 bits each (57 bits).
 * Sources whose keys are equal are left to `compareOutputs`. Each half is given as a signed
 * 32-bit integer (so the lists hold small integers); its bits are compared unsigned.
 */
export function outputKeys(
  table: SourceTable,
  sources: readonly number[],
): { readonly hi: readonly number[]; readonly lo: readonly number[] } {
  const hi = new Array<number>(sources.length);
  const lo = new Array<number>(sources.length);
  const units = new Uint8Array(KEY_UNITS);
  for (let i = 0; i < sources.length; i++) {
    const source = sources[i] ?? 0;
    sevenBitUnits((table.findings[source] as SourceFinding).fingerprint, units);
    // Units 0–3 (28 bits), 4–7 (28 bits), 8 (its top bit only fits).
    let first = 0;
    let second = 0;
    for (let unit = 0; unit < 4; unit++) {
      first = (first << 7) | (units[unit] ?? 0);
      second = (second << 7) | (units[unit + 4] ?? 0);
    }
    const severity = Math.min(table.severityRank[source] ?? 0, 7);
    const engine = Math.min(table.engineRank[source] ?? 0, 15);
    hi[i] = (severity << 29) | (engine << 25) | (first >>> 3);
    lo[i] = ((first & 7) << 29) | (second << 1) | ((units[8] ?? 0) >>> 6);
  }
  return { hi, lo };
}
