/**
 * The schedule form as data: what the form holds, the body of POST/PATCH /api/v1/schedules it
 * makes, the draft an existing schedule gives for editing, and how a recurrence reads. The API
 * validates the cron expression, the interval's range and the scan; the page shows its error.
 */
import type { operations } from '../../../src/client/index.js';

export type Schedule =
  operations['getSchedule']['responses'][200]['content']['application/json']['data']['schedule'];
export type ScheduleBody =
  operations['createSchedule']['requestBody']['content']['application/json'];

export type ScheduleSource = 'targets' | 'assets' | 'tag';
export type Recurrence = 'cron' | 'interval';

export interface ScheduleDraft {
  readonly name: string;
  readonly source: ScheduleSource;
  /** One target a line. */
  readonly targets: string;
  readonly assetIds: readonly string[];
  readonly assetTag: string;
  /** '' for no template. */
  readonly templateId: string;
  /** The scan's engine; '' when the template gives it. */
  readonly scanType: string;
  readonly recurrence: Recurrence;
  readonly cron: string;
  readonly timeZone: string;
  /** Minutes, as typed. */
  readonly intervalMinutes: string;
  readonly missedRunPolicy: 'skip' | 'run_once';
}

export const EMPTY_DRAFT: ScheduleDraft = {
  name: '',
  source: 'targets',
  targets: '',
  assetIds: [],
  assetTag: '',
  templateId: '',
  scanType: 'nmap',
  recurrence: 'cron',
  cron: '0 3 * * *',
  timeZone: 'UTC',
  intervalMinutes: '60',
  missedRunPolicy: 'skip',
};

/** The lines of a text area, trimmed, without blanks or repeats. */
export function linesOf(text: string): string[] {
  return [...new Set(text.split('\n').map((line) => line.trim()))].filter((line) => line !== '');
}

/**
 * The body a draft makes. Exactly one source of targets and one recurrence are sent, the others
 * set to null (so an edit that switches from cron to an interval clears the cron). The scan holds
 * the engine unless a template gives it; an interval that is not a number is sent as null, for the
 * API to refuse with its own message.
 */
export function scheduleBody(draft: ScheduleDraft): ScheduleBody {
  const minutes = Number(draft.intervalMinutes.trim());
  const scanType = draft.scanType.trim();
  const templateId = draft.templateId.trim();
  return {
    name: draft.name.trim(),
    missedRunPolicy: draft.missedRunPolicy,
    templateId: templateId === '' ? null : templateId,
    scan: scanType === '' ? null : { scanType },
    targets: draft.source === 'targets' ? linesOf(draft.targets) : null,
    assetIds: draft.source === 'assets' ? [...draft.assetIds] : null,
    assetTag: draft.source === 'tag' ? draft.assetTag.trim() : null,
    cron: draft.recurrence === 'cron' ? draft.cron.trim() : null,
    timeZone: draft.recurrence === 'cron' ? draft.timeZone.trim() || null : null,
    intervalSeconds:
      draft.recurrence === 'interval'
        ? Number.isFinite(minutes) && draft.intervalMinutes.trim() !== ''
          ? Math.round(minutes * 60)
          : null
        : null,
  };
}

/** The form's draft for an existing schedule. */
export function draftFromSchedule(schedule: Schedule): ScheduleDraft {
  const scanType = schedule.scan.scanType;
  return {
    name: schedule.name,
    source: schedule.assetIds !== null ? 'assets' : schedule.assetTag !== null ? 'tag' : 'targets',
    targets: schedule.targets.join('\n'),
    assetIds: schedule.assetIds ?? [],
    assetTag: schedule.assetTag ?? '',
    templateId: schedule.templateId ?? '',
    scanType: typeof scanType === 'string' ? scanType : '',
    recurrence: schedule.intervalSeconds !== null ? 'interval' : 'cron',
    cron: schedule.cron ?? EMPTY_DRAFT.cron,
    timeZone: schedule.timeZone ?? 'UTC',
    intervalMinutes:
      schedule.intervalSeconds === null ? '60' : String(schedule.intervalSeconds / 60),
    missedRunPolicy: schedule.missedRunPolicy,
  };
}

/** An interval in words: "every 90 seconds", "every 15 minutes", "every 2 hours", "every 1 day". */
export function describeInterval(seconds: number): string {
  const units: readonly [string, number][] = [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ];
  const [unit, size] = units.find(([, size]) => seconds % size === 0) ?? ['second', 1];
  const count = seconds / size;
  return `every ${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** A schedule's recurrence in words: its cron expression with its zone, or its interval. */
export function describeRecurrence(
  schedule: Pick<Schedule, 'cron' | 'timeZone' | 'intervalSeconds'>,
): string {
  if (schedule.intervalSeconds !== null) {
    return describeInterval(schedule.intervalSeconds);
  }
  return schedule.cron === null ? '—' : `cron ${schedule.cron} (${schedule.timeZone ?? 'UTC'})`;
}

/** What a schedule scans, in words. */
export function describeSource(
  schedule: Pick<Schedule, 'targets' | 'assetIds' | 'assetTag'>,
): string {
  if (schedule.assetIds !== null) {
    return `${schedule.assetIds.length} asset${schedule.assetIds.length === 1 ? '' : 's'}`;
  }
  if (schedule.assetTag !== null) {
    return `assets tagged ${schedule.assetTag}`;
  }
  return schedule.targets.join(', ');
}
