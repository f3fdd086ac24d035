/**
 * The normalized finding every engine produces. Parsers return drafts (no ids, no clock); the
 * worker adds the scan id, finding ids and timestamps, and `finalizeFindings` adds fingerprints.
 * The draft and fingerprinted shapes are derived from their runtime schemas in finding-schema.ts.
 */
import type { Static } from '@sinclair/typebox';
import type { BaselineState } from '../issues/issue.js';
import type { Triage } from '../issues/triage.js';
import type {
  DraftFindingSchema,
  FindingIdentifiersSchema,
  FindingLocationSchema,
  FingerprintedFindingSchema,
} from './finding-schema.js';

/** The common five-level scale, most severe first. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/**
 * A schema's static type made read-only all the way down: findings are values nobody edits in place,
 * and a parser may hand over read-only arrays.
 */
type Immutable<T> = T extends readonly (infer Item)[]
  ? readonly Immutable<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: Immutable<T[Key]> }
    : T;

/** Where a finding sits; every part that does not apply is null. */
export type FindingLocation = Immutable<Static<typeof FindingLocationSchema>>;

export type FindingIdentifiers = Immutable<Static<typeof FindingIdentifiersSchema>>;

/** What a parser returns for one finding (its fields are documented in finding-schema.ts). */
export type DraftFinding = Immutable<Static<typeof DraftFindingSchema>>;

/** A draft with its fingerprint: the same issue on a rescan has the same fingerprint. */
export type FingerprintedFinding = Immutable<Static<typeof FingerprintedFindingSchema>>;

/** What a finding of a sentinel scan adds: where it came from and, when scored, its risk. */
export interface CorrelationDetail {
  /** Each engine's original finding this one was made from (JSON, as stored). */
  readonly sources: readonly unknown[];
  /** The correlation rules that merged two or more sources. */
  readonly correlatedBy: readonly string[];
  /** `{ score, factors }` when the sentinel scan asked for risk scores, else null. */
  readonly risk: unknown;
}

/**
 * The issue a stored finding is (issue 23), with the finding's baseline state against that issue
 * before its scan and the issue's triage as stored (show it through `withTriageInEffect`).
 */
export interface FindingIssue {
  readonly id: string;
  readonly baselineState: BaselineState;
  readonly triage: Triage;
}

/**
 * A stored finding as the store reads it; the API's view (scan-view.ts) writes `createdAt` as text
 * and lifts the correlation's sources and risk to the top level.
 */
export interface Finding extends FingerprintedFinding {
  readonly id: string;
  readonly scanId: string;
  readonly engine: string;
  readonly createdAt: Date;
  /** Findings of sentinel scans only; null for every other scan's findings. */
  readonly correlation: CorrelationDetail | null;
  /**
   * Its issue; null for findings that feed no issue: a sentinel child's (its parent's findings
   * do) and those of scans that ended before issues were tracked.
   */
  readonly issue: FindingIssue | null;
}

/** What a parser returns: findings and warnings as data (parsers never log). */
export interface ParseResult {
  readonly findings: readonly DraftFinding[];
  readonly warnings: readonly string[];
}

/** Count of findings per severity. */
export type FindingsSummary = Record<Severity, number>;
