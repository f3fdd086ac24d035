/**
 * The data sentinel works with: the plan of a sentinel scan (which engines run as child scans,
 * on which targets, with which options), the findings of its children as they enter correlation,
 * and the correlated, risk-scored findings the parent scan shows. Pure types.
 */
import type { FingerprintedFinding, Severity } from '../../domain/findings/finding.js';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { EngineName } from '../engine.js';

export const SENTINEL_DEPTHS = ['quick', 'standard', 'deep'] as const;
export type SentinelDepth = (typeof SENTINEL_DEPTHS)[number];

/** The sentinel options with the specification's defaults filled in. */
export interface SentinelOptions {
  readonly depth: SentinelDepth;
  /** Engines asked for explicitly; absent: chosen by depth and target. */
  readonly engines?: readonly EngineName[];
  readonly correlate: boolean;
  readonly riskScore: boolean;
}

/** What planning a sentinel scan needs to know; everything is given, nothing is looked up. */
export interface SentinelPlanInput {
  /** The sentinel scan's validated target (url, host, domain or ip). */
  readonly target: ScanTarget;
  readonly options: SentinelOptions;
  /** The caller's allowed engines; null: every engine (a dashboard JWT). */
  readonly allowedScanTypes: readonly string[] | null;
  /** Engines a live worker can run now. */
  readonly runnable: ReadonlySet<string>;
  /** The `timeout` the request gave (seconds), or null when it gave none. */
  readonly timeoutSeconds: number | null;
  /** Which private and loopback targets are allowed (ALLOW_PRIVATE_TARGETS). */
  readonly allowPrivateTargets: PrivateTargetPolicy;
}

/** One engine the sentinel scan runs, as a child scan. */
export interface PlannedChild {
  readonly engine: EngineName;
  /** The child's target, validated for that engine (a URL's host for nmap, for example). */
  readonly target: ScanTarget;
  /** The child's effective options (validated against the engine's schema, defaults filled in). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly timeoutSeconds: number;
  /** The child's share of the parent's progress (relative to its siblings). */
  readonly progressWeight: number;
}

/** An engine planning left out, and why (shown in the scan's detail). */
export interface SkippedEngine {
  readonly engine: EngineName;
  readonly reason: string;
}

export type SentinelPlan =
  | {
      readonly ok: true;
      readonly children: readonly PlannedChild[];
      readonly skipped: readonly SkippedEngine[];
    }
  | {
      readonly ok: false;
      /**
       * SCAN_TYPE_NOT_ALLOWED: an explicitly requested engine the key may not use (`engine` names
       * it); INVALID_TARGET: no engine of the plan can scan this target at all;
       * SERVICE_UNAVAILABLE: engines could, but no worker can run any of them now.
       */
      readonly code: 'SCAN_TYPE_NOT_ALLOWED' | 'INVALID_TARGET' | 'SERVICE_UNAVAILABLE';
      readonly reason: string;
      readonly engine: EngineName | null;
      readonly skipped: readonly SkippedEngine[];
    };

/** How sure a source is of what it reports, least to most. */
export const CONFIDENCES = ['low', 'medium', 'high', 'confirmed'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/**
 * A child scan's stored finding as it enters correlation: the finding (with its fingerprint) plus
 * where it came from.
 */
export interface SourceFinding extends FingerprintedFinding {
  readonly engine: EngineName;
  /** The child scan that reported it. */
  readonly scanId: string;
  /** Its id in the child scan (GET /api/v1/scans/:scanId/findings). */
  readonly findingId: string;
}

/** One finding a correlated finding was made from. */
export interface FindingSource {
  readonly engine: EngineName;
  readonly scanId: string;
  readonly findingId: string;
  readonly confidence: Confidence;
  /** The original finding, whole (the API shows it without `raw`, which its own scan keeps). */
  readonly finding: SourceFinding;
}

/** Rules that merge findings of different engines (README, "Correlation"). */
export type CorrelationRule = 'cve' | 'weakness' | 'service' | 'hostname';

/**
 * A finding of a sentinel scan: one issue, reported by one or more engines. Its fields are those
 * of its primary source (the most confident one; `sources[0]`), except that identifiers and
 * references are the union of all sources and empty texts are filled from the other sources.
 */
export interface CorrelatedFinding extends FingerprintedFinding {
  /** The primary source's engine. */
  readonly engine: EngineName;
  /** Every finding merged into this one, the primary first, then in a fixed order. */
  readonly sources: readonly FindingSource[];
  /** The rules that linked two or more sources (empty for a finding of one source). */
  readonly correlatedBy: readonly CorrelationRule[];
}

/** One reason a risk score is what it is. */
export interface RiskFactor {
  /** `severity`, `known-cve`, `confirmed`, `exposure`, `corroboration`, … */
  readonly factor: string;
  /** What it added to the score (may be 0 or negative). */
  readonly points: number;
  /** In words, for the user: "CVE-2021-44228", "reported by nuclei and zap". */
  readonly detail: string;
}

export interface RiskAssessment {
  /** 0..100, an integer. */
  readonly score: number;
  readonly factors: readonly RiskFactor[];
}

/** A correlated finding with its risk. */
export interface ScoredFinding extends CorrelatedFinding {
  readonly risk: RiskAssessment;
}

export type { Severity };
