/**
 * Running one engine on one target: what a worker hands the runner and what it gets back.
 */
import type { DraftFinding } from '../../domain/findings/finding.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { TargetPin } from '../../domain/targets/pin.js';
import type { ScanTarget } from '../../domain/targets/target.js';

export interface EngineRunRequest {
  readonly scan: ScanRecord;
  readonly target: ScanTarget;
  /** The effective options, validated again against the engine's schema at claim time. */
  readonly options: Readonly<Record<string, unknown>>;
  /** The scan's `config`, validated again, with its credentials in clear (never logged). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** What the worker's target check just before the start settled, for the engine's argv. */
  readonly pin: TargetPin;
  /** Aborted to cancel or stop the run; not yet aborted when the run starts (runScan sees to it). */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  onProgress(percent: number): void;
}

export interface EngineRunOutput {
  /** Findings read from the tool's output, also after a timeout or a cancel (partial output). */
  readonly findings: readonly DraftFinding[];
  readonly warnings: readonly string[];
  readonly ending: 'completed' | 'timed-out' | 'cancelled' | 'engine-error';
  /** For `engine-error`: what went wrong, for the scan's `error.message` (the service's words). */
  readonly message: string | null;
  /**
   * For `engine-error`: the tool's own last words (its stderr), for the service's log only. Never
   * part of the scan's error: it comes from outside (the target's answers, the tool's setup).
   */
  readonly detail?: string | null;
}

/** Runs one engine on one target: the process runner for real tools, an instant double in tests. */
export interface EngineRunner {
  /** The tool runs in the scanner sandbox (the worker registry and GET /api/v1/engines say so). */
  readonly sandboxed?: boolean;
  run(request: EngineRunRequest): Promise<EngineRunOutput>;
}
