/** Scans as the API reads and writes them (the worker side lives in adapters/queue). */
import { type Kysely, sql } from 'kysely';
import { SEVERITIES } from '../../domain/findings/finding.js';
import { priorityRank } from '../../domain/scans/priority.js';
import { decideCancel } from '../../domain/scans/status-machine.js';
import type { ScanStore } from '../../use-cases/ports.js';
import type { Database } from './database.js';
import { FINDING_COLUMNS, toFinding } from './findings.repository.js';
import {
  CANCEL_CHANNEL,
  moveScan,
  notify,
  QUEUE_CHANNEL,
  SCAN_COLUMNS,
  toScanRecord,
} from './scan-rows.js';

export function createScanStore(db: Kysely<Database>): ScanStore {
  return {
    async insert(scan) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('scans')
          .values({
            id: scan.id,
            tenant_id: scan.tenantId,
            api_key_id: scan.apiKeyId,
            scan_type: scan.scanType,
            name: scan.name,
            target: scan.target,
            target_type: scan.targetType,
            priority: scan.priority,
            priority_rank: priorityRank(scan.priority),
            status: 'queued',
            tags: [...scan.tags],
            options: JSON.stringify(scan.options),
            config: JSON.stringify(scan.config),
            timeout_seconds: scan.timeoutSeconds,
            asset_id: scan.assetId,
            callback_url: scan.callbackUrl,
            callback_secret: scan.callbackSecret,
            template_id: scan.templateId,
            parent_scan_id: scan.parentScanId,
          })
          .returning(SCAN_COLUMNS)
          .executeTakeFirstOrThrow();
        await notify(trx, QUEUE_CHANNEL);
        return toScanRecord(row);
      });
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
