/**
 * Claims the head of the queue for one worker: up to `limit` queued scans of the engines it runs,
 * in queue order (critical, high, normal, low; first in, first out within a priority), locked
 * with FOR UPDATE SKIP LOCKED so that concurrent workers never claim the same scan and never wait
 * for each other. The claim is a lease: `lease_expires_at` must be renewed by heartbeats, or the
 * scan is reclaimed (reclaim-lost-scans.ts). The scan.started events are written by the same
 * statement.
 */
import type { ScanRecord } from '../../domain/scans/scan.js';
import { MOVES } from '../../domain/scans/status-machine.js';
import type { DatabaseHandle } from '../db/connect.js';
import { type ScanColumnsRow, toScanRecord } from '../db/scan-rows.js';
import { moveCtes, statusList } from './scan-moves.js';

/**
 * One statement, so one round trip, run as a named prepared statement (planned once per
 * connection): claim, lease and the scan.started outbox rows. Measured with 8 workers on 20,000
 * queued scans (bench/queue.ts): BEGIN, claim, event insert and COMMIT as separate statements made
 * about 410 scans/s, one statement about 1,100, prepared about 1,650 (planning was 0.8 ms of a 1.3 ms
 * claim). The queue index is ordered by (priority_rank, seq); with table statistics the planner
 * walks it and stops at the first unlocked rows; without them (a fresh, bulk-filled table) it
 * sorts the whole queue (~7 ms for 20,000 rows) until autovacuum has analyzed it.
 */
/**
 * The claim as CTEs (`claimable`, then the start move's `claimed` and `claimed_events`) for a
 * statement of its own or for finish-scan's complete-and-claim. `owner` and `lease` are the
 * placeholders of the worker id and the lease in milliseconds; `owner` may instead be a text[] of
 * `limit` worker ids (`ownerPerScan`), the n-th claimed scan (in queue order) leased to the n-th.
 */
export function claimCtes(
  engines: readonly string[],
  limit: number,
  owner: string,
  lease: string,
  ownerPerScan = false,
): string {
  if (
    !Number.isInteger(limit) ||
    limit < 1 ||
    engines.some((engine) => !ENGINE_WORD.test(engine))
  ) {
    throw new TypeError(`claimScans: bad engines or limit: ${engines.join(',')} ${limit}`);
  }
  const head = `select id from scans
    where status in (${statusList(MOVES.start.from)})
      and scan_type in (${engines.map((engine) => `'${engine}'`).join(', ')})
    order by priority_rank, seq
    limit ${limit}
    for update skip locked`;
  return `claimable as (${
    ownerPerScan
      ? `select locked.id, owners.owner from (select id, row_number() over () as n from (${head}) head) locked
    join unnest(${owner}::text[]) with ordinality as owners(owner, n) on owners.n = locked.n`
      : head
  }),
  ${moveCtes('claimed', 'start', {
    set: [
      'attempts = scans.attempts + 1',
      `lease_owner = ${ownerPerScan ? 'claimable.owner' : owner}`,
      `lease_expires_at = now() + ${lease}::integer * interval '1 millisecond'`,
      'started_at = now()',
      'completed_at = null',
      'progress = 0',
    ],
    from: 'claimable',
    where: ['scans.id = claimable.id'],
    extra: ['scans.lease_owner'],
  })}`;
}

/** What a worker asks for: up to `limit` scans of these engines, leased for `leaseMs`. */
export interface ClaimRequest {
  readonly engines: readonly string[];
  readonly limit: number;
  readonly leaseMs: number;
}

/** Engine names are plain words; they are written into SQL, so nothing else may pass. */
const ENGINE_WORD = /^[a-z][a-z0-9]{0,31}$/;

export async function claimScans(
  database: DatabaseHandle,
  workerId: string,
  engines: readonly string[],
  limit: number,
  leaseMs: number,
): Promise<ScanRecord[]> {
  if (limit <= 0 || engines.length === 0) {
    return [];
  }
  // Engines and limit are written into the statement (one prepared statement per combination a
  // worker uses): with them as parameters PostgreSQL re-planned every execution (its generic plan
  // sorts the whole queue), 0.82 ms a claim; as constants 0.41 ms.
  const rows = await database.prepared<ScanColumnsRow>({
    name: `rampart_claim_${limit}_${engines.join('_')}`,
    text: `with ${claimCtes(engines, limit, '$1', '$2')} select * from claimed`,
    values: [workerId, leaseMs],
  });
  return rows.map(toScanRecord);
}
