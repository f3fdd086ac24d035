/**
 * Housekeeping any worker runs now and then: a running scan whose lease expired belongs to a
 * worker that stopped answering (killed, frozen, cut off). Its first loss puts it back in the queue
 * (one automatic retry); a second loss fails it with WORKER_LOST (decisions.md, "How a scan ends").
 * Both are moves of the status machine in one statement; concurrent housekeepers are harmless
 * because each UPDATE takes the row locks and re-checks the lease.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { QUEUE_CHANNEL } from '../db/scan-rows.js';
import { moveCtes } from './scan-moves.js';

/** Claims per scan before a lost worker fails it: the first run plus one retry. */
export const MAX_ATTEMPTS = 2;

const RECLAIM_SQL = `with ${moveCtes('requeued', 'requeue', {
  set: ['lease_owner = null', 'lease_expires_at = null', 'progress = 0'],
  where: ['scans.lease_expires_at < now()', 'scans.attempts < $1::integer'],
  returns: 'event',
})},
  ${moveCtes('lost', 'fail', {
    set: [
      'lease_owner = null',
      'lease_expires_at = null',
      'completed_at = now()',
      "error_code = 'WORKER_LOST'",
      'error_message = $2::text',
    ],
    only: ['running'],
    where: ['scans.lease_expires_at < now()', 'scans.attempts >= $1::integer'],
    returns: 'event',
    extra: ['scans.priority'],
  })}
  select (select count(*) from requeued)::integer as requeued,
    (select count(*) from lost)::integer as failed,
    (select coalesce(json_agg(json_build_object('engine', scan_type, 'priority', priority)), '[]')
      from lost) as failed_scans,
    (select pg_notify('${QUEUE_CHANNEL}', '') where exists (select 1 from requeued))
      as notified`;

/** An engine and priority of a scan failed WORKER_LOST (for the metrics). */
export interface LostScan {
  readonly engine: string;
  readonly priority: string;
}

export async function reclaimLostScans(db: Kysely<Database>): Promise<{
  readonly requeued: number;
  readonly failed: number;
  readonly failedScans: readonly LostScan[];
}> {
  const result = await db.executeQuery<{
    requeued: number;
    failed: number;
    failed_scans: LostScan[] | string;
  }>(
    CompiledQuery.raw(RECLAIM_SQL, [
      MAX_ATTEMPTS,
      `The worker running this scan stopped answering (after ${MAX_ATTEMPTS} attempts)`,
    ]),
  );
  const row = result.rows[0];
  // json arrives parsed from pg, as text from some drivers: both are read.
  const failedScans =
    typeof row?.failed_scans === 'string'
      ? (JSON.parse(row.failed_scans) as LostScan[])
      : (row?.failed_scans ?? []);
  return { requeued: row?.requeued ?? 0, failed: row?.failed ?? 0, failedScans };
}
