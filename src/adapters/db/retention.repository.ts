/**
 * Retention (issue 25): deletes of old rows, one small batch per call, each its own short
 * statement (autocommit), so no batch holds locks for long or blocks the hot paths:
 *
 * - scan events: outbox rows already fanned out into deliveries (`dispatched_at` set) and created
 *   before the cutoff; a waiting event is never deleted, however old.
 * - deliveries: webhook, callback and test deliveries that ended (delivered, failed, cancelled)
 *   and were created before the cutoff, with their attempts (what GET …/deliveries lists). A
 *   pending delivery is never deleted.
 * - findings: of one ended scan at a time, whose end is before the cutoff (a sentinel child only
 *   once its parent ended: the parent reads its children's findings when it ends). The scan stays,
 *   with its counts (`resultCount`, `findingsSummary`, `riskScore`); `findings_pruned_at` marks it.
 *   Their finding_issues rows go with them (cascade); issues keep their own copy of the latest
 *   finding's fields, and `issues.last_finding_id` has no foreign key.
 *
 * Rows are taken `for update skip locked`: a row some transaction holds is left for a later batch.
 * Indexes: migration 0020.
 */
import { type Kysely, sql } from 'kysely';
import type { RetentionTable } from '../../use-cases/ports/metrics.js';
import type { Database } from './database.js';

/** Rows one batch deleted, by table (tables it did not touch are absent). */
export type DeletedRows = Partial<Record<RetentionTable, number>>;

export interface RetentionBatch {
  readonly deleted: DeletedRows;
  /** Whether more may be left: the batch was full (or a scan's findings are not all gone yet). */
  readonly more: boolean;
}

export async function pruneScanEvents(
  db: Kysely<Database>,
  before: Date,
  limit: number,
): Promise<RetentionBatch> {
  const result = await sql<{ n: string }>`
    with doomed as (
      select id from scan_events
      where created_at < ${before} and dispatched_at is not null
      limit ${limit}
      for update skip locked
    ), gone as (
      delete from scan_events where id in (select id from doomed) returning 1
    )
    select count(*) as n from gone`.execute(db);
  const n = Number(result.rows[0]?.n ?? 0);
  return { deleted: { scan_events: n }, more: n >= limit };
}

export async function pruneDeliveries(
  db: Kysely<Database>,
  before: Date,
  limit: number,
): Promise<RetentionBatch> {
  // The attempts are deleted by this statement (counted), before the cascade would.
  const result = await sql<{ deliveries: string; attempts: string }>`
    with doomed as (
      select id from webhook_deliveries
      where created_at < ${before} and status <> 'pending'
      limit ${limit}
      for update skip locked
    ), gone_attempts as (
      delete from webhook_attempts where delivery_id in (select id from doomed) returning 1
    ), gone as (
      delete from webhook_deliveries where id in (select id from doomed) returning 1
    )
    select (select count(*) from gone) as deliveries,
      (select count(*) from gone_attempts) as attempts`.execute(db);
  const deliveries = Number(result.rows[0]?.deliveries ?? 0);
  const attempts = Number(result.rows[0]?.attempts ?? 0);
  return {
    deleted: { webhook_deliveries: deliveries, webhook_attempts: attempts },
    more: deliveries >= limit,
  };
}

/**
 * Deletes up to `limit` findings of the ended scan that ended longest ago and still has its
 * findings; marks the scan once none is left. One transaction: the scan's row is locked (skip
 * locked), so two pruners never work on one scan.
 */
export async function pruneFindings(
  db: Kysely<Database>,
  before: Date,
  limit: number,
): Promise<RetentionBatch> {
  return db.transaction().execute(async (trx) => {
    const scan = await sql<{ id: string }>`
      select s.id from scans s
      where s.completed_at is not null and s.findings_pruned_at is null
        and s.completed_at < ${before}
        and s.status in ('completed', 'failed', 'cancelled')
        and (s.parent_scan_id is null or exists (
          select 1 from scans p where p.id = s.parent_scan_id and p.completed_at is not null))
      order by s.completed_at
      limit 1
      for update of s skip locked`.execute(trx);
    const scanId = scan.rows[0]?.id;
    if (scanId === undefined) {
      return { deleted: {}, more: false };
    }
    const result = await sql<{ n: string }>`
      with gone as (
        delete from findings where id in (
          select id from findings where scan_id = ${scanId} limit ${limit})
        returning 1
      )
      select count(*) as n from gone`.execute(trx);
    const n = Number(result.rows[0]?.n ?? 0);
    if (n < limit) {
      await trx
        .updateTable('scans')
        .set({ findings_pruned_at: sql<Date>`now()` })
        .where('id', '=', scanId)
        .execute();
    }
    return { deleted: { findings: n }, more: true };
  });
}
