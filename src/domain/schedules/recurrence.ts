/**
 * When a schedule fires: a five-field cron expression read in an IANA time zone (croner), or a
 * fixed interval counted from an anchor. Pure: the caller passes "now".
 *
 * Daylight-saving changes follow croner: a wall-clock time that does not exist on the day clocks
 * go forward (02:30 in Europe/Berlin on the last Sunday of March) fires at the first minute that
 * does (03:00 local); a time that happens twice when clocks go back fires once.
 */
import { Cron } from 'croner';

export type Recurrence =
  | { readonly kind: 'cron'; readonly cron: string; readonly timeZone: string }
  | { readonly kind: 'interval'; readonly intervalSeconds: number; readonly anchor: Date };

/** What happens to occurrences that passed while no scheduler ran (or the schedule was paused). */
export type MissedRunPolicy = 'skip' | 'run_once';
export const MISSED_RUN_POLICIES: readonly MissedRunPolicy[] = ['skip', 'run_once'];

/** Why a cron expression or time zone is refused, or null when it is usable. */
export function cronProblem(cron: string, timeZone: string): string | null {
  if (!isTimeZone(timeZone)) {
    return `${timeZone} is not an IANA time zone`;
  }
  try {
    const job = new Cron(cron, { paused: true, timezone: timeZone, mode: '5-part' });
    if (job.nextRun(new Date(0)) === null) {
      return 'the expression never fires';
    }
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
  }
}

export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const MAX_CRON_MS = 8.64e15;

/** The first occurrence strictly after `after`, or null when there is none (never for intervals). */
export function nextOccurrence(recurrence: Recurrence, after: Date): Date | null {
  if (recurrence.kind === 'interval') {
    const step = recurrence.intervalSeconds * 1000;
    const anchor = recurrence.anchor.getTime();
    const since = after.getTime() - anchor;
    const steps = since < 0 ? 0 : Math.floor(since / step) + 1;
    return new Date(anchor + steps * step);
  }
  const job = new Cron(recurrence.cron, {
    paused: true,
    timezone: recurrence.timeZone,
    mode: '5-part',
  });
  const next = job.nextRun(after);
  return next === null || next.getTime() > MAX_CRON_MS ? null : next;
}

/** The last occurrence at or before `at`; `from` (itself an occurrence) when none is later. */
function latestOccurrence(recurrence: Recurrence, from: Date, at: Date): Date {
  if (recurrence.kind === 'interval') {
    const step = recurrence.intervalSeconds * 1000;
    const anchor = recurrence.anchor.getTime();
    const steps = Math.floor((at.getTime() - anchor) / step);
    return new Date(Math.max(from.getTime(), anchor + steps * step));
  }
  const job = new Cron(recurrence.cron, {
    paused: true,
    timezone: recurrence.timeZone,
    mode: '5-part',
  });
  const [previous] = job.previousRuns(1, new Date(at.getTime() + 1));
  return previous !== undefined && previous.getTime() >= from.getTime() ? previous : from;
}

export interface DueDecision {
  /** The occurrence to run now (its scans are created for it), or null: skipped. */
  readonly run: Date | null;
  /** How many due occurrences are not run (skipped, or folded into the one run_once makes). */
  readonly missed: number;
  /** The next occurrence after now (null: the expression never fires again). */
  readonly nextRunAt: Date | null;
}

/**
 * A schedule whose stored next run time `due` has come (`due <= now`). The occurrence `due` is on
 * time while it is the only due one and no more than `lateAfterMs` old; otherwise runs were
 * missed (the schedulers were down, or busy). `skip` runs none of the missed occurrences and
 * waits for the next one; `run_once` runs the latest of them, once. Either way the next run time
 * is the first occurrence after now, so a long outage never makes a burst of scans.
 */
export function decideDue(
  recurrence: Recurrence,
  due: Date,
  now: Date,
  policy: MissedRunPolicy,
  lateAfterMs: number,
): DueDecision {
  const nextRunAt = nextOccurrence(recurrence, now);
  const following = nextOccurrence(recurrence, due);
  const onlyOne = following === null || following.getTime() > now.getTime();
  if (onlyOne && now.getTime() - due.getTime() <= lateAfterMs) {
    return { run: due, missed: 0, nextRunAt };
  }
  const latest = latestOccurrence(recurrence, due, now);
  const dueCount = countBetween(recurrence, due, latest);
  if (policy === 'skip') {
    return { run: null, missed: dueCount, nextRunAt };
  }
  return { run: latest, missed: dueCount - 1, nextRunAt };
}

/** Occurrences from `first` to `last`, both included (counted up to a bound; then the bound). */
function countBetween(recurrence: Recurrence, first: Date, last: Date): number {
  if (recurrence.kind === 'interval') {
    return Math.floor((last.getTime() - first.getTime()) / (recurrence.intervalSeconds * 1000)) + 1;
  }
  let count = 1;
  let at: Date | null = first;
  while (count < 10_000) {
    at = nextOccurrence(recurrence, at);
    if (at === null || at.getTime() > last.getTime()) {
      break;
    }
    count += 1;
  }
  return count;
}
