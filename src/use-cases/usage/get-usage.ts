/**
 * GET /api/v1/usage (decisions.md): the UTC month, the quota with what is used and left, the
 * month's scans by status and engine, and for a key caller its limits and what remains in each
 * window, read from the request's own admission (no extra count). An extension: the tenant's
 * open issues (open or reopened, untriaged) by severity.
 */
import { SEVERITIES, type Severity } from '../../domain/findings/finding.js';
import type { RateLimitDecision } from '../../domain/rate-limits/windows.js';
import { SCAN_STATUSES } from '../../domain/scans/status-machine.js';
import { quotaPeriod, quotaRemaining } from '../../domain/tenants/quota-period.js';
import { dailyUsage, usageDays } from '../../domain/usage/daily-usage.js';
import type { ApiKeyRecord } from '../ports/api-keys.js';
import type { Clock } from '../ports/common.js';
import type { TenantStore } from '../ports/tenants.js';
import type { UsageStore } from '../ports/usage.js';

export async function getUsage(
  deps: { readonly usage: UsageStore; readonly tenants: TenantStore; readonly clock: Clock },
  tenantId: string,
  key: { readonly record: ApiKeyRecord; readonly admission: RateLimitDecision | null } | null,
) {
  const now = deps.clock.now();
  const period = quotaPeriod(now);
  const [tenant, used, scans, openIssues] = await Promise.all([
    deps.tenants.get(tenantId),
    deps.usage.quotaUsed(tenantId, period.key),
    deps.usage.scansBetween(tenantId, period.start, period.end),
    deps.usage.openIssuesBySeverity(tenantId, now),
  ]);
  const openBySeverity = Object.fromEntries(
    SEVERITIES.map((severity) => [severity, openIssues[severity] ?? 0]),
  ) as Record<Severity, number>;
  const limit = tenant?.monthlyScanQuota ?? 0;
  const byStatus = Object.fromEntries(
    SCAN_STATUSES.map((status) => [status, scans.byStatus[status] ?? 0]),
  );
  const total = Object.values(byStatus).reduce((sum, n) => sum + n, 0);
  const remainingIn = (name: string) => {
    const window = key?.admission?.windows.find((candidate) => candidate.name === name);
    return window === undefined ? null : Math.max(0, window.limit - window.used);
  };
  return {
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
    quota: {
      limit,
      used,
      remaining: quotaRemaining(limit, used),
      resetsAt: period.end.toISOString(),
    },
    scans: { total, byStatus, byScanType: scans.byScanType },
    // An extension (issue 23): the issues that still need attention, whatever the month.
    issues: {
      open: Object.values(openBySeverity).reduce((sum, n) => sum + n, 0),
      openBySeverity,
    },
    ...(key === null
      ? {}
      : {
          apiKey: {
            id: key.record.id,
            rateLimits: {
              perMinute: key.record.rateLimitPerMinute,
              perHour: key.record.rateLimitPerHour,
              perDay: key.record.rateLimitPerDay,
            },
            remaining: {
              perMinute: remainingIn('minute'),
              perHour: remainingIn('hour'),
              perDay: remainingIn('day'),
            },
          },
        }),
  };
}

/** GET /api/v1/usage/daily (an extension): the tenant's scans per UTC day, the last `days` days. */
export async function getDailyUsage(
  deps: { readonly usage: UsageStore; readonly clock: Clock },
  tenantId: string,
  days: number,
) {
  const range = usageDays(deps.clock.now(), days);
  const counts = await deps.usage.scansPerDay(tenantId, range.start, range.end);
  return {
    period: { start: range.start.toISOString(), end: range.end.toISOString() },
    days: dailyUsage(range.dates, counts),
  };
}
