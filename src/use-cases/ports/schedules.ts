/** Scheduled scans: their store (the API) and the claim of due ones (the scheduler). */
import type { MissedRunPolicy, Recurrence } from '../../domain/schedules/recurrence.js';
import type { AssetStore } from './assets.js';
import type { Page } from './common.js';
import type { ScanStore } from './scans.js';
import type { TemplateStore } from './templates.js';

/** What a schedule's owner writes (POST, PATCH). */
export interface ScheduleFields {
  readonly name: string;
  readonly description: string | null;
  /** The fields of a POST /api/v1/scans body, without `target` (one scan per target). */
  readonly scan: Readonly<Record<string, unknown>>;
  readonly templateId: string | null;
  /**
   * What each occurrence scans, exactly one of: `targets` (empty otherwise), `assetIds` (assets
   * of the tenant, each scanned at its value and linked to it) or `assetTag` (every asset of the
   * tenant carrying the tag when the occurrence runs).
   */
  readonly targets: readonly string[];
  readonly assetIds: readonly string[] | null;
  readonly assetTag: string | null;
  readonly recurrence: Recurrence;
  readonly missedRunPolicy: MissedRunPolicy;
  readonly paused: boolean;
}

/** A scan of an occurrence that was not created, and why. */
export interface ScheduleRunError {
  /**
   * The scan target; null when there was none to scan (an asset gone, a tag on no asset), or when
   * the run's scans met an unexpected error (INTERNAL_ERROR: none of them was kept).
   */
  readonly target: string | null;
  /** The asset the scan was for (schedules over assets). */
  readonly assetId?: string;
  readonly code: string;
  readonly message: string;
}

/** The scans one occurrence made, or why it made none. */
export interface ScheduleRun {
  readonly occurrenceAt: Date;
  readonly ranAt: Date;
  /** created: every target's scan; partial: some; failed: none; skipped: missed, not run. */
  readonly outcome: 'created' | 'partial' | 'failed' | 'skipped';
  readonly scanIds: readonly string[];
  readonly errors: readonly ScheduleRunError[];
  /** Due occurrences this claim did not run (skip), or folded into this one (run_once). */
  readonly missed: number;
}

/** The state the scheduler moves: when next, and whether failures paused it. */
export interface ScheduleState {
  readonly nextRunAt: Date | null;
  readonly paused: boolean;
  readonly pausedReason: string | null;
  readonly consecutiveFailures: number;
}

export interface ScheduleRecord extends ScheduleFields, ScheduleState {
  readonly id: string;
  readonly tenantId: string;
  /** The key that wrote the schedule last (null: a dashboard JWT); its scans carry it. */
  readonly apiKeyId: string | null;
  /** That key's allowedScanTypes then (null: every engine); a schedule never widens them. */
  readonly allowedScanTypes: readonly string[] | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface NewSchedule extends ScheduleFields, ScheduleState {
  readonly id: string;
  readonly tenantId: string;
  readonly apiKeyId: string | null;
  readonly allowedScanTypes: readonly string[] | null;
}

export interface ScheduleStore {
  /**
   * Stores the schedule unless its tenant already has `maxSchedules` (TENANT_MAX_SCHEDULES),
   * paused ones included: then 'limit-reached'. Concurrent inserts of one tenant are counted one
   * after the other.
   */
  insert(schedule: NewSchedule, maxSchedules: number): Promise<ScheduleRecord | 'limit-reached'>;
  list(tenantId: string, page: Page): Promise<{ schedules: ScheduleRecord[]; total: number }>;
  get(tenantId: string, id: string): Promise<ScheduleRecord | null>;
  /** The newest runs of a schedule, newest first. */
  lastRuns(scheduleId: string, limit: number): Promise<ScheduleRun[]>;
  /** Replaces the fields and state (and writer); null when there is no such schedule. */
  update(
    tenantId: string,
    id: string,
    schedule: Omit<NewSchedule, 'id' | 'tenantId'>,
  ): Promise<ScheduleRecord | null>;
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** The work of one claim, inside the claim's transaction. */
export interface ScheduleClaim {
  readonly schedules: readonly ScheduleRecord[];
  /** Stores bound to the transaction: the scans commit with the claim, or not at all. */
  readonly scans: ScanStore;
  readonly templates: TemplateStore;
  /** The tenants' assets, for the scans' covering asset and REQUIRE_VERIFIED_TARGETS. */
  readonly assets: AssetStore;
  /**
   * Takes occurrences of schedules for this claim: the ids of the schedules whose occurrence was
   * not taken before (one whose occurrence has a run already is left out: its scans exist).
   */
  reserve(
    occurrences: readonly { scheduleId: string; occurrenceAt: Date }[],
  ): Promise<ReadonlySet<string>>;
  /** Records what occurrences made (reserved first, or skipped ones). */
  record(runs: readonly { scheduleId: string; run: ScheduleRun }[]): Promise<void>;
  advance(states: readonly { scheduleId: string; state: ScheduleState }[]): Promise<void>;
  /**
   * Runs `work` in a savepoint of the claim's transaction. When it throws, what it wrote is
   * rolled back while the rest of the claim stays, and the answer carries the error. Thrown
   * instead (the whole claim then rolls back, to be claimed again, and no schedule is blamed):
   * the database being unavailable, and a failure of the savepoint statements themselves.
   * `work` must have no statement still in flight when it settles.
   */
  isolate<T>(
    work: () => Promise<T>,
  ): Promise<
    { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }
  >;
}

export interface ScheduleClaimer {
  /**
   * Claims up to `limit` unpaused schedules whose next run time is at or before `now` (and whose
   * tenant is active), skipping rows another process holds, and runs `work` in the same
   * transaction: it commits when `work` resolves and rolls back when it throws (or the process
   * dies), leaving the schedules due for the next claim. Resolves to how many were claimed.
   */
  claimDue(
    now: Date,
    limit: number,
    work: (claim: ScheduleClaim) => Promise<void>,
  ): Promise<number>;
}
