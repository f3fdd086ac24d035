/**
 * A sentinel scan's parent row follows its children: it starts when the first child is claimed,
 * its progress is the weighted progress of its children, and once every child has ended and
 * settled, the children's findings are correlated into the parent's and the parent completes or
 * fails (or, if it was cancelled, keeps its status and gets the partial results).
 *
 * A child has settled when it is in a terminal status and no worker holds it any more: a running
 * child that was cancelled keeps its lease owner until its worker has stored the partial findings
 * (finish-scan.ts), or until its lease runs out because that worker is gone. Collection is
 * triggered by the worker that ends a child, by a cancel, and by every worker's housekeeping (the
 * safety net for a worker that died in between); it happens once per parent: the run row is
 * locked and marked collected in the same transaction.
 */
import { sql } from 'kysely';
import type { Finding } from '../../domain/findings/finding.js';
import { isTerminal, type ScanStatus } from '../../domain/scans/status-machine.js';
import { isEngineName } from '../../engines/engine.js';
import { PROGRESS_WEIGHTS } from '../../engines/sentinel/plan.js';
import type { SourceFinding } from '../../engines/sentinel/types.js';
import { aggregateSentinel } from '../../use-cases/scans/aggregate-sentinel.js';
import type { DatabaseHandle } from '../db/connect.js';
import { FINDING_COLUMNS, insertFindings, toFinding } from '../db/findings.repository.js';
import { type Db, moveScan } from '../db/scan-rows.js';

const WEIGHTS_JSON = JSON.stringify(PROGRESS_WEIGHTS);

/**
 * The parent's progress: the children's progress weighted by engine (an ended child counts as
 * 100), at most 99 and never lower than before.
 */
export async function updateParentProgress(db: Db, parentId: string): Promise<void> {
  await sql`
    update scans p set progress = greatest(p.progress, least(99, coalesce((
      select round(sum(coalesce(w.value::numeric, 1)
          * case when c.status in ('completed', 'failed', 'cancelled') then 100 else c.progress end)
        / nullif(sum(coalesce(w.value::numeric, 1)), 0))::integer
      from scans c left join json_each_text(${WEIGHTS_JSON}::json) w on w.key = c.scan_type
      where c.parent_scan_id = p.id), 0)))
    where p.id = ${parentId} and p.status in ('queued', 'running')`.execute(db);
}

/** Moves a queued parent to running (and records its scan.started) when a child is claimed. */
export async function startParent(db: Db, parentId: string): Promise<void> {
  await moveScan(db, 'start', parentId, { started_at: sql`now()`, progress: 0 });
}

function toSourceFinding(finding: Finding): SourceFinding | null {
  if (!isEngineName(finding.engine)) {
    return null;
  }
  const {
    id,
    scanId,
    engine,
    createdAt: _createdAt,
    correlation: _correlation,
    ...fields
  } = finding;
  return { ...fields, engine, scanId, findingId: id };
}

export type CollectOutcome = 'collected' | 'waiting' | 'not-pending';

/** Collects one sentinel scan if every child has settled; otherwise updates its progress. */
export async function collectSentinel(
  database: DatabaseHandle,
  parentId: string,
): Promise<CollectOutcome> {
  return database.db.transaction().execute(async (trx) => {
    const run = await trx
      .selectFrom('sentinel_runs')
      .select(['correlate', 'risk_score'])
      .where('scan_id', '=', parentId)
      .where('collected_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (run === undefined) {
      return 'not-pending';
    }
    const children = await trx
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
    const settled = children.every(
      (child) => isTerminal(child.status as ScanStatus) && child.released,
    );
    if (!settled) {
      await updateParentProgress(trx, parentId);
      return 'waiting';
    }
    const parent = await trx
      .selectFrom('scans')
      .select(['status', 'tenant_id'])
      .where('id', '=', parentId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const rows =
      children.length === 0
        ? []
        : await trx
            .selectFrom('findings')
            .select(FINDING_COLUMNS)
            .where(
              'scan_id',
              'in',
              children.map((child) => child.id),
            )
            .orderBy('seq')
            .execute();
    const aggregate = aggregateSentinel({
      correlate: run.correlate,
      riskScore: run.risk_score,
      children: children.map((child) => ({
        id: child.id,
        engine: child.scan_type,
        status: child.status as ScanStatus,
        target: child.target,
        targetType: child.target_type,
        error:
          child.error_code === null
            ? null
            : { code: child.error_code, message: child.error_message ?? '' },
      })),
      findings: rows.map(toFinding).flatMap((finding) => toSourceFinding(finding) ?? []),
    });
    await insertFindings(
      trx,
      { id: parentId, tenantId: parent.tenant_id, scanType: 'sentinel' },
      aggregate.findings,
    );
    const counts = {
      result_count: aggregate.findings.length,
      findings_summary: JSON.stringify(aggregate.summary),
      risk_score: aggregate.riskScore,
    };
    if (parent.status === 'cancelled') {
      await trx.updateTable('scans').set(counts).where('id', '=', parentId).execute();
    } else if (aggregate.ending.kind === 'completed') {
      // A parent still queued here had its start missed (its first child's worker died between
      // claim and start): it is started now, so its events stay in order.
      if (parent.status === 'queued') {
        await startParent(trx, parentId);
      }
      await moveScan(trx, 'complete', parentId, {
        ...counts,
        progress: 100,
        completed_at: sql`now()`,
      });
    } else {
      await moveScan(trx, 'fail', parentId, {
        ...counts,
        completed_at: sql`now()`,
        error_code: aggregate.ending.error.code,
        error_message: aggregate.ending.error.message,
      });
    }
    await trx
      .updateTable('sentinel_runs')
      .set({
        collected_at: sql`now()`,
        risk_factors: aggregate.riskFactors === null ? null : JSON.stringify(aggregate.riskFactors),
      })
      .where('scan_id', '=', parentId)
      .execute();
    return 'collected';
  });
}

/**
 * The safety net: collects every sentinel scan whose children have all settled but that nobody
 * collected (the worker that ended its last child died first, or a cancelled child's worker
 * vanished and its lease ran out). Returns how many were collected.
 */
export async function collectPendingSentinels(database: DatabaseHandle): Promise<number> {
  const pending = await sql<{ scan_id: string }>`
    select r.scan_id from sentinel_runs r
    where r.collected_at is null
      and not exists (
        select 1 from scans c
        where c.parent_scan_id = r.scan_id
          and (c.status in ('queued', 'running')
            or (c.lease_owner is not null and c.lease_expires_at >= now())))
    limit 100`.execute(database.db);
  let collected = 0;
  for (const row of pending.rows) {
    if ((await collectSentinel(database, row.scan_id)) === 'collected') {
      collected += 1;
    }
  }
  return collected;
}
