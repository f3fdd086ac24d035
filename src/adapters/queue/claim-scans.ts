/**
 * Claims the head of the queue for one worker: up to `limit` queued scans of the engines it runs,
 * in queue order (critical, high, normal, low; first in, first out within a priority) with tenants
 * taking turns within a priority and each held to its cap on running scans (see claimLockCtes),
 * locked with FOR UPDATE SKIP LOCKED so that concurrent workers never claim the same scan. The
 * claim is a lease: `lease_expires_at` must be renewed by heartbeats, or the scan is reclaimed
 * (reclaim-lost-scans.ts). The scan.started events are written by the same statement.
 */
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { DatabaseHandle } from '../db/connect.js';
import { type ScanColumnsRow, toScanRecord } from '../db/scan-rows.js';
import { moveCtes } from './scan-moves.js';

/**
 * One statement, so one round trip, run as a named prepared statement (planned once per
 * connection): claim, lease and the scan.started outbox rows. Measured with 8 workers on 20,000
 * queued scans (bench/queue.ts): BEGIN, claim, event insert and COMMIT as separate statements made
 * about 410 scans/s, one statement about 1,100, prepared about 1,650 (planning was 0.8 ms of a 1.3 ms
 * claim).
 *
 * Fair claims: the queue order (critical, high, normal, low; first in, first out) holds for each
 * tenant's own scans, and within a priority tenants take turns: the n-th queued scan of each
 * tenant at that priority comes before any tenant's (n+1)-th, and among tenants the one that got a
 * scan longest ago (`tenants.last_claimed_at`) goes first. A tenant gets no more scans than its
 * room: its cap (`max_running_scans`, else the service default) less the scans workers hold for it
 * (sentinel children included). Suspended tenants get none.
 *
 * The cap is exact with any number of claimers. The claim locks the rows of the tenants with queued
 * work (FOR NO KEY UPDATE, in id order, so claims never deadlock; creating scans is not blocked),
 * so claims for the same tenant take turns. A claim that waited sees the locked row as the other
 * committed it, but its count of running scans is from its own snapshot, which misses the scans
 * claimed meanwhile; `tenants.scans_claimed`, which only claims add to, makes up for that: its
 * locked value less its value in the snapshot is what was claimed since. (Scans that ended since
 * are still counted: a claim may give out less than the room, never more.) Window functions and
 * FOR UPDATE cannot share a query level, so each tenant's head is locked (SKIP LOCKED) in a
 * LATERAL subquery and the turns are numbered one level up.
 *
 * Lock order: tenant rows before scan rows, everywhere. A claim takes all its tenant rows before
 * any scan row (SKIP LOCKED rows it then skips may stay locked: a row queued in its snapshot but
 * claimed since is locked, rechecked and left out, and its lock is kept to the end of the
 * statement); finish-scan's complete-and-claim takes them before the scans it completes, and
 * suspending a tenant takes the tenant row before the scans it stops. A claim that waited for a
 * tenant row while holding a scan row deadlocked with a complete-and-claim (measured: bench/
 * fair-claims.ts hit `deadlock detected` every few seconds until the tenant rows were gated).
 */
/**
 * The first CTEs of a claim: `claim_heads` (the tenants with queued scans of these engines, by a
 * skip scan over the queue's tenant index) and `claim_tenants` (their rows, locked).
 */
export function claimLockCtes(request: ClaimRequest): string {
  checkRequest(request);
  const engines = engineList(request.engines);
  return `claim_heads as (
    with recursive heads as (
      (select tenant_id from scans
        where status = 'queued' and scan_type in (${engines})
        order by tenant_id limit 1)
      union all
      select (select s.tenant_id from scans s
          where s.status = 'queued' and s.scan_type in (${engines}) and s.tenant_id > heads.tenant_id
          order by s.tenant_id limit 1)
      from heads where heads.tenant_id is not null
    )
    select tenant_id from heads where tenant_id is not null
  ),
  claim_tenants as materialized (
    select t.id, t.status, t.scans_claimed, t.last_claimed_at,
      coalesce(t.max_running_scans, ${request.tenantMaxRunningScans}) as cap
    from tenants t
    where t.id in (select tenant_id from claim_heads)
    order by t.id
    for no key update of t
  )`;
}

/**
 * The rest of the claim, after claimLockCtes: `claimable`, then the start move's `claimed` and
 * `claimed_events`, and the tenants' turns. `owner` and `lease` are the placeholders of the worker
 * id and the lease in milliseconds; `owner` may instead be a text[] of `limit` worker ids
 * (`ownerPerScan`), the n-th claimed scan (in claim order) leased to the n-th. `freed` names a CTE
 * of the same statement whose rows (with `tenant_id`) are held scans this statement ends: their
 * slots count as free.
 */
