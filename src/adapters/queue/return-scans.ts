/**
 * A stopping worker hands back the scans it could not finish within its grace period: they go
 * back to the queue without counting the attempt (a clean shutdown is not a lost worker), and the
 * other workers are woken.
 */
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { MOVES } from '../../domain/scans/status-machine.js';
import type { Database } from '../db/database.js';
import { notify, QUEUE_CHANNEL } from '../db/scan-rows.js';

export async function returnScans(
  db: Kysely<Database>,
  workerId: string,
  scanIds: readonly string[],
): Promise<number> {
  if (scanIds.length === 0) {
    return 0;
  }
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .updateTable('scans')
      .set({
        status: MOVES.requeue.to,
        attempts: sql`greatest(attempts - 1, 0)`,
        lease_owner: null,
        lease_expires_at: null,
        progress: 0,
      })
      .where('id', 'in', [...scanIds])
      .where('lease_owner', '=', workerId)
      .where('status', 'in', [...MOVES.requeue.from])
      .returning('id')
      .execute();
    if (rows.length > 0) {
      await notify(trx, QUEUE_CHANNEL);
    }
    return rows.length;
  });
}
