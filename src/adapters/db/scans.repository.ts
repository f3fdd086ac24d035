/** Scans as the API reads and writes them (the worker side lives in adapters/queue). */
import { CompiledQuery, sql } from 'kysely';
import { SEVERITIES } from '../../domain/findings/finding.js';
import { emptySummary } from '../../domain/findings/summary.js';
import { priorityRank } from '../../domain/scans/priority.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import { decideCancel, INITIAL_STATUS } from '../../domain/scans/status-machine.js';
import type { NewScan, ScanStore } from '../../use-cases/ports/scans.js';
import { moveScan, NOW } from '../queue/scan-moves.js';
import type { DatabaseHandle } from './connect.js';
import {
  FINDING_COLUMNS,
  ISSUE_LINK,
  ISSUE_LINK_COLUMNS,
  readFindingPages,
  readSarifRuleSources,
  toFinding,
} from './findings.repository.js';
import { triageInEffectIs } from './issues.repository.js';
import { createKeyedBatcher } from './keyed-batcher.js';
import { CANCEL_CHANNEL, notify, QUEUE_CHANNEL, SCAN_COLUMNS, toScanRecord } from './scan-rows.js';
import { toSentinelRunView } from './sentinel-rows.js';

/**
 * The quota check and the insert are one statement: the tenant's count for the month goes up by
 * the number of scans only while it stays within the quota (the row lock of the count orders
 * concurrent creates, so 20 parallel creates against 5 remaining store exactly 5), and the scans
 * are stored only when it did. A refused batch leaves no row and no count. The NOTIFY that wakes
 * the workers is delivered at commit. The scans come as one JSON array (`$4`), inserted in its
 * order, so `seq` (first in, first out) follows the order of arrival.
 */
const INSERT_SQL = `
  with counted as (
    insert into tenant_monthly_scans (tenant_id, month, scans)
    select $1, $2::date, $3::integer
    where (select monthly_scan_quota from tenants where id = $1) >= $3::integer
    on conflict (tenant_id, month) do update
      set scans = tenant_monthly_scans.scans + $3::integer
      where tenant_monthly_scans.scans + $3::integer
        <= (select monthly_scan_quota from tenants where id = $1)
    returning scans
  ),
  inserted as (
    insert into scans (id, tenant_id, api_key_id, scan_type, name, target, target_type, priority,
      priority_rank, status, tags, options, config, timeout_seconds, asset_id, callback_url,
      callback_secret, template_id, parent_scan_id, trace_context)
    select r.id, $1, r.api_key_id, r.scan_type, r.name, r.target, r.target_type, r.priority,
      r.priority_rank, '${INITIAL_STATUS}', r.tags, r.options, r.config, r.timeout_seconds,
      r.asset_id, r.callback_url, r.callback_secret, r.template_id, r.parent_scan_id,
      r.trace_context
    from jsonb_populate_recordset(null::scans, $4::jsonb) with ordinality as r
    where exists (select 1 from counted)
    order by r.ordinality
    returning id, created_at
  )
  select id, floor(extract(epoch from created_at) * 1000)::float8 as created_ms,
    pg_notify('${QUEUE_CHANNEL}', '')
  from inserted`;

/** What INSERT_SQL answers per stored scan: the rest of the row is what was sent. */
interface InsertedRow {
  readonly id: string;
  /** `created_at` in whole milliseconds, as a `Date` read from the row would hold it. */
  readonly created_ms: number;
}

/**
 * The record of a scan just stored: its columns as sent and the defaults of a queued scan. The
 * statement answers only the id and the creation time, so the API does not parse back the
 * twenty-odd columns it has just written.
 */
function queuedScanRecord(scan: NewScan, createdAt: Date): ScanRecord {
  return {
    id: scan.id,
    tenantId: scan.tenantId,
    apiKeyId: scan.apiKeyId,
    scanType: scan.scanType,
    name: scan.name,
    target: scan.target,
    targetType: scan.targetType,
    priority: scan.priority,
    status: INITIAL_STATUS,
    progress: 0,
    tags: scan.tags,
    options: scan.options,
    config: scan.config,
    timeoutSeconds: scan.timeoutSeconds,
    assetId: scan.assetId,
    callbackUrl: scan.callbackUrl,
    templateId: scan.templateId,
    parentScanId: scan.parentScanId,
    traceContext: scan.traceContext,
    resultCount: 0,
    findingsSummary: emptySummary(),
    riskScore: 0,
    error: null,
    attempts: 0,
    createdAt,
    startedAt: null,
    completedAt: null,
    findingsPrunedAt: null,
  };
}

