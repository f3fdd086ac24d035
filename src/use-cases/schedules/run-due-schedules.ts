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
 * process simply claims it again. The price: the transaction holds the claimed schedules' rows
 * while their target names resolve (TARGET_NOT_ALLOWED checks); those lookups are all made before
 * the first scan is stored, so the tenant's quota row (locked by a scan insert until commit) is
 * never held across one, and POST /scans of the same tenant waits only for the claim's writes.
 *
 * One schedule's unexpected error (not a refusal: a database error, a bug) must not roll back the
 * others' scans on every poll: the scans are created in savepoints (createOccurrences), and a
 * schedule whose scans cannot be stored has its own rolled back and its run recorded as failed.
 */
import { ApiError } from '../../domain/errors.js';
import { decideDue } from '../../domain/schedules/recurrence.js';
import type {
  ScheduleClaim,
  ScheduleClaimer,
  ScheduleRecord,
  ScheduleRun,
  ScheduleRunError,
  ScheduleState,
} from '../ports/schedules.js';
import { type CreateScanDeps, checkScanRequest, createScan } from '../scans/create-scan.js';
import {
  type ScheduledTarget,
  type ScheduledTargets,
  scheduledTargets,
} from './scheduled-targets.js';

export interface RunSchedulesDeps extends Omit<CreateScanDeps, 'scans' | 'templates' | 'assets'> {
  readonly claimer: ScheduleClaimer;
  /** An occurrence claimed later than this after its time counts as missed (SCHEDULE_LATE_AFTER_MS). */
  readonly lateAfterMs: number;
  /** Consecutive runs that create no scan before the schedule pauses (SCHEDULE_MAX_FAILURES). */
  readonly maxFailures: number;
  /** Schedules per claim (one transaction). */
  readonly batchSize: number;
  /**
   * Told of a schedule whose scans met an unexpected error (rolled back, the run recorded as
   * failed with RUN_FAILED_UNEXPECTEDLY): the place for the error itself is the service's log.
   */
  readonly reportRunError: (schedule: ScheduleRecord, error: unknown) => void;
}

/** Runs one claim; resolves to how many schedules it claimed (batchSize: more may be due). */
export async function runDueSchedules(deps: RunSchedulesDeps): Promise<number> {
  const now = deps.clock.now();
  // Read before the claim: inside it the transaction is the only connection to use (PGlite).
  const runnable = await deps.workers.runnableEngines();
  const workers = { runnableEngines: async () => runnable };
  return deps.claimer.claimDue(now, deps.batchSize, async (claim) => {
    const decided = await decideClaim(deps, claim, now);
    // The lookups first (targets' names, callback hosts): the first scan stored locks the
    // tenant's quota row until commit, and no lookup should be waited for while it is held.
    const lookups = await lookUpFirst(deps, claim, decided);
    await runClaim({ ...deps, ...lookups, workers }, claim, decided, now);
  });
}

/** A claimed schedule, its missed-run decision, and what its occurrence scans (if it runs). */
interface Decided {
  readonly schedule: ScheduleRecord;
  readonly due: Date;
  readonly decision: ReturnType<typeof decideDue>;
  /** null when the occurrence does not run (skipped). */
  readonly scheduled: ScheduledTargets | null;
}

/**
 * Each claimed schedule decided by its missed-run policy; the assets of those that run are read
 * in the claim's transaction (a tag is resolved now, so assets tagged since are included).
 */
async function decideClaim(
  deps: RunSchedulesDeps,
  claim: ScheduleClaim,
  now: Date,
): Promise<Decided[]> {
  const decided: Decided[] = [];
  for (const schedule of claim.schedules) {
    const due = schedule.nextRunAt ?? now;
    const decision = decideDue(
      schedule.recurrence,
      due,
      now,
      schedule.missedRunPolicy,
      deps.lateAfterMs,
    );
    const scheduled =
      decision.run === null
        ? null
        : await scheduledTargets(claim.assets, schedule.tenantId, schedule);
    decided.push({ schedule, due, decision, scheduled });
  }
  return decided;
}

/** Every scan body of the claimed schedules' occurrences that will run. */
function* bodiesOf(decided: readonly Decided[]) {
  for (const { schedule, scheduled } of decided) {
    for (const one of scheduled?.targets ?? []) {
      yield { schedule, body: scanBody(schedule, one) };
    }
  }
}

