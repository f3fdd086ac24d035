/**
 * Counts for GET /api/v1/usage.
 */
export interface UsageStore {
  /** Scans counted against the quota in the month `YYYY-MM-01`. */
  quotaUsed(tenantId: string, month: string): Promise<number>;
  /** The tenant's scans created in [start, end), by status and by engine. */
  scansBetween(
    tenantId: string,
    start: Date,
    end: Date,
  ): Promise<{ byStatus: Record<string, number>; byScanType: Record<string, number> }>;
}