/** The records of the scans INSERT_SQL stored, or null when it stored none (quota). */
function insertedRecords(
  scans: readonly NewScan[],
  rows: readonly InsertedRow[],
): ScanRecord[] | null {
  if (rows.length !== scans.length) {
    return null;
  }
  const created = new Map(rows.map((row) => [row.id, row.created_ms]));
  return scans.map((scan) => queuedScanRecord(scan, new Date(created.get(scan.id) ?? Number.NaN)));
}

/**
 * The parameters of INSERT_SQL for scans of one tenant and quota month, in their order. Each scan
 * is a row of the JSON array with the scans table's column names.
 */
function insertValues(tenantId: string, quotaMonth: string, scans: readonly NewScan[]): unknown[] {
  const rows = scans.map((scan) => ({
    id: scan.id,
    api_key_id: scan.apiKeyId,
    scan_type: scan.scanType,
    name: scan.name,
    target: scan.target,
    target_type: scan.targetType,
    priority: scan.priority,
    priority_rank: priorityRank(scan.priority),
    tags: scan.tags,
    options: scan.options,
    config: scan.config,
    timeout_seconds: scan.timeoutSeconds,
    asset_id: scan.assetId,
    callback_url: scan.callbackUrl,
    callback_secret: scan.callbackSecret,
    template_id: scan.templateId,
    parent_scan_id: scan.parentScanId,
    trace_context: scan.traceContext,
  }));
  return [tenantId, quotaMonth, scans.length, JSON.stringify(rows)];
}

/**
 * Creates of one tenant in one quota month wait for each other on the count's row lock anyway
 * (held until commit); batching them keeps that order and pays the lock, the commit and the
 * NOTIFY once per batch instead of once per scan. At most this many scans go in one statement.
 */
const MAX_INSERT_BATCH = 64;

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
    status: INITIAL_STATUS,
    tags: [...child.tags],
    options: JSON.stringify(child.options),
    config: JSON.stringify(child.config),
    timeout_seconds: child.timeoutSeconds,
    asset_id: child.assetId,
    callback_url: null,
    callback_secret: null,
    template_id: null,
    parent_scan_id: child.parentScanId,
    trace_context: child.traceContext,
  };
}

/** Stores scans of one tenant and month in one statement: all of them, or none (quota). */
async function insertScans(
  database: DatabaseHandle,
  tenantId: string,
  quotaMonth: string,
  scans: readonly NewScan[],
): Promise<ScanRecord[] | null> {
  // One prepared statement: quota, insert and NOTIFY in one round trip.
  const rows = await database.prepared<InsertedRow>({
    name: 'rampart_insert_scans',
    text: INSERT_SQL,
    values: insertValues(tenantId, quotaMonth, scans),
  });
  return insertedRecords(scans, rows);
}

/**
 * Writes a batch of creates (see MAX_INSERT_BATCH). When the whole batch does not fit in the
 * quota, or its statement fails, each scan is tried again on its own and in order: the quota then
 * admits exactly as many as remain, and an error reaches only the create that caused it.
 */
async function insertBatch(
  database: DatabaseHandle,
  batch: readonly { readonly scan: NewScan; readonly quotaMonth: string }[],
): Promise<Array<PromiseSettledResult<ScanRecord | null>>> {
  const first = batch[0];
  if (first === undefined) {
    return [];
  }
  const scans = batch.map((item) => item.scan);
  if (batch.length > 1) {
    try {
      const stored = await insertScans(database, first.scan.tenantId, first.quotaMonth, scans);
      if (stored !== null) {
        return stored.map((scan) => ({ status: 'fulfilled', value: scan }));
      }
    } catch {
      // Retried one by one below, where the error reaches its own create.
    }
  }
  const results: Array<PromiseSettledResult<ScanRecord | null>> = [];
  for (const scan of scans) {
    try {
      const stored = await insertScans(database, scan.tenantId, first.quotaMonth, [scan]);
      results.push({ status: 'fulfilled', value: stored?.[0] ?? null });
    } catch (error) {
      results.push({ status: 'rejected', reason: error });
    }
  }
  return results;
}