/**
 * Resolves the claim's target names and callback URLs once, before anything is stored, and
 * answers createScan's checks from those results. An unexpected error (not a refusal) ends the
 * lookups, in a savepoint so that a failed read leaves the claim's transaction usable: the
 * checks not made yet are made by createScan itself, and the failed one fails again there, inside
 * its schedule's savepoint (createOccurrences), so that it fails that schedule alone.
 */
async function lookUpFirst(
  deps: RunSchedulesDeps,
  claim: ScheduleClaim,
  decided: readonly Decided[],
): Promise<Pick<CreateScanDeps, 'resolver' | 'urls'>> {
  const targets = new Map<string, ReturnType<CreateScanDeps['resolver']['check']>>();
  const urls = new Map<string, ReturnType<CreateScanDeps['urls']['check']>>();
  await claim.isolate(async () => {
    for (const { schedule, body } of bodiesOf(decided)) {
      try {
        const { request } = await checkScanRequest(
          { templates: claim.templates, allowPrivateTargets: deps.allowPrivateTargets },
          callerOf(schedule),
          body,
        );
        const resolves =
          deps.allowPrivateTargets !== true &&
          !request.target.hostIsAddress &&
          request.target.host !== null;
        if (resolves && !targets.has(request.target.value)) {
          const checked = deps.resolver.check(request.target, deps.allowPrivateTargets);
          targets.set(request.target.value, checked);
          await checked;
        }
        if (request.callbackUrl !== null && !urls.has(request.callbackUrl)) {
          const checked = deps.urls.check(request.callbackUrl);
          urls.set(request.callbackUrl, checked);
          await checked;
        }
      } catch (error) {
        // A refusal is answered again, and recorded, when the scan is created.
        if (!(error instanceof ApiError)) {
          throw error;
        }
      }
    }
  });
  return {
    resolver: {
      check: (target, policy) => targets.get(target.value) ?? deps.resolver.check(target, policy),
    },
    urls: { check: (url) => urls.get(url) ?? deps.urls.check(url) },
  };
}

function callerOf(schedule: ScheduleRecord) {
  return {
    tenantId: schedule.tenantId,
    apiKeyId: schedule.apiKeyId,
    allowedScanTypes: schedule.allowedScanTypes,
  };
}

function scanBody(schedule: ScheduleRecord, one: ScheduledTarget): Record<string, unknown> {
  return {
    ...schedule.scan,
    target: one.target,
    ...(one.assetId === null ? {} : { assetId: one.assetId }),
    ...(schedule.templateId === null ? {} : { templateId: schedule.templateId }),
  };
}

/** What each target of an occurrence made: a scan, or the refusal recorded in the run. */
type Made = readonly { readonly id: string | null; readonly error: ScheduleRunError | null }[];

/**
 * The scans of one occurrence, one per target (concurrently: the scan store batches a tenant's
 * inserts into one statement). A refusal (an ApiError) is that target's outcome; any other error
 * is thrown once every target's create has settled, so no statement is in flight after it.
 */
async function createOccurrence(
  scanDeps: CreateScanDeps,
  schedule: ScheduleRecord,
  scheduled: ScheduledTargets,
): Promise<Made> {
  const settled = await Promise.allSettled(
    scheduled.targets.map((one) =>
      createScan(scanDeps, callerOf(schedule), scanBody(schedule, one)),
    ),
  );
  const unexpected = settled.find(
    (result) => result.status === 'rejected' && !(result.reason instanceof ApiError),
  );
  if (unexpected?.status === 'rejected') {
    throw unexpected.reason;
  }
  return settled.map((result, index) => {
    if (result.status === 'fulfilled') {
      return { id: result.value.id, error: null };
    }
    const one = scheduled.targets[index];
    const error = result.reason as ApiError;
    return {
      id: null,
      error: {
        target: one?.target ?? null,
        ...(one === undefined || one.assetId === null ? {} : { assetId: one.assetId }),
        code: error.code,
        message: error.message,
      },
    };
  });
}

/** An occurrence whose scans are to be created now. */
interface Running {
  readonly schedule: ScheduleRecord;
  readonly scheduled: ScheduledTargets;
}

/**
 * The scans of every occurrence that runs, by schedule id; null for a schedule whose scans met an
 * unexpected error (a database error other than unavailability, a bug): none of its scans is
 * kept. All occurrences go together first, in one savepoint, so that a tenant's inserts stay
 * batched. When that fails, the savepoint is rolled back and each occurrence goes again alone,
 * in a savepoint of its own: the failing one is rolled back, and the others commit with the claim.
 */
