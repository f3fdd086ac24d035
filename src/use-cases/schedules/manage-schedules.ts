/** Schedules: create, list, get, change, delete (each behind its scope, by the route). */
import { ApiError } from '../../domain/errors.js';
import { nextOccurrence } from '../../domain/schedules/recurrence.js';
import type { Clock, IdSource, Page } from '../ports/common.js';
import type { ScheduleRecord, ScheduleRun, ScheduleStore } from '../ports/schedules.js';
import type { CreateScanDeps, ScanCaller } from '../scans/create-scan.js';
import { pagination } from '../scans/scan-view.js';
import { scheduleFieldsFrom } from './validate-schedule.js';

/** Runs shown with a schedule, newest first. */
export const LAST_RUNS_SHOWN = 10;

export interface ScheduleDeps
  extends Pick<CreateScanDeps, 'templates' | 'allowPrivateTargets' | 'assets'> {
  readonly schedules: ScheduleStore;
  readonly ids: IdSource;
  readonly clock: Clock;
  /** TENANT_MAX_SCHEDULES: schedules one tenant may have. */
  readonly maxSchedules: number;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export function toRunView(run: ScheduleRun) {
  return {
    occurrenceAt: run.occurrenceAt.toISOString(),
    ranAt: run.ranAt.toISOString(),
    outcome: run.outcome,
    scanIds: [...run.scanIds],
    errors: run.errors.map((error) => ({ ...error })),
    missed: run.missed,
  };
}

export function toScheduleView(schedule: ScheduleRecord, runs: readonly ScheduleRun[]) {
  const { recurrence } = schedule;
  return {
    id: schedule.id,
    name: schedule.name,
    description: schedule.description,
    scan: { ...schedule.scan },
    templateId: schedule.templateId,
    targets: [...schedule.targets],
    assetIds: schedule.assetIds === null ? null : [...schedule.assetIds],
    assetTag: schedule.assetTag,
    cron: recurrence.kind === 'cron' ? recurrence.cron : null,
    timeZone: recurrence.kind === 'cron' ? recurrence.timeZone : null,
    intervalSeconds: recurrence.kind === 'interval' ? recurrence.intervalSeconds : null,
    missedRunPolicy: schedule.missedRunPolicy,
    paused: schedule.paused,
    pausedReason: schedule.pausedReason,
    consecutiveFailures: schedule.consecutiveFailures,
    nextRunAt: iso(schedule.nextRunAt),
    lastRuns: runs.map(toRunView),
    createdAt: schedule.createdAt.toISOString(),
    updatedAt: schedule.updatedAt.toISOString(),
  };
}

async function view(schedules: ScheduleStore, schedule: ScheduleRecord) {
  return toScheduleView(schedule, await schedules.lastRuns(schedule.id, LAST_RUNS_SHOWN));
}

export async function createSchedule(deps: ScheduleDeps, caller: ScanCaller, body: unknown) {
  const now = deps.clock.now();
  const fields = await scheduleFieldsFrom(deps, caller, body, null, now);
  const created = await deps.schedules.insert(
    {
      ...fields,
      id: deps.ids.uuid(),
      tenantId: caller.tenantId,
      apiKeyId: caller.apiKeyId,
      allowedScanTypes: caller.allowedScanTypes,
      nextRunAt: nextOccurrence(fields.recurrence, now),
      pausedReason: null,
      consecutiveFailures: 0,
    },
    deps.maxSchedules,
  );
  if (created === 'limit-reached') {
    throw new ApiError('TENANT_LIMIT_REACHED', {
      limit: deps.maxSchedules,
      resource: 'schedules',
    });
  }
  return { schedule: toScheduleView(created, []) };
}

export async function listSchedules(schedules: ScheduleStore, tenantId: string, page: Page) {
  const found = await schedules.list(tenantId, page);
  return {
    schedules: await Promise.all(found.schedules.map((schedule) => view(schedules, schedule))),
    pagination: pagination(page.page, page.limit, found.total),
  };
}

async function existing(schedules: ScheduleStore, tenantId: string, id: string) {
  const schedule = await schedules.get(tenantId, id.toLowerCase());
  if (schedule === null) {
    throw new ApiError('SCHEDULE_NOT_FOUND');
  }
  return schedule;
}

export async function getSchedule(schedules: ScheduleStore, tenantId: string, id: string) {
  return { schedule: await view(schedules, await existing(schedules, tenantId, id)) };
}

/**
 * A change is made with the caller's rights: the schedule's scans then run as its key. A new
 * recurrence, and resuming a paused schedule, count the next run from now (pausing is not an
 * outage: resuming never runs what passed meanwhile); resuming clears the failures and the reason.
 */
export async function updateSchedule(
  deps: ScheduleDeps,
  caller: ScanCaller,
  id: string,
  body: unknown,
) {
  const current = await existing(deps.schedules, caller.tenantId, id);
  const now = deps.clock.now();
  const fields = await scheduleFieldsFrom(deps, caller, body, current, now);
  const resumed = current.paused && !fields.paused;
  const newRecurrence = JSON.stringify(fields.recurrence) !== JSON.stringify(current.recurrence);
  const updated = await deps.schedules.update(caller.tenantId, current.id, {
    ...fields,
    apiKeyId: caller.apiKeyId,
    allowedScanTypes: caller.allowedScanTypes,
    nextRunAt:
      resumed || newRecurrence ? nextOccurrence(fields.recurrence, now) : current.nextRunAt,
    pausedReason: fields.paused ? current.pausedReason : null,
    consecutiveFailures: resumed ? 0 : current.consecutiveFailures,
  });
  if (updated === null) {
    throw new ApiError('SCHEDULE_NOT_FOUND');
  }
  return { schedule: await view(deps.schedules, updated) };
}

/** Deleting a schedule keeps the scans it created. */
export async function deleteSchedule(schedules: ScheduleStore, tenantId: string, id: string) {
  if (!(await schedules.delete(tenantId, id.toLowerCase()))) {
    throw new ApiError('SCHEDULE_NOT_FOUND');
  }
  return { id: id.toLowerCase(), deleted: true as const };
}
