/** Scans as the API reads and writes them (the worker side lives in adapters/queue). */
import { CompiledQuery, sql } from 'kysely';
import { SEVERITIES } from '../../domain/findings/finding.js';
import { priorityRank } from '../../domain/scans/priority.js';
import { decideCancel, MOVES } from '../../domain/scans/status-machine.js';
import type { NewScan, ScanStore } from '../../use-cases/ports.js';
import { collectSentinel } from '../queue/collect-sentinel.js';
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
import { toSentinelRunView } from './sentinel-rows.js';

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

/** The parameters of INSERT_SQL, in order. */
function insertValues(scan: NewScan, quotaMonth: string): unknown[] {
  return [
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
  ];
}

/** A sentinel child row: queued with its parent, never counted against the quota. */
function childRow(child: NewScan) {
  return {
    id: child.id,
    tenant_id: child.tenantId,
    api_key_id: child.apiKeyId,
    scan_type: child.scanType,
    name: child.name,
    target: child.target,
    target_type: child.targetType,
    priority: child.priority,
    priority_rank: priorityRank(child.priority),
    status: 'queued',
    tags: [...child.tags],
    options: JSON.stringify(child.options),
    config: JSON.stringify(child.config),
    timeout_seconds: child.timeoutSeconds,
    asset_id: child.assetId,
    callback_url: null,
    callback_secret: null,
    template_id: null,
    parent_scan_id: child.parentScanId,
  };
}

export function createScanStore(database: DatabaseHandle): ScanStore {
  const db = database.db;
  return {
    async insert(scan, quotaMonth) {
      // One prepared statement: quota, insert and NOTIFY in one round trip.
      const rows = await database.prepared<ScanColumnsRow>({
        name: 'rampart_insert_scan',
        text: INSERT_SQL,
        values: insertValues(scan, quotaMonth),
      });
      const row = rows[0];
      return row === undefined ? null : toScanRecord(row);
    },

    async insertSentinel(parent, children, run, quotaMonth) {
      return db.transaction().execute(async (trx) => {
        // The parent exactly as `insert` stores a scan (quota, row, NOTIFY at commit).
        const inserted = await trx.executeQuery(
          CompiledQuery.raw(INSERT_SQL, insertValues(parent, quotaMonth)),
        );
        const row = inserted.rows[0] as ScanColumnsRow | undefined;
        if (row === undefined) {
          return null;
        }
        if (children.length > 0) {
          await trx.insertInto('scans').values(children.map(childRow)).execute();
        }
        await trx
          .insertInto('sentinel_runs')
          .values({
            scan_id: parent.id,
            tenant_id: parent.tenantId,
            depth: run.depth,
            correlate: run.correlate,
            risk_score: run.riskScore,
            skipped: JSON.stringify(run.skipped),
          })
          .execute();
        return toScanRecord(row);
      });
    },

    async sentinelRun(tenantId, scanId) {
      const run = await db
        .selectFrom('sentinel_runs')
        .selectAll()
        .where('scan_id', '=', scanId)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      if (run === undefined) {
        return null;
      }
      const children = await db
        .selectFrom('scans')
        .select(SCAN_COLUMNS)
        .where('parent_scan_id', '=', scanId)
        .where('tenant_id', '=', tenantId)
        .orderBy('seq')
        .execute();
      return toSentinelRunView(run, children.map(toScanRecord));
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
      base =
        filter.parentScanId === null
          ? base.where('parent_scan_id', 'is', null)
          : base.where('parent_scan_id', '=', filter.parentScanId);
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
      const result = await db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('scans')
          .select(['status', 'parent_scan_id', 'scan_type'])
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
        if (current.scan_type === 'sentinel') {
          // Its unfinished children go with it (no events: children record none). A running
          // child keeps its lease owner, so its worker still stores the partial findings.
          const children = await trx
            .updateTable('scans')
            .set({ status: MOVES.cancel.to, completed_at: sql`now()` })
            .where('parent_scan_id', '=', id)
            .where('status', 'in', [...MOVES.cancel.from])
            .returning('id')
            .execute();
          for (const child of children) {
            await notify(trx, CANCEL_CHANNEL, child.id);
          }
        }
        return { ok: true, scan, parentScanId: current.parent_scan_id } as const;
      });
      if (!result.ok) {
        return result;
      }
      // A sentinel scan whose children have all ended is collected now; one with running
      // children is collected by the worker that ends the last of them.
      const sentinelId = result.scan.scanType === 'sentinel' ? id : result.parentScanId;
      if (sentinelId !== null) {
        await collectSentinel(database, sentinelId);
      }
      return { ok: true, scan: result.scan };
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
