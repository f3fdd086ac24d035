/**
 * Ends a scan a worker ran: stores its findings and the summary, and lands the run's ending on the
 * row as the status machine decides (decideFinish), in one transaction: a scan the worker holds
 * completes or fails, one cancelled meanwhile (or failed by its tenant's suspension) keeps its
 * status and gets the findings collected so far (partial results), one whose lease went to
 * another worker is left alone.
 */
import type { FindingsSummary, FingerprintedFinding } from '../../domain/findings/finding.js';
import { enginesThatLooked } from '../../domain/issues/issue.js';
import type { ScanIssueChanges } from '../../domain/issues/scan-changes.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import {
  decideFinish,
  type FinishDecision,
  type RunEnding,
} from '../../domain/scans/status-machine.js';
import type { DatabaseHandle } from '../db/connect.js';
import { insertFindings } from '../db/findings.repository.js';
import { fixMissedIssuesCtes, updateIssuesForScan } from '../db/issues.repository.js';
import { createKeyedBatcher, type KeyedBatcher } from '../db/keyed-batcher.js';
import { type Db, type ScanColumnsRow, toScanRecord } from '../db/scan-rows.js';
import { type ClaimRequest, claimCtes, claimLockCtes } from './claim-scans.js';
import { moveCtes, moveScan, NOW } from './scan-moves.js';

export interface ScanResults {
  readonly findings: readonly FingerprintedFinding[];
  readonly summary: FindingsSummary;
  readonly riskScore: number;
}

/**
 * What happened: `finished` (moved), `kept-ended` (ended meanwhile by a cancel or the kill switch:
 * partial results stored), `lost`.
 */
export type FinishOutcome = 'finished' | 'kept-ended' | 'lost';

/**
 * Ends a scan and, when `next` asks for it, claims the worker's next scans in the same statement
 * (the fast path only: a completed run without findings). With 8 workers on instant scans a
 * worker's finish and its next claim as one round trip instead of two raised the claim rate
 * from about 2,800 to about 3,000 scans/s; without the outbox index and foreign key, 3,600
 * (bench/queue.ts). Fast-path finishes of one process (any of its workers, same engines and
 * lease) that arrive while one is in flight go together as the next statement
 * (completeAndClaimSql): with 8 workers on 20,000 instant scans the process then used about half
 * of the machine's CPU instead of all of it, at 2,000-2,900 scans/s against 1,500-2,050 (noisy
 * runs; graphile-worker 1,900-2,400 jobs/s in the same rounds).
 */
export async function finishScan(
  database: DatabaseHandle,
  workerId: string,
  scanId: string,
  ending: RunEnding,
  results: ScanResults,
  next: ClaimRequest | null = null,
): Promise<{ readonly outcome: FinishOutcome; readonly claimed: ScanRecord[] }> {
  const fast = results.findings.length === 0 && ending.kind === 'completed';
  if (fast && next !== null && next.limit > 0) {
    const done = await finishesOf(database).submit(
      `${next.leaseMs} ${next.tenantMaxRunningScans} ${next.engines.join(' ')}`,
      {
        scanId,
        workerId,
        summary: JSON.stringify(results.summary),
        next,
      },
    );
    if (done.moved) {
      return { outcome: 'finished', claimed: done.claimed };
    }
    // Not moved: cancelled meanwhile, or lost. The locked path decides which.
    return {
      outcome: await finishLocked(database, workerId, scanId, ending, results),
      claimed: done.claimed,
    };
  }
  // A failed run without findings needs no transaction when its scan is still running under
  // this worker's lease: the move alone, guarded by the lease (it changes no issue). Otherwise
  // (findings to store, a completion that may fix issues, a cancel, a lost lease) the row is
  // locked and the status machine decides.
  if (results.findings.length === 0 && ending.kind === 'failed') {
    if (await move(database.db, workerId, scanId, { kind: 'fail', error: ending.error }, results)) {
      return { outcome: 'finished', claimed: [] };
    }
  }
  return { outcome: await finishLocked(database, workerId, scanId, ending, results), claimed: [] };
}

/** One fast-path finish: this worker's scan ends, and it asks for `next.limit` scans. */
interface FastFinish {
  readonly scanId: string;
  readonly workerId: string;
  /** The summary as JSON (all zeros: the run found nothing). */
  readonly summary: string;
  readonly next: ClaimRequest;
}

