/**
 * The SQL of a sentinel scan's lifecycle (use-cases/scans/sentinel-lifecycle.ts decides): plain
 * verbs over the parent row, its children and its `sentinel_runs` row. Status moves go through the
 * one writer (scan-moves.ts).
 */
import { CompiledQuery, sql } from 'kysely';
import { enginesThatLooked } from '../../domain/issues/issue.js';
import {
  ACTIVE_STATUSES,
  MOVES,
  type ScanStatus,
  TERMINAL_STATUSES,
} from '../../domain/scans/status-machine.js';
import type {
  SentinelCollection,
  SentinelStore,
} from '../../use-cases/scans/sentinel-lifecycle.js';
import type { DatabaseHandle } from '../db/connect.js';
import { FINDING_COLUMNS, insertFindings, toFinding } from '../db/findings.repository.js';
import { updateIssuesForScan } from '../db/issues.repository.js';
import { CANCEL_CHANNEL, type Db } from '../db/scan-rows.js';
import { moveCtes, moveScan, NOW, statusList } from './scan-moves.js';

/**
 * The parent's progress: the children's progress weighted by engine (an ended child counts as
 * 100), at most 99 and never lower than before.
 */
async function updateProgress(
  db: Db,
  parentId: string,
  weights: Readonly<Record<string, number>>,
): Promise<void> {
  await sql`
    update scans p set progress = greatest(p.progress, least(99, coalesce((
      select round(sum(coalesce(w.value::numeric, 1)
          * case when c.status in (${sql.raw(statusList(TERMINAL_STATUSES))}) then 100 else c.progress end)
        / nullif(sum(coalesce(w.value::numeric, 1)), 0))::integer
      from scans c left join json_each_text(${JSON.stringify(weights)}::json) w
        on w.key = c.scan_type
      where c.parent_scan_id = p.id), 0)))
    where p.id = ${parentId} and p.status in (${sql.raw(statusList(ACTIVE_STATUSES))})`.execute(db);
}

const startParent = (db: Db, parentId: string) =>
  moveScan(db, 'start', parentId, { started_at: NOW, progress: 0 });

/** Cancels a parent's queued and running children and tells their workers (no events). */
const CANCEL_CHILDREN_SQL = `with ${moveCtes('cancelled', 'cancel', {
  set: ['completed_at = now()'],
  where: ['scans.parent_scan_id = $1::uuid'],
  returns: 'event',
})}
  select id, pg_notify('${CANCEL_CHANNEL}', id::text) from cancelled`;

function collection(
  trx: Db,
  parentId: string,
  run: { readonly correlate: boolean; readonly risk_score: boolean },
): SentinelCollection {
  return {
    correlate: run.correlate,
    riskScore: run.risk_score,
    async children() {
      const rows = await trx
        .selectFrom('scans')
        .select([
          'id',
          'scan_type',
          'status',
          'error_code',
          'error_message',
          'target',
          'target_type',
          sql<boolean>`lease_owner is null or lease_expires_at < now()`.as('released'),
        ])
        .where('parent_scan_id', '=', parentId)
        .orderBy('seq')
        .execute();
      return rows.map((child) => ({
        id: child.id,
        engine: child.scan_type,
        status: child.status,
        error:
          child.error_code === null
            ? null
            : { code: child.error_code, message: child.error_message ?? '' },
        target: child.target,
        targetType: child.target_type,
        released: child.released,
      }));
    },
    updateProgress: (weights) => updateProgress(trx, parentId, weights),
    async lockParent() {
      const parent = await trx
        .selectFrom('scans')
        .select(['status', 'priority'])
        .where('id', '=', parentId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      return { status: parent.status, priority: parent.priority };
    },
    async childFindings(childIds) {
      const rows = await trx
        .selectFrom('findings')
        .select(FINDING_COLUMNS)
        .where('scan_id', 'in', [...childIds])
        .orderBy('seq')
        .execute();
      return rows.map(toFinding);
    },
    async store({ findings, aggregate, end }) {
      const parent = await trx
        .selectFrom('scans')
        .select(['tenant_id', 'scan_type', 'target'])
        .where('id', '=', parentId)
        .executeTakeFirstOrThrow();
      await insertFindings(
        trx,
        { id: parentId, tenantId: parent.tenant_id, scanType: parent.scan_type },
        findings,
      );
      // The parent's correlated findings feed issues (its children's do not): what a completed
      // child's engine did not see moves to fixed when the parent completes.
      const children = await trx
        .selectFrom('scans')
        .select(['scan_type', 'status'])
        .where('parent_scan_id', '=', parentId)
        .execute();
      const issueChanges = await updateIssuesForScan(trx, {
        scanId: parentId,
        tenantId: parent.tenant_id,
        target: parent.target,
        end: end.kind === 'complete' ? 'completed' : 'partial',
        engines: enginesThatLooked(
          parent.scan_type,
          children.map((child) => ({
            engine: child.scan_type,
            completed: child.status === 'completed',
          })),
        ),
      });
      const counts = {
        result_count: aggregate.findings.length,
        findings_summary: JSON.stringify(aggregate.summary),
        risk_score: aggregate.riskScore,
      };
      if (end.kind === 'keep-cancelled') {
        // Not a status write: the counts of the partial results.
        await trx.updateTable('scans').set(counts).where('id', '=', parentId).execute();
      } else if (end.kind === 'complete') {
        if (end.startFirst) {
          await startParent(trx, parentId);
        }
        await moveScan(
          trx,
          'complete',
          parentId,
          { ...counts, progress: 100, completed_at: NOW },
          {},
          issueChanges,
        );
      } else {
        await moveScan(trx, 'fail', parentId, {
          ...counts,
          completed_at: NOW,
          error_code: end.error.code,
          error_message: end.error.message,
        });
      }
      await trx
        .updateTable('sentinel_runs')
        .set({
          collected_at: sql`now()`,
          risk_factors:
            aggregate.riskFactors === null ? null : JSON.stringify(aggregate.riskFactors),
        })
        .where('scan_id', '=', parentId)
        .execute();
    },
  };
}

export function createSentinelRunStore(database: DatabaseHandle): SentinelStore {
  const db = database.db;
  return {
    collect(parentId, work) {
      return db.transaction().execute(async (trx) => {
        const run = await trx
          .selectFrom('sentinel_runs')
          .select(['correlate', 'risk_score'])
          .where('scan_id', '=', parentId)
          .where('collected_at', 'is', null)
          .forUpdate()
          .executeTakeFirst();
        return run === undefined ? null : work(collection(trx, parentId, run));
      });
    },
    async startParent(parentId) {
      await startParent(db, parentId);
    },
    updateProgress: (parentId, weights) => updateProgress(db, parentId, weights),
    async cancelChildren(parentId) {
      await db.executeQuery(CompiledQuery.raw(CANCEL_CHILDREN_SQL, [parentId]));
    },
    async pendingParents(limit) {
      const pending = await sql<{ id: string; status: ScanStatus }>`
        select r.scan_id as id, p.status from sentinel_runs r join scans p on p.id = r.scan_id
        where r.collected_at is null
          and (p.status = ${MOVES.cancel.to}
            or not exists (
              select 1 from scans c
              where c.parent_scan_id = r.scan_id
                and (c.status in (${sql.raw(statusList(ACTIVE_STATUSES))})
                  or (c.lease_owner is not null and c.lease_expires_at >= now()))))
        limit ${limit}`.execute(db);
      return pending.rows;
    },
  };
}
