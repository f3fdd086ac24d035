/**
 * Usage over time (an extension, GET /api/v1/usage/daily): the tenant's scans per UTC day over the
 * last `days` days, today included, oldest first, every day present (zero when nothing ran). Pure:
 * the clock and the counts are passed in.
 */
import { SCAN_STATUSES, type ScanStatus } from '../scans/status-machine.js';

/** Days the series may cover: a day to a year. */
export const MIN_USAGE_DAYS = 1;
export const MAX_USAGE_DAYS = 366;
export const DEFAULT_USAGE_DAYS = 30;

export interface UsageDays {
  /** 00:00 UTC of the first day. */
  readonly start: Date;
  /** 00:00 UTC of the day after today (exclusive end). */
  readonly end: Date;
  /** Each day as `YYYY-MM-DD`, oldest first. */
  readonly dates: readonly string[];
}

const DAY_MS = 86_400_000;

/** The `days` UTC days that end with `now`'s. */
export function usageDays(now: Date, days: number): UsageDays {
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const start = end - days * DAY_MS;
  const dates = Array.from({ length: days }, (_, index) =>
    new Date(start + index * DAY_MS).toISOString().slice(0, 10),
  );
  return { start: new Date(start), end: new Date(end), dates };
}

/** One count of the store: scans created on `date` (`YYYY-MM-DD`, UTC) now in `status`. */
export interface DailyCount {
  readonly date: string;
  readonly status: string;
  readonly count: number;
}

export interface UsageDay {
  readonly date: string;
  readonly total: number;
  readonly byStatus: Readonly<Record<ScanStatus, number>>;
}

/** The series over `dates`: every day and every status present, zero where nothing was counted. */
export function dailyUsage(dates: readonly string[], counts: readonly DailyCount[]): UsageDay[] {
  const byDate = new Map<string, Map<string, number>>();
  for (const { date, status, count } of counts) {
    const day = byDate.get(date) ?? new Map<string, number>();
    day.set(status, (day.get(status) ?? 0) + count);
    byDate.set(date, day);
  }
  return dates.map((date) => {
    const day = byDate.get(date);
    const byStatus = Object.fromEntries(
      SCAN_STATUSES.map((status) => [status, day?.get(status) ?? 0]),
    ) as Record<ScanStatus, number>;
    const total = Object.values(byStatus).reduce((sum, n) => sum + n, 0);
    return { date, total, byStatus };
  });
}
