/**
 * Claims the head of the queue for one worker: up to `limit` queued scans of the engines it runs,
 * in queue order (critical, high, normal, low; first in, first out within a priority), locked
 * with FOR UPDATE SKIP LOCKED so that concurrent workers never claim the same scan and never wait
 * for each other. The claim is a lease: `lease_expires_at` must be renewed by heartbeats, or the
 * scan is reclaimed (reclaim-lost-scans.ts). The scan.started events are written in the same
 * transaction.
 */
import { type Kysely, sql } from 'kysely';
import type { ScanRecord } from '../../domain/scans/scan.js';
import { MOVES } from '../../domain/scans/status-machine.js';
import type { Database } from '../db/database.js';
import { recordEvents, SCAN_COLUMNS, type ScanColumnsRow, toScanRecord } from '../db/scan-rows.js';

export async function claimScans(
  db: Kysely<Database>,
  workerId: string,
  engines: readonly string[],
  limit: number,
  leaseMs: number,
): Promise<ScanRecord[]> {
  if (limit <= 0 || engines.length === 0) {
    return [];
  }
  const { from, to } = MOVES.start;
  const columns = sql.join(SCAN_COLUMNS.map((column) => sql.ref(`scans.${column}`)));
  return db.transaction().execute(async (trx) => {
    const result = await sql<ScanColumnsRow>`
      with claimable as (
        select id from scans
        where status in (${sql.join(from)}) and scan_type in (${sql.join([...engines])})
        order by priority_rank, seq
        limit ${limit}
        for update skip locked
      )
      update scans
      set status = ${to},
          attempts = scans.attempts + 1,
          lease_owner = ${workerId},
          lease_expires_at = now() + ${leaseMs} * interval '1 millisecond',
          started_at = now(),
          completed_at = null,
          progress = 0
      from claimable
      where scans.id = claimable.id
      returning ${columns}`.execute(trx);
    const scans = result.rows.map(toScanRecord);
    await recordEvents(trx, 'start', scans);
    return scans;
  });
}
