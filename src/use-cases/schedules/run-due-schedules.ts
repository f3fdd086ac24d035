/**
 * One claim of the scheduler: the due schedules, each decided by its missed-run policy, its
 * occurrence's scans created through the same use case as POST /api/v1/scans (validation, target
 * checks, worker availability, quota), the run recorded and the next run time stored, all in the
 * claim's transaction.
 *
 * Why inside the transaction rather than "record the occurrence, commit, then create": an
 * occurrence then has exactly one outcome. Its scans, its schedule_runs row (whose key is the
 * schedule and the occurrence: reserve() refuses a second one) and the new next run time commit
 * together, so a process killed mid-claim leaves no half-made occurrence to repair, and another
 * process simply claims it again. The price: the transaction holds the claimed rows while the
 * target names resolve (TARGET_NOT_ALLOWED checks), so claims are kept small (`batchSize`).
 */
import { ApiError } from '../../domain/errors.js';
import { decideDue } from '../../domain/schedules/recurrence.js';
import type { ScheduleClaim, ScheduleClaimer, ScheduleRecord } from '../ports/schedules.js';
import { type CreateScanDeps, createScan } from '../scans/create-scan.js';

export interface RunSchedulesDeps extends Omit<CreateScanDeps, 'scans' | 'templates'> {
  readonly claimer: ScheduleClaimer;
  /** An occurrence claimed later than this after its time counts as missed (SCHEDULE_LATE_AFTER_MS). */
  readonly lateAfterMs: number;
  /** Consecutive runs that create no scan before the schedule pauses (SCHEDULE_MAX_FAILURES). */
  readonly maxFailures: number;
  /** Schedules per claim (one transaction). */
  readonly batchSize: number;
}

/** Runs one claim; resolves to how many schedules it claimed (batchSize: more may be due). */
export async function runDueSchedules(deps: RunSchedulesDeps): Promise<number> {
  const now = deps.clock.now();
  // Read before the claim: inside it the transaction is the only connection to use (PGlite).
  const runnable = await deps.workers.runnableEngines();
  const workers = { runnableEngines: async () => runnable };
  return deps.claimer.claimDue(now, deps.batchSize, async (claim) => {
    for (const schedule of claim.schedules) {
      await runSchedule({ ...deps, workers }, claim, schedule, now);
    }
  });
}

async function runSchedule(
  deps: RunSchedulesDeps,
  claim: ScheduleClaim,
  schedule: ScheduleRecord,
  now: Date,
): Promise<void> {
  const due = schedule.nextRunAt ?? now;
  const decision = decideDue(
    schedule.recurrence,
    due,
    now,
    schedule.missedRunPolicy,
    deps.lateAfterMs,
  );
  let failures = schedule.consecutiveFailures;
  let pausedReason: string | null = null;
  if (decision.run === null) {
    await claim.record(schedule.id, {
      occurrenceAt: due,
      ranAt: now,
      outcome: 'skipped',
      scanIds: [],
      errors: [],
      missed: decision.missed,
    });
  } else if (await claim.reserve(schedule.id, decision.run)) {
    const scanIds: string[] = [];
    const errors: { target: string; code: string; message: string }[] = [];
    const scanDeps: CreateScanDeps = { ...deps, scans: claim.scans, templates: claim.templates };
    const caller = {
      tenantId: schedule.tenantId,
      apiKeyId: schedule.apiKeyId,
      allowedScanTypes: schedule.allowedScanTypes,
    };
    for (const target of schedule.targets) {
      const body = {
        ...schedule.scan,
        target,
        ...(schedule.templateId === null ? {} : { templateId: schedule.templateId }),
      };
      try {
        scanIds.push((await createScan(scanDeps, caller, body)).id);
      } catch (error) {
        // A refusal is this occurrence's outcome; anything else rolls the whole claim back.
        if (!(error instanceof ApiError)) {
          throw error;
        }
        errors.push({ target, code: error.code, message: error.message });
      }
    }
    await claim.record(schedule.id, {
      occurrenceAt: decision.run,
      ranAt: now,
      outcome: errors.length === 0 ? 'created' : scanIds.length === 0 ? 'failed' : 'partial',
      scanIds,
      errors,
      missed: decision.missed,
    });
    failures = scanIds.length === 0 ? failures + 1 : 0;
    const [last] = errors;
    if (failures >= deps.maxFailures && last !== undefined) {
      pausedReason = `paused after ${failures} consecutive runs that created no scan; last: ${last.code}: ${last.message}`;
    }
  }
  await claim.advance(schedule.id, {
    nextRunAt: decision.nextRunAt,
    paused: pausedReason !== null,
    pausedReason,
    consecutiveFailures: failures,
  });
}
