import type { Kysely } from 'kysely';
import type { Tenant, TenantStore } from '../../use-cases/ports/tenants.js';
import type { Database, TenantRow } from './database.js';

function toTenant(row: Pick<TenantRow, 'id' | 'status' | 'monthly_scan_quota'>): Tenant {
  return { id: row.id, status: row.status, monthlyScanQuota: row.monthly_scan_quota };
}

/** Tenants in PostgreSQL / PGlite. */
export function createTenantStore(db: Kysely<Database>): TenantStore {
  const columns = ['id', 'status', 'monthly_scan_quota'] as const;
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
    async setStatus(id, status) {
      const row = await db
        .updateTable('tenants')
        .set({ status, updated_at: new Date() })
        .where('id', '=', id)
        .returning(columns)
        .executeTakeFirst();
      return row ? toTenant(row) : null;
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
  };
}