async function createOccurrences(
  deps: RunSchedulesDeps,
  claim: ScheduleClaim,
  scanDeps: CreateScanDeps,
  running: readonly Running[],
): Promise<Map<string, Made | null>> {
  const made = new Map<string, Made | null>();
  if (running.length > 1) {
    const together = await claim.isolate(async () => {
      const settled = await Promise.allSettled(
        running.map(({ schedule, scheduled }) => createOccurrence(scanDeps, schedule, scheduled)),
      );
      return settled.map((result) => {
        if (result.status === 'rejected') {
          throw result.reason;
        }
        return result.value;
      });
    });
    if (together.ok) {
      running.forEach(({ schedule }, index) => {
        made.set(schedule.id, together.value[index] ?? null);
      });
      return made;
    }
  }
  for (const { schedule, scheduled } of running) {
    const alone = await claim.isolate(() => createOccurrence(scanDeps, schedule, scheduled));
    if (!alone.ok) {
      deps.reportRunError(schedule, alone.error);
    }
    made.set(schedule.id, alone.ok ? alone.value : null);
  }
  return made;
}

/**
 * What a run whose scans met an unexpected error records: never the error's own text (a database
 * message can name tables, constraints and values); the service logs it (reportRunError).
 */
export const RUN_FAILED_UNEXPECTEDLY: ScheduleRunError = {
  target: null,
  code: 'INTERNAL_ERROR',
  message:
    'Internal error: the scans of this run could not be stored, and none was created; the service logged why',
};

/**
 * Every claimed schedule decided, the occurrences to run reserved in one statement, their scans
 * created (createOccurrences), then the runs and the next run times written in one statement
 * each.
 */
async function runClaim(
  deps: RunSchedulesDeps,
  claim: ScheduleClaim,
  decided: readonly Decided[],
  now: Date,
): Promise<void> {
  const reserved = await claim.reserve(
    decided.flatMap(({ schedule, decision }) =>
      decision.run === null ? [] : [{ scheduleId: schedule.id, occurrenceAt: decision.run }],
    ),
  );
  const scanDeps: CreateScanDeps = {
    ...deps,
    scans: claim.scans,
    templates: claim.templates,
    assets: claim.assets,
  };
  const made = await createOccurrences(
    deps,
    claim,
    scanDeps,
    decided.flatMap(({ schedule, decision, scheduled }) =>
      decision.run !== null && reserved.has(schedule.id) && scheduled !== null
        ? [{ schedule, scheduled }]
        : [],
    ),
  );
  const outcomes = decided.map(({ schedule, due, decision, scheduled }) => {
    let failures = schedule.consecutiveFailures;
    let pausedReason: string | null = null;
    let run: ScheduleRun | null = null;
    if (decision.run === null) {
      run = {
        occurrenceAt: due,
        ranAt: now,
        outcome: 'skipped',
        scanIds: [],
        errors: [],
        missed: decision.missed,
      };
    } else if (made.has(schedule.id) && scheduled !== null) {
      const targets = made.get(schedule.id) ?? null;
      const scanIds = (targets ?? []).flatMap((one) => (one.id === null ? [] : [one.id]));
      // An asset gone or a tag on no asset is an error of the run too, first (after the
      // unexpected error that kept every scan of the run).
      const errors =
        targets === null
          ? [RUN_FAILED_UNEXPECTEDLY, ...scheduled.errors]
          : [
              ...scheduled.errors,
              ...targets.flatMap((one) => (one.error === null ? [] : [one.error])),
            ];
      run = {
        occurrenceAt: decision.run,
        ranAt: now,
        outcome: errors.length === 0 ? 'created' : scanIds.length === 0 ? 'failed' : 'partial',
        scanIds,
        errors,
        missed: decision.missed,
      };
      failures = scanIds.length === 0 ? failures + 1 : 0;
      const [last] = errors;
      if (failures >= deps.maxFailures && last !== undefined) {
        pausedReason = `paused after ${failures} consecutive runs that created no scan; last: ${last.code}: ${last.message}`;
      }
    }
    const state: ScheduleState = {
      nextRunAt: decision.nextRunAt,
      paused: pausedReason !== null,
      pausedReason,
      consecutiveFailures: failures,
    };
    return { scheduleId: schedule.id, run, state };
  });
  await claim.record(
    outcomes.flatMap(({ scheduleId, run }) => (run === null ? [] : [{ scheduleId, run }])),
  );
  await claim.advance(outcomes.map(({ scheduleId, state }) => ({ scheduleId, state })));
}
