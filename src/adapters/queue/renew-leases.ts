/**
 * The heartbeat of a worker's running scans: extends the lease of each scan it still holds and
 * returns their ids. A scan missing from the answer was cancelled, or its lease was lost and the
 * scan given to another worker: the caller stops running it.
 */
import { type Kysely, sql } from 'kysely';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { Database } from '../db/database.js';
import { SCAN_COLUMNS, toScanRecord } from '../db/scan-rows.js';

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

/**
 * The running scans leased to `workerId` other than `runningIds`: scans a claim gave this worker
 * in a statement that committed while its answer was lost (the connection cut after the commit).
 * The worker does not know it holds them; without this they would wait for their lease to end and
 * run a second time.
 */
export async function unknownHeldScans(
  db: Kysely<Database>,
  workerId: string,
  runningIds: readonly string[],
): Promise<ScanRecord[]> {
  let query = db
    .selectFrom('scans')
    .select(SCAN_COLUMNS)
    .where('lease_owner', '=', workerId)
    .where('status', '=', 'running');
  if (runningIds.length > 0) {
    query = query.where('id', 'not in', [...runningIds]);
  }
  const rows = await query.execute();
  return rows.map(toScanRecord);
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
