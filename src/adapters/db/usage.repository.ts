/** The counts GET /api/v1/usage reports. */
import { type Kysely, sql } from 'kysely';
import type { UsageStore } from '../../use-cases/ports/usage.js';
import type { Database } from './database.js';
import { triageInEffectIs } from './issues.repository.js';

export function createUsageStore(db: Kysely<Database>): UsageStore {
  return {
    async quotaUsed(tenantId, month) {
      const row = await db
        .selectFrom('tenant_monthly_scans')
        .select('scans')
        .where('tenant_id', '=', tenantId)
        .where('month', '=', sql<Date>`${month}::date`)
        .executeTakeFirst();
      return row?.scans ?? 0;
    },
    async scansBetween(tenantId, start, end) {
      const rows = await db
        .selectFrom('scans')
        .select(['status', 'scan_type', (eb) => eb.fn.countAll<string>().as('n')])
        .where('tenant_id', '=', tenantId)
        .where('created_at', '>=', start)
        .where('created_at', '<', end)
        // Sentinel children are parts of the scan the tenant asked for, not scans of their own.
        .where('parent_scan_id', 'is', null)
        .groupBy(['status', 'scan_type'])
        .execute();
      const byStatus: Record<string, number> = {};
      const byScanType: Record<string, number> = {};
      for (const row of rows) {
        byStatus[row.status] = (byStatus[row.status] ?? 0) + Number(row.n);
        byScanType[row.scan_type] = (byScanType[row.scan_type] ?? 0) + Number(row.n);
      }
      return { byStatus, byScanType };
    },
    async scansPerDay(tenantId, start, end) {
      const rows = await db
        .selectFrom('scans')
        .select([
          sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`.as('date'),
          'status',
          (eb) => eb.fn.countAll<string>().as('n'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('created_at', '>=', start)
        .where('created_at', '<', end)
        .where('parent_scan_id', 'is', null)
        .groupBy([sql`1`, 'status'])
        .execute();
      return rows.map((row) => ({ date: row.date, status: row.status, count: Number(row.n) }));
    },
    async openIssuesBySeverity(tenantId, now) {
      const rows = await db
        .selectFrom('issues')
        .select(['severity', (eb) => eb.fn.countAll<string>().as('n')])
        .where('tenant_id', '=', tenantId)
        .where('status', 'in', ['open', 'reopened'])
        .where(triageInEffectIs('none', now))
        .groupBy('severity')
        .execute();
      return Object.fromEntries(rows.map((row) => [row.severity, Number(row.n)]));
    },
  };
}
