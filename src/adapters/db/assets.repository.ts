/** Assets (issue 24) and their verification state. */
import { type Kysely, sql } from 'kysely';
import type { AssetKind } from '../../domain/assets/coverage.js';
import type {
  AssetRecord,
  AssetStore,
  VerificationMethod,
  VerificationStatus,
} from '../../use-cases/ports/assets.js';
import type { AssetRow, Database } from './database.js';
import { insertUnderTenantCap, LIMIT_REACHED } from './tenant-cap.js';

export function toAsset(row: AssetRow): AssetRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    kind: row.kind as AssetKind,
    value: row.value,
    tags: row.tags,
    verificationToken: row.verification_token,
    verificationStatus: row.verification_status as VerificationStatus,
    verificationMethod: row.verification_method as VerificationMethod | null,
    verifiedAt: row.verified_at,
    lastCheckedAt: row.last_checked_at,
    lastCheckError: row.last_check_error,
    proofMissingSince: row.proof_missing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createAssetStore(db: Kysely<Database>): AssetStore {
  const one = (tenantId: string, id: string) =>
    db.selectFrom('assets').selectAll().where('id', '=', id).where('tenant_id', '=', tenantId);
  return {
    async insert(asset, maxAssets) {
      const row = await insertUnderTenantCap(
        db,
        asset.tenantId,
        maxAssets,
        (trx) =>
          trx
            .insertInto('assets')
            .values({
              id: asset.id,
              tenant_id: asset.tenantId,
              name: asset.name,
              kind: asset.kind,
              value: asset.value,
              tags: [...asset.tags],
              verification_token: asset.verificationToken,
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        async (trx) => {
          const held = await trx
            .selectFrom('assets')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('tenant_id', '=', asset.tenantId)
            .executeTakeFirstOrThrow();
          return Number(held.n);
        },
      );
      return row === LIMIT_REACHED ? row : toAsset(row);
    },

    async list(tenantId, page, filter) {
      let base = db.selectFrom('assets').where('tenant_id', '=', tenantId);
      if (filter.tag !== undefined) {
        base = base.where(sql<boolean>`${filter.tag} = any(tags)`);
      }
      const [rows, count] = await Promise.all([
        base
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id')
          .limit(page.limit)
          .offset((page.page - 1) * page.limit)
          .execute(),
        base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { assets: rows.map(toAsset), total: Number(count.n) };
    },

    async get(tenantId, id) {
      const row = await one(tenantId, id).executeTakeFirst();
      return row ? toAsset(row) : null;
    },

    async getById(id) {
      const row = await db.selectFrom('assets').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toAsset(row) : null;
    },

    async claimDueForCheck(now, dueBefore, limit) {
      const rows = await db
        .updateTable('assets')
        .set({ last_checked_at: now })
        .where(
          'id',
          'in',
          db
            .selectFrom('assets')
            .select('id')
            .where('verification_status', '=', 'verified')
            .where('verification_method', '<>', 'admin')
            .where((eb) =>
              eb.or([eb('last_checked_at', 'is', null), eb('last_checked_at', '<', dueBefore)]),
            )
            .orderBy('last_checked_at')
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returningAll()
        .execute();
      return rows.map(toAsset);
    },

    async forTenant(tenantId) {
      const rows = await db
        .selectFrom('assets')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toAsset);
    },

    async update(tenantId, id, fields) {
      const row = await db
        .updateTable('assets')
        .set({ name: fields.name, tags: [...fields.tags], updated_at: sql`now()` })
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .returningAll()
        .executeTakeFirst();
      return row ? toAsset(row) : null;
    },

    async delete(tenantId, id) {
      const result = await db
        .deleteFrom('assets')
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async recordVerification(tenantId, id, outcome) {
      const row = await db
        .updateTable('assets')
        .set({
          verification_status: outcome.status,
          verification_method: outcome.method,
          verified_at: outcome.verifiedAt,
          last_checked_at: outcome.checkedAt,
          last_check_error: outcome.error,
          proof_missing_since: outcome.proofMissingSince,
          updated_at: sql`now()`,
        })
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .returningAll()
        .executeTakeFirst();
      return row ? toAsset(row) : null;
    },
  };
}
