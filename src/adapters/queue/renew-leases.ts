/**
 * The heartbeat of a worker's running scans: extends the lease of each scan it still holds and
 * returns their ids. A scan missing from the answer was cancelled, or its lease was lost and the
 * scan given to another worker: the caller stops running it.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.js';

export async function renewLeases(
  db: Kysely<Database>,
  workerId: string,
  scanIds: readonly string[],
  leaseMs: number,
): Promise<Set<string>> {
  if (scanIds.length === 0) {
    return new Set();
  }
  const rows = await db
    .updateTable('scans')
    .set({ lease_expires_at: sql`now() + ${leaseMs} * interval '1 millisecond'` })
    .where('id', 'in', [...scanIds])
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')
    .returning('id')
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Records a running scan's progress (0..99; completion sets 100). Not a status write. */
export async function setProgress(
  db: Kysely<Database>,
  workerId: string,
  scanId: string,
  progress: number,
): Promise<void> {
  await db
    .updateTable('scans')
    .set({ progress: Math.max(0, Math.min(99, Math.round(progress))) })
    .where('id', '=', scanId)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running')
    .execute();
}