interface FastFinishDone {
  /** Whether the scan was moved to completed (else it is left to the slow path). */
  readonly moved: boolean;
  readonly claimed: ScanRecord[];
}

/**
 * Completes the scans of `$1` held by the workers of `$2` (same positions) with the summaries of
 * `$3`, and claims up to `limit` queued scans for the leases listed in `$4` (a worker id once per
 * scan it asks for; the n-th claimed scan goes to the n-th entry), each leased for `$5` ms, with
 * the scan.completed and scan.started events. The claim order (claim-scans.ts) is kept across the
 * batch: the n-th claimed scan is the n-th the claim chose. The slots of the scans completed here
 * count as free for their tenants' caps. The completed scans (sentinel children aside) move the
 * issues of their target and engine to fixed: they found nothing (issues.repository.ts).
 */
function completeAndClaimSql(request: ClaimRequest): string {
  // The tenants' rows are locked (claimLockCtes) before the scans this statement completes:
  // `done` waits for `claim_tenants`, so the lock order is the claim's (claim-scans.ts).
  return `with ${claimLockCtes(request)},
  done as (
    select * from unnest($1::uuid[], $2::text[], $3::text[]) as d(id, owner, summary)
    where (select count(*) from claim_tenants) >= 0
  ),
  ${moveCtes('moved', 'complete', {
    set: [
      'result_count = 0',
      'findings_summary = done.summary::jsonb',
      'risk_score = 0',
      'lease_owner = null',
      'lease_expires_at = null',
      'progress = 100',
      'completed_at = now()',
    ],
    from: 'done',
    where: ['scans.id = done.id', 'scans.lease_owner = done.owner'],
    returns: 'event',
  })},
  moved_issue_scans as (
    select id as scan_id, tenant_id, target, scan_type as engine from moved
    where parent_scan_id is null
  ),
  ${fixMissedIssuesCtes('moved_issue_scans')},
  ${claimCtes(request, '$4', '$5', { ownerPerScan: true, freed: 'moved' })}
  select m.moved_ids, claimed.* from (select array_agg(id)::text[] as moved_ids from moved) m
  left join claimed on true`;
}

/** The finishes of each database handle's process, batched by engines and lease. */
const finishBatchers = new WeakMap<DatabaseHandle, KeyedBatcher<FastFinish, FastFinishDone>>();

/** At most this many finishes in one statement. */
const MAX_FINISH_BATCH = 32;

function finishesOf(database: DatabaseHandle): KeyedBatcher<FastFinish, FastFinishDone> {
  let batcher = finishBatchers.get(database);
  if (batcher === undefined) {
    batcher = createKeyedBatcher((_key, batch) => finishBatch(database, batch), {
      maxBatch: MAX_FINISH_BATCH,
    });
    finishBatchers.set(database, batcher);
  }
  return batcher;
}

/**
 * Runs one batch of fast-path finishes (all with the same engines and lease). When the statement
 * fails, each finish is tried again on its own, so an error reaches only the finish that caused it.
 */
async function finishBatch(
  database: DatabaseHandle,
  batch: readonly FastFinish[],
): Promise<PromiseSettledResult<FastFinishDone>[]> {
  try {
    const done = await completeAndClaim(database, batch);
    return done.map((value) => ({ status: 'fulfilled', value }));
  } catch (error) {
    if (batch.length === 1) {
      return [{ status: 'rejected', reason: error }];
    }
  }
  const results: PromiseSettledResult<FastFinishDone>[] = [];
  for (const finish of batch) {
    try {
      const [done] = await completeAndClaim(database, [finish]);
      results.push({ status: 'fulfilled', value: done as FastFinishDone });
    } catch (error) {
      results.push({ status: 'rejected', reason: error });
    }
  }
  return results;
}

