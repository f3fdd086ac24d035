/** Scan templates. Name uniqueness per tenant is the unique index's job, not a read before a write. */
import { type Kysely, sql } from 'kysely';
import type {
  TemplateFields,
  TemplateRecord,
  TemplateStore,
} from '../../use-cases/ports/templates.js';
import type { Database, ScanTemplateRow } from './database.js';
import { insertUnderTenantCap, LIMIT_REACHED } from './tenant-cap.js';

function toTemplate(row: ScanTemplateRow): TemplateRecord {
  const json = (value: unknown) =>
    (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    scanType: row.scan_type,
    options: json(row.options),
    config: json(row.config),
    priority: row.priority,
    tags: row.tags,
    timeoutSeconds: row.timeout_seconds,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function columns(fields: TemplateFields) {
  return {
    name: fields.name,
    description: fields.description,
    scan_type: fields.scanType,
    options: JSON.stringify(fields.options),
    config: JSON.stringify(fields.config),
    priority: fields.priority,
    tags: [...fields.tags],
    timeout_seconds: fields.timeoutSeconds,
  };
}

/** PostgreSQL's unique_violation, from pg (`code`) or PGlite (`code` as well). */
function isUniqueViolation(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505'
  );
}

export function createTemplateStore(db: Kysely<Database>): TemplateStore {
  return {
    async insert(template, maxTemplates) {
      try {
        const row = await insertUnderTenantCap(
          db,
          template.tenantId,
          maxTemplates,
          (trx) =>
            trx
              .insertInto('scan_templates')
              .values({ id: template.id, tenant_id: template.tenantId, ...columns(template) })
              .returningAll()
              .executeTakeFirstOrThrow(),
          async (trx) => {
            const held = await trx
              .selectFrom('scan_templates')
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .where('tenant_id', '=', template.tenantId)
              .executeTakeFirstOrThrow();
            return Number(held.n);
          },
        );
        return row === LIMIT_REACHED ? row : toTemplate(row);
      } catch (error) {
        if (isUniqueViolation(error)) {
          return 'duplicate-name';
        }
        throw error;
      }
    },

    async list(tenantId, page) {
      const base = db.selectFrom('scan_templates').where('tenant_id', '=', tenantId);
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
      return { templates: rows.map(toTemplate), total: Number(count.n) };
    },

    async get(tenantId, id) {
      const row = await db
        .selectFrom('scan_templates')
        .selectAll()
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return row ? toTemplate(row) : null;
    },

    async update(tenantId, id, fields) {
      try {
        const row = await db
          .updateTable('scan_templates')
          .set({ ...columns(fields), updated_at: sql`now()` })
          .where('id', '=', id)
          .where('tenant_id', '=', tenantId)
          .returningAll()
          .executeTakeFirst();
        return row ? toTemplate(row) : null;
      } catch (error) {
        if (isUniqueViolation(error)) {
          return 'duplicate-name';
        }
        throw error;
      }
    },

    async delete(tenantId, id) {
      const result = await db
        .deleteFrom('scan_templates')
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