export function createScanStore(database: DatabaseHandle): ScanStore {
  const db = database.db;
  const inserts = createKeyedBatcher(
    (_key, batch: readonly { readonly scan: NewScan; readonly quotaMonth: string }[]) =>
      insertBatch(database, batch),
    { maxBatch: MAX_INSERT_BATCH },
  );
  return {
    insert(scan, quotaMonth) {
      return inserts.submit(`${scan.tenantId} ${quotaMonth}`, { scan, quotaMonth });
    },

    async insertSentinel(parent, children, run, quotaMonth) {
      // Inside a transaction already (a schedule's claim, claim-schedules.ts): part of that one.
      const atomically = <R>(work: (trx: typeof db) => Promise<R>) =>
        db.isTransaction ? work(db) : db.transaction().execute(work);
      return atomically(async (trx) => {
        // The parent exactly as `insert` stores a scan (quota, row, NOTIFY at commit).
        const inserted = await trx.executeQuery(
          CompiledQuery.raw(INSERT_SQL, insertValues(parent.tenantId, quotaMonth, [parent])),
        );
        const stored = insertedRecords([parent], inserted.rows as InsertedRow[])?.[0];
        if (stored === undefined) {
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
        return stored;
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
      return db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('scans')
          .select('status')
          .where('id', '=', id)
          .where('tenant_id', '=', tenantId)
          .forUpdate()
          .executeTakeFirst();
        if (current === undefined) {
          return { ok: false, reason: 'not-found' } as const;
        }
        const decision = decideCancel(current.status);
        if (!decision.ok) {
          return { ok: false, reason: 'conflict', code: decision.code } as const;
        }
        const scan = await moveScan(trx, 'cancel', id, { completed_at: NOW }, { tenantId });
        if (scan === null) {
          throw new Error(`scan ${id} could not be cancelled after its row was locked`);
        }
        await notify(trx, CANCEL_CHANNEL, id);
        return { ok: true, scan } as const;
      });
    },

    findingPages(tenantId, scanId, order, pageSize) {
      return readFindingPages(db, tenantId, scanId, order, pageSize);
    },

    sarifRuleSources(tenantId, scanId) {
      return readSarifRuleSources(db, tenantId, scanId);
    },

    async listFindings(tenantId, scanId, filter, page, now) {
      let base = db
        .selectFrom('findings')
        .where('scan_id', '=', scanId)
        .where('tenant_id', '=', tenantId);
      if (filter.severity !== null) {
        base = base.where('severity_rank', '=', SEVERITIES.indexOf(filter.severity));
      }
      if (filter.engine !== null) {
        base = base.where('engine', '=', filter.engine);
      }
      if (filter.triage !== null) {
        // Through the finding's link (its primary key) to its issue: a finding without one
        // matches no triage state, as its triage reads null.
        base = base.where(sql<boolean>`exists (
          select 1 from finding_issues fi join issues i on i.id = fi.issue_id
          where fi.finding_id = findings.id and ${triageInEffectIs(filter.triage, now)}
        )`);
      }
      let rows = base
        .select([...FINDING_COLUMNS, 'severity_rank', 'seq'])
        .orderBy('severity_rank')
        .orderBy('seq');
      if (page !== null) {
        rows = rows.limit(page.limit).offset((page.page - 1) * page.limit);
      }
      // The page first, then its issues by primary key (ISSUE_LINK): the join costs the page's
      // rows only.
      const withIssues = db
        .selectFrom(rows.as('f'))
        .leftJoinLateral(ISSUE_LINK, (join) => join.onTrue())
        .selectAll('f')
        .select(ISSUE_LINK_COLUMNS)
        .orderBy('f.severity_rank')
        .orderBy('f.seq');
      const [found, count] = await Promise.all([
        withIssues.execute(),
        base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { findings: found.map(toFinding), total: Number(count.n) };
    },
  };
}