async function completeAndClaim(
  database: DatabaseHandle,
  batch: readonly FastFinish[],
): Promise<FastFinishDone[]> {
  const first = batch[0];
  if (first === undefined) {
    return [];
  }
  const leases = batch.flatMap((finish) => Array(finish.next.limit).fill(finish.workerId));
  const rows = await database.prepared<
    ScanColumnsRow & { moved_ids: string[] | null; lease_owner: string | null }
  >({
    name: `rampart_complete_claim_${leases.length}_${first.next.tenantMaxRunningScans}_${first.next.engines.join('_')}`,
    text: completeAndClaimSql({ ...first.next, limit: leases.length }),
    values: [
      batch.map((finish) => finish.scanId),
      batch.map((finish) => finish.workerId),
      batch.map((finish) => finish.summary),
      leases,
      first.next.leaseMs,
    ],
  });
  const moved = new Set(rows[0]?.moved_ids ?? []);
  // Each worker's claimed scans, in queue order, handed out to its finishes by their limits.
  const claimedBy = new Map<string, ScanRecord[]>();
  for (const row of rows) {
    if (row.id !== null && row.lease_owner !== null) {
      const list = claimedBy.get(row.lease_owner) ?? [];
      list.push(toScanRecord(row));
      claimedBy.set(row.lease_owner, list);
    }
  }
  return batch.map((finish) => ({
    moved: moved.has(finish.scanId),
    claimed: claimedBy.get(finish.workerId)?.splice(0, finish.next.limit) ?? [],
  }));
}

/** The counts a finish stores, and the lease let go. */
function countsOf(results: ScanResults) {
  return {
    result_count: results.findings.length,
    findings_summary: JSON.stringify(results.summary),
    risk_score: results.riskScore,
    lease_owner: null,
    lease_expires_at: null,
  };
}

/** The decisions that move a scan the worker holds. */
type HeldMove = Extract<FinishDecision, { readonly kind: 'complete' | 'fail' }>;

/** Makes the decided move of a scan this worker holds; false when its row did not move. */
async function move(
  db: Db,
  workerId: string,
  scanId: string,
  decision: HeldMove,
  results: ScanResults,
  issueChanges: ScanIssueChanges | null = null,
): Promise<boolean> {
  const counts = countsOf(results);
  const moved =
    decision.kind === 'complete'
      ? await moveScan(
          db,
          'complete',
          scanId,
          { ...counts, progress: 100, completed_at: NOW },
          { leaseOwner: workerId },
          issueChanges,
        )
      : await moveScan(
          db,
          'fail',
          scanId,
          {
            ...counts,
            completed_at: NOW,
            error_code: decision.error.code,
            error_message: decision.error.message,
          },
          { leaseOwner: workerId },
        );
  return moved !== null;
}

/** Locks the row, lets the status machine decide, stores the findings and lands the end. */
async function finishLocked(
  database: DatabaseHandle,
  workerId: string,
  scanId: string,
  ending: RunEnding,
  results: ScanResults,
): Promise<FinishOutcome> {
  return database.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('scans')
      .select(['status', 'lease_owner', 'tenant_id', 'scan_type', 'target', 'parent_scan_id'])
      .where('id', '=', scanId)
      .forUpdate()
      .executeTakeFirst();
    const decision = decideFinish(
      current === undefined
        ? null
        : { status: current.status, leaseHeld: current.lease_owner === workerId },
      ending,
    );
    if (current === undefined || decision.kind === 'lost') {
      return 'lost';
    }
    const scan = { id: scanId, tenantId: current.tenant_id, scanType: current.scan_type };
    await insertFindings(trx, scan, results.findings);
    // A sentinel child's findings reach issues through its parent's correlated findings.
    const issueChanges =
      current.parent_scan_id === null
        ? await updateIssuesForScan(trx, {
            scanId,
            tenantId: current.tenant_id,
            target: current.target,
            end: decision.kind === 'complete' ? 'completed' : 'partial',
            engines: enginesThatLooked(current.scan_type, null),
          })
        : null;
    if (decision.kind === 'keep-ended') {
      // Not a status write: the counts of the partial results, and the lease let go.
      await trx.updateTable('scans').set(countsOf(results)).where('id', '=', scanId).execute();
      return 'kept-ended';
    }
    // The completion's event carries what it changed in the issues (webhook filters).
    if (!(await move(trx, workerId, scanId, decision, results, issueChanges))) {
      throw new Error(`scan ${scanId} could not be moved after its row was locked`);
    }
    return 'finished';
  });
}
