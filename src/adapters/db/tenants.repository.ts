import type { Kysely } from 'kysely';
import type { Tenant, TenantStore } from '../../use-cases/ports/tenants.js';
import { stopTenantScans } from '../queue/stop-tenant-scans.js';
import type { Database, TenantRow } from './database.js';
import { notify, QUEUE_CHANNEL } from './scan-rows.js';

function toTenant(
  row: Pick<TenantRow, 'id' | 'status' | 'monthly_scan_quota' | 'max_running_scans'>,
): Tenant {
  return {
    id: row.id,
    status: row.status,
    monthlyScanQuota: row.monthly_scan_quota,
    maxRunningScans: row.max_running_scans,
  };
}

/** Tenants in PostgreSQL / PGlite. */
export function createTenantStore(db: Kysely<Database>): TenantStore {
  const columns = ['id', 'status', 'monthly_scan_quota', 'max_running_scans'] as const;
  return {
    async ensure(id, monthlyScanQuota) {
      const existing = await db
        .selectFrom('tenants')
        .select(columns)
        .where('id', '=', id)
        .executeTakeFirst();
      if (existing) {
        return toTenant(existing);
      }
      await db
        .insertInto('tenants')
        .values({ id, status: 'active', monthly_scan_quota: monthlyScanQuota })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      const row = await db
        .selectFrom('tenants')
        .select(columns)
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return toTenant(row);
    },
    async get(id) {
      const row = await db
        .selectFrom('tenants')
        .select(columns)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toTenant(row) : null;
    },
    // Suspending stops the tenant's running scans in the same transaction, after its row (the
    // order is explained in stop-tenant-scans.ts); reinstating wakes the workers for its queue.
    async setStatus(id, status) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('tenants')
          .set({ status, updated_at: new Date() })
          .where('id', '=', id)
          .returning(columns)
          .executeTakeFirst();
        if (row === undefined) {
          return null;
        }
        if (status === 'suspended') {
          return { tenant: toTenant(row), stopped: await stopTenantScans(trx, id) };
        }
        await notify(trx, QUEUE_CHANNEL);
        return { tenant: toTenant(row), stopped: [] };
      });
    },
    async setQuota(id, monthlyScanQuota) {
      const row = await db
        .updateTable('tenants')
        .set({ monthly_scan_quota: monthlyScanQuota, updated_at: new Date() })
        .where('id', '=', id)
        .returning(columns)
        .executeTakeFirst();
      return row ? toTenant(row) : null;
    },
    // A higher cap may let queued scans start: the workers are woken.
    async setMaxRunningScans(id, maxRunningScans) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable('tenants')
          .set({ max_running_scans: maxRunningScans, updated_at: new Date() })
          .where('id', '=', id)
          .returning(columns)
          .executeTakeFirst();
        if (row === undefined) {
          return null;
        }
        await notify(trx, QUEUE_CHANNEL);
        return toTenant(row);
      });
    },
  };
}
