/** Scans as the API reads and writes them (the worker side lives in adapters/queue). */
import { sql } from 'kysely';
import { SEVERITIES } from '../../domain/findings/finding.js';
import { priorityRank } from '../../domain/scans/priority.js';
import { decideCancel } from '../../domain/scans/status-machine.js';
import type { ScanStore } from '../../use-cases/ports.js';
import type { DatabaseHandle } from './connect.js';
import { FINDING_COLUMNS, toFinding } from './findings.repository.js';
import {
  CANCEL_CHANNEL,
  moveScan,
  notify,
  QUEUE_CHANNEL,
  SCAN_COLUMNS,
  type ScanColumnsRow,
  toScanRecord,
} from './scan-rows.js';

/**
 * The quota check and the insert are one statement: the tenant's count for the month goes up only
 * while it is below the quota (the row lock of the count orders concurrent creates, so 20 parallel
 * creates against 5 remaining store exactly 5), and the scan is stored only when it did. A refused
 * scan leaves no row and no count. The NOTIFY that wakes the workers is delivered at commit.
 */
const INSERT_SQL = `
  with counted as (
    insert into tenant_monthly_scans (tenant_id, month, scans)
    select $2, $19::date, 1
    where (select monthly_scan_quota from tenants where id = $2) > 0
    on conflict (tenant_id, month) do update
      set scans = tenant_monthly_scans.scans + 1
      where tenant_monthly_scans.scans < (select monthly_scan_quota from tenants where id = $2)
    returning scans
  ),
  inserted as (
    insert into scans (id, tenant_id, api_key_id, scan_type, name, target, target_type, priority,
      priority_rank, status, tags, options, config, timeout_seconds, asset_id, callback_url,
      callback_secret, template_id, parent_scan_id)
    select $1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued', $10, $11::jsonb, $12::jsonb, $13, $14,
      $15, $16, $17, $18
    where exists (select 1 from counted)
    returning ${SCAN_COLUMNS.join(', ')}
  )
  select inserted.*, pg_notify('${QUEUE_CHANNEL}', '') from inserted`;

export function createScanStore(database: DatabaseHandle): ScanStore {
  const db = database.db;
  return {
    async insert(scan, quotaMonth) {
      // One prepared statement: quota, insert and NOTIFY in one round trip.
      const rows = await database.prepared<ScanColumnsRow>({
        name: 'rampart_insert_scan',
        text: INSERT_SQL,
        values: [
          scan.id,
          scan.tenantId,
          scan.apiKeyId,
          scan.scanType,
          scan.name,
          scan.target,
          scan.targetType,
          scan.priority,
          priorityRank(scan.priority),
          [...scan.tags],
          JSON.stringify(scan.options),
          JSON.stringify(scan.config),
          scan.timeoutSeconds,
          scan.assetId,
          scan.callbackUrl,
          scan.callbackSecret,
          scan.templateId,
          scan.parentScanId,
          quotaMonth,
        ],
      });
      const row = rows[0];
      return row === undefined ? null : toScanRecord(row);
    },

    async get(tenantId, id) {
      const row = await db
        .selectFrom('scans')
        .select(SCAN_COLUMNS)
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return row ? toScanRecord(row) : null;
    },

    async list(tenantId, filter, page) {
      let base = db.selectFrom('scans').where('tenant_id', '=', tenantId);
      if (filter.scanType !== null) {
        base = base.where('scan_type', '=', filter.scanType);
      }
      if (filter.status !== null) {
        base = base.where('status', '=', filter.status);
      }
      const [rows, count] = await Promise.all([
        base
          .select(SCAN_COLUMNS)
          .orderBy('seq', 'desc')
          .limit(page.limit)
          .offset((page.page - 1) * page.limit)
          .execute(),
        base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { scans: rows.map(toScanRecord), total: Number(count.n) };
    },

    async cancel(tenantId, id) {
      return db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('scans')
          .select(['status', 'parent_scan_id'])
          .where('id', '=', id)
          .where('tenant_id', '=', tenantId)
          .forUpdate()
          .executeTakeFirst();
        if (current === undefined) {
          return { ok: false, reason: 'not-found' } as const;
        }
        const decision = decideCancel(current.status as Parameters<typeof decideCancel>[0]);
        if (!decision.ok) {
          return { ok: false, reason: 'conflict', code: decision.code } as const;
        }
        const scan = await moveScan(trx, 'cancel', id, { completed_at: sql`now()` }, { tenantId });
        if (scan === null) {
          throw new Error(`scan ${id} could not be cancelled after its row was locked`);
        }
        await notify(trx, CANCEL_CHANNEL, id);
        return { ok: true, scan } as const;
      });
    },

    async listFindings(tenantId, scanId, filter, page) {
      let base = db
        .selectFrom('findings')
        .where('scan_id', '=', scanId)
        .where('tenant_id', '=', tenantId);
      if (filter.severity !== null) {
        base = base.where('severity_rank', '=', SEVERITIES.indexOf(filter.severity));
      }
      let rows = base.select(FINDING_COLUMNS).orderBy('severity_rank').orderBy('seq');
      if (page !== null) {
        rows = rows.limit(page.limit).offset((page.page - 1) * page.limit);
      }
      const [found, count] = await Promise.all([
        rows.execute(),
        base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { findings: found.map(toFinding), total: Number(count.n) };
    },
  };
}