export function claimCtes(
  request: ClaimRequest,
  owner: string,
  lease: string,
  options: { readonly ownerPerScan?: boolean; readonly freed?: string } = {},
): string {
  checkRequest(request);
  const { limit } = request;
  const engines = engineList(request.engines);
  const freed =
    options.freed === undefined
      ? ''
      : ` + (select count(*) from ${options.freed} f where f.tenant_id = l.id)`;
  const ordered = `select id, tenant_id, row_number() over (
      order by priority_rank, turn, last_claimed_at nulls first, seq) as n
    from (
      select c.*, row_number() over (partition by c.tenant_id, c.priority_rank order by c.seq) as turn
      from claim_candidates c
    ) ranked
    order by n
    limit ${limit}`;
  return `claim_room as materialized (
    select l.id, l.last_claimed_at,
      l.cap
        - (select count(*) from scans r
            where r.tenant_id = l.id and r.status = 'running' and r.lease_owner is not null)
        - (l.scans_claimed - (select t.scans_claimed from tenants t where t.id = l.id))${freed}
        as room
    from claim_tenants l
    -- Every tenant row is locked before the first LATERAL below locks a scan row: a CTE is read
    -- row by row, and a claim holding a scan row while it waits for a tenant row deadlocks
    -- with a complete-and-claim holding that tenant and waiting for that scan row.
    where l.status = 'active' and (select count(*) from claim_tenants) >= 0
  ),
  claim_candidates as materialized (
    select c.id, c.tenant_id, c.priority_rank, c.seq, r.last_claimed_at
    from claim_room r cross join lateral (
      select s.id, s.tenant_id, s.priority_rank, s.seq from scans s
      where s.tenant_id = r.id and s.status = 'queued' and s.scan_type in (${engines})
      order by s.priority_rank, s.seq
      limit greatest(0, least(r.room, ${limit}))
      for update of s skip locked
    ) c
  ),
  claimable as (${
    options.ownerPerScan === true
      ? `select chosen.id, owners.owner from (${ordered}) chosen
    join unnest(${owner}::text[]) with ordinality as owners(owner, n) on owners.n = chosen.n`
      : ordered
  }),
  ${moveCtes('claimed', 'start', {
    set: [
      'attempts = scans.attempts + 1',
      `lease_owner = ${options.ownerPerScan === true ? 'claimable.owner' : owner}`,
      `lease_expires_at = now() + ${lease}::integer * interval '1 millisecond'`,
      'started_at = now()',
      'completed_at = null',
      'progress = 0',
    ],
    from: 'claimable',
    where: ['scans.id = claimable.id'],
    extra: ['scans.lease_owner'],
  })},
  claim_turns as (
    update tenants t
    set scans_claimed = t.scans_claimed + g.n, last_claimed_at = now()
    from (select tenant_id, count(*) as n from claimed group by tenant_id) g
    where t.id = g.tenant_id
  )`;
}

function checkRequest(request: ClaimRequest): void {
  const { limit, engines, tenantMaxRunningScans: cap } = request;
  if (
    !Number.isInteger(limit) ||
    limit < 1 ||
    !Number.isInteger(cap) ||
    cap < 1 ||
    engines.length === 0 ||
    engines.some((engine) => !ENGINE_WORD.test(engine))
  ) {
    throw new TypeError(
      `claimScans: bad engines, limit or cap: ${engines.join(',')} ${limit} ${cap}`,
    );
  }
}

const engineList = (engines: readonly string[]) =>
  engines.map((engine) => `'${engine}'`).join(', ');

/**
 * What a worker asks for: up to `limit` scans of these engines, leased for `leaseMs`, for tenants
 * whose cap is `tenantMaxRunningScans` unless an admin set another (TENANT_MAX_RUNNING_SCANS).
 */
export interface ClaimRequest {
  readonly engines: readonly string[];
  readonly limit: number;
  readonly leaseMs: number;
  readonly tenantMaxRunningScans: number;
}

/** TENANT_MAX_RUNNING_SCANS when unset. */
export const DEFAULT_TENANT_MAX_RUNNING_SCANS = 4;

/** Engine names are plain words; they are written into SQL, so nothing else may pass. */
const ENGINE_WORD = /^[a-z][a-z0-9]{0,31}$/;

export async function claimScans(
  database: DatabaseHandle,
  workerId: string,
  request: ClaimRequest,
): Promise<ScanRecord[]> {
  const { engines, limit, leaseMs, tenantMaxRunningScans } = request;
  if (limit <= 0 || engines.length === 0) {
    return [];
  }
  // Engines, limit and the default cap are written into the statement (one prepared statement per
  // combination a worker uses): with them as parameters PostgreSQL re-planned every execution (its
  // generic plan sorts the whole queue), 0.82 ms a claim; as constants 0.41 ms.
  const rows = await database.prepared<ScanColumnsRow>({
    name: `rampart_claim_${limit}_${tenantMaxRunningScans}_${engines.join('_')}`,
    text: `with ${claimLockCtes(request)},
    ${claimCtes(request, '$1', '$2')}
    select * from claimed`,
    values: [workerId, leaseMs],
  });
  return rows.map(toScanRecord);
}
