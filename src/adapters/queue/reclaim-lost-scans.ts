/**
 * Housekeeping any worker runs now and then: a running scan whose lease expired belongs to a
 * worker that stopped answering (killed, frozen, cut off). Its first loss puts it back in the queue
 * (one automatic retry); a second loss fails it with WORKER_LOST (decisions.md, "How a scan ends").
 * Both are plain status moves of the machine; concurrent housekeepers are harmless because each
 * UPDATE takes the row locks and re-checks the lease.
 */
import { type Kysely, sql } from 'kysely';
import { MOVES } from '../../domain/scans/status-machine.js';
import type { Database } from '../db/database.js';
import { notify, QUEUE_CHANNEL, recordEvents } from '../db/scan-rows.js';

/** Claims per scan before a lost worker fails it: the first run plus one retry. */
export const MAX_ATTEMPTS = 2;

export async function reclaimLostScans(
  db: Kysely<Database>,
): Promise<{ readonly requeued: number; readonly failed: number }> {
  return db.transaction().execute(async (trx) => {
    const requeued = await trx
      .updateTable('scans')
      .set({ status: MOVES.requeue.to, lease_owner: null, lease_expires_at: null, progress: 0 })
      .where('status', 'in', [...MOVES.requeue.from])
      .where('lease_expires_at', '<', sql<Date>`now()`)
      .where('attempts', '<', MAX_ATTEMPTS)
      .returning('id')
      .execute();
    const failedRows = await trx
      .updateTable('scans')
      .set({
        status: MOVES.fail.to,
        lease_owner: null,
        lease_expires_at: null,
        completed_at: sql`now()`,
        error_code: 'WORKER_LOST',
        error_message: `The worker running this scan stopped answering (after ${MAX_ATTEMPTS} attempts)`,
      })
      .where('status', 'in', ['running'])
      .where('lease_expires_at', '<', sql<Date>`now()`)
      .where('attempts', '>=', MAX_ATTEMPTS)
      .returning('id')
      .execute();
    await recordEvents(
      trx,
      'fail',
      failedRows.map((row) => row.id),
    );
    if (requeued.length > 0) {
      await notify(trx, QUEUE_CHANNEL);
    }
    return { requeued: requeued.length, failed: failedRows.length };
  });
}
