/**
 * Counts for GET /api/v1/usage.
 */
import type { Severity } from '../../domain/findings/finding.js';
import type { DailyCount } from '../../domain/usage/daily-usage.js';

export interface UsageStore {
  /** Scans counted against the quota in the month `YYYY-MM-01`. */
  quotaUsed(tenantId: string, month: string): Promise<number>;
  /** The tenant's scans created in [start, end), by status and by engine. */
  scansBetween(
    tenantId: string,
    start: Date,
    end: Date,
  ): Promise<{ byStatus: Record<string, number>; byScanType: Record<string, number> }>;
  /**
   * The tenant's scans created in [start, end) per UTC day (`YYYY-MM-DD`) and status (sentinel
   * children left out, as in scansBetween); days and statuses without scans are absent.
   */
  scansPerDay(tenantId: string, start: Date, end: Date): Promise<DailyCount[]>;
  /**
   * The tenant's issues that are open or reopened and untriaged (triage in effect at `now` is
   * none), by severity; severities without any are absent.
   */
  openIssuesBySeverity(tenantId: string, now: Date): Promise<Partial<Record<Severity, number>>>;
}
