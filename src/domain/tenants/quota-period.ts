/**
 * The monthly scan quota's period: the UTC calendar month (specification, Limits: it resets on the
 * 1st of each month at 00:00 UTC). Pure: the clock is passed in.
 */
export interface QuotaPeriod {
  /** The 1st of the month, 00:00 UTC. */
  readonly start: Date;
  /** The 1st of the next month, 00:00 UTC: when the count resets (exclusive end). */
  readonly end: Date;
  /** `YYYY-MM-01`, the key the month's count is stored under. */
  readonly key: string;
}

export function quotaPeriod(now: Date): QuotaPeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end, key: start.toISOString().slice(0, 10) };
}

/** What is left of a quota of `limit` after `used` scans (never negative). */
export function quotaRemaining(limit: number, used: number): number {
  return Math.max(0, limit - used);
}
