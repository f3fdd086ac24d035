import { type Kysely, sql } from 'kysely';
import type { ApiKeyRecord, ApiKeyStore, NewApiKey } from '../../use-cases/ports.js';
import type { ApiKeyRow, Database } from './database.js';

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    keyHash: row.key_hash,
    keyPrefix: row.key_prefix,
    scopes: row.scopes,
    allowedScanTypes: row.allowed_scan_types,
    allowedIpAddresses: row.allowed_ip_addresses,
    rateLimitPerMinute: row.rate_limit_per_minute,
    rateLimitPerHour: row.rate_limit_per_hour,
    rateLimitPerDay: row.rate_limit_per_day,
    rateLimitBucket: row.rate_limit_bucket,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    revokedReason: row.revoked_reason,
    suspendedAt: row.suspended_at,
    rotatedToKeyId: row.rotated_to_key_id,
    rotatedFromKeyId: row.rotated_from_key_id,
  };
}

function toRow(key: NewApiKey) {
  return {
    id: key.id,
    tenant_id: key.tenantId,
    name: key.name,
    description: key.description,
    key_hash: key.keyHash,
    key_prefix: key.keyPrefix,
    scopes: [...key.scopes],
    allowed_scan_types: [...key.allowedScanTypes],
    allowed_ip_addresses: [...key.allowedIpAddresses],
    rate_limit_per_minute: key.rateLimitPerMinute,
    rate_limit_per_hour: key.rateLimitPerHour,
    rate_limit_per_day: key.rateLimitPerDay,
    rate_limit_bucket: key.rateLimitBucket,
    expires_at: key.expiresAt,
    created_at: key.createdAt,
    created_by: key.createdBy,
    rotated_from_key_id: key.rotatedFromKeyId,
  };
}

/** API keys in PostgreSQL / PGlite. Only the SHA-256 of a raw key ever reaches this table. */
export function createApiKeyStore(db: Kysely<Database>): ApiKeyStore {
  return {
    async insert(key) {
      const row = await db
        .insertInto('api_keys')
        .values(toRow(key))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toApiKeyRecord(row);
    },

    async findForAuth(keyHash) {
      // The hot path of every API-key request: one indexed lookup (unique key_hash), joined with
      // the tenant and stamped with the database clock, in a single round trip.
      const row = await db
        .selectFrom('api_keys as k')
        .innerJoin('tenants as t', 't.id', 'k.tenant_id')
        .selectAll('k')
        .select(['t.status as tenant_status', sql<Date>`now()`.as('db_now')])
        .where('k.key_hash', '=', keyHash)
        .executeTakeFirst();
      if (!row) {
        return null;
      }
      const { tenant_status, db_now, ...key } = row;
      return { key: toApiKeyRecord(key), tenantStatus: tenant_status, now: db_now };
    },

    async findById(tenantId, id) {
      let query = db.selectFrom('api_keys').selectAll().where('id', '=', id);
      if (tenantId !== null) {
        query = query.where('tenant_id', '=', tenantId);
      }
      const row = await query.executeTakeFirst();
      return row ? toApiKeyRecord(row) : null;
    },

    async list(tenantId) {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute();
      return rows.map(toApiKeyRecord);
    },

    async revoke(tenantId, id, reason) {
      await db
        .updateTable('api_keys')
        .set({ revoked_at: sql`now()`, revoked_reason: reason })
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .where('revoked_at', 'is', null)
        .execute();
      return this.findById(tenantId, id);
    },

    async setSuspended(id, suspended) {
      const row = await db
        .updateTable('api_keys')
        .set({ suspended_at: suspended ? sql`coalesce(suspended_at, now())` : null })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toApiKeyRecord(row) : null;
    },

    async rotate(tenantId, id, plan) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('api_keys')
          .selectAll()
          .where('id', '=', id)
          .where('tenant_id', '=', tenantId)
          .forUpdate()
          .executeTakeFirst();
        if (!row) {
          return { ok: false as const, reason: 'not-found' };
        }
        const { now } = await sql<{ now: Date }>`select now() as now`
          .execute(trx)
          .then((r) => r.rows[0] ?? { now: new Date() });
        const decision = plan(toApiKeyRecord(row), now);
        if (!decision.ok) {
          return { ok: false as const, reason: decision.reason };
        }
        const inserted = await trx
          .insertInto('api_keys')
          .values(toRow(decision.successor))
          .returningAll()
          .executeTakeFirstOrThrow();
        const previous = await trx
          .updateTable('api_keys')
          .set({ rotated_to_key_id: inserted.id, expires_at: decision.oldKeyExpiresAt })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return {
          ok: true as const,
          key: toApiKeyRecord(inserted),
          previous: toApiKeyRecord(previous),
          now,
        };
      });
    },

    async touchLastUsed(id) {
      await db
        .updateTable('api_keys')
        .set({ last_used_at: sql`now()` })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('last_used_at', 'is', null),
            eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
          ]),
        )
        .execute();
    },

    async now() {
      const result = await sql<{ now: Date }>`select now() as now`.execute(db);
      return result.rows[0]?.now ?? new Date();
    },
  };
}
