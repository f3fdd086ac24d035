/**
 * A worker's run of one claimed scan, from the claim to the recorded end: its parent (if it is a
 * child scan) is started, the engine runs with its progress written at most once a second, and
 * the end is stored through finish-scan (which may claim the worker's next scans in the same
 * statement). The worker's loop (scan-worker.ts) decides when to claim and when to stop.
 */
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import type { ClaimRequest } from '../adapters/queue/claim-scans.js';
import { type FinishOutcome, finishScan } from '../adapters/queue/finish-scan.js';
import { setProgress } from '../adapters/queue/renew-leases.js';
import { emptySummary } from '../domain/findings/summary.js';
import type { ScanRecord } from '../domain/scans/scan.js';
import { type RunScanDeps, runScan } from '../use-cases/scans/run-scan.js';

/**
 * What a child scan's parent does as the child moves; the worker calls it for every scan that has
 * a parent (use-cases/scans/sentinel-lifecycle.ts implements it).
 */
export interface ParentScanHooks {
  childStarted(parentId: string): Promise<void>;
  childProgressed(parentId: string): Promise<void>;
  childEnded(parentId: string): Promise<void>;
  /** Housekeeping: collects the parents nobody collected; returns how many. */
  collectPending(): Promise<number>;
}

/** Why a run was aborted: a cancel, a lease given to another worker, or the worker stopping. */
export type AbortReason = 'cancelled' | 'lost' | 'shutdown';

export interface ScanRunContext {
  readonly workerId: string;
  readonly database: DatabaseHandle;
  readonly engines: RunScanDeps;
  readonly parents: ParentScanHooks;
  readonly log: Logger;
}

/** How the finish went, and the scans claimed with it (the worker starts them). */
export interface RunEnd {
  readonly outcome: FinishOutcome | 'stopped';
  readonly claimed: readonly ScanRecord[];
}

const PROGRESS_WRITE_INTERVAL_MS = 1000;

function progressWriter(context: ScanRunContext, scan: ScanRecord): (percent: number) => void {
  const { database, workerId, parents, log } = context;
  let lastProgressAt = 0;
  let lastProgress = 0;
  return (percent) => {
    const now = Date.now();
    if (percent <= lastProgress || now - lastProgressAt < PROGRESS_WRITE_INTERVAL_MS) {
      return;
    }
    lastProgress = percent;
    lastProgressAt = now;
    setProgress(database.db, workerId, scan.id, percent)
      .then(() =>
        scan.parentScanId === null ? undefined : parents.childProgressed(scan.parentScanId),
      )
      .catch((error: unknown) =>
        log.warn({ err: error, scanId: scan.id }, 'could not record progress'),
      );
  };
}

/**
 * Runs `scan` and records its end. `next` is asked, once the run is over, for the claim to make
 * in the same statement as the finish (null: none); `finished` gets the finish's outcome and the
 * scans claimed with it as soon as it is stored, before the parent (if any) is collected. A run
 * aborted for shutdown or a lost lease records nothing (the scan goes back to the queue, or is
 * another worker's now).
 */
export async function runClaimedScan(
  context: ScanRunContext,
  scan: ScanRecord,
  signal: AbortSignal,
  next: () => ClaimRequest | null,
  finished: (end: RunEnd) => void,
): Promise<void> {
  const { database, workerId, parents, log } = context;
  const parentId = scan.parentScanId;
  let reported = false;
  const report = (end: RunEnd) => {
    if (!reported) {
      reported = true;
      finished(end);
    }
  };
  try {
    if (parentId !== null) {
      await parents
        .childStarted(parentId)
        .catch((error: unknown) =>
          log.warn({ err: error, scanId: parentId }, 'could not start the parent scan'),
        );
    }
    const result = await runScan(context.engines, scan, signal, progressWriter(context, scan));
    const reason = signal.reason as AbortReason | undefined;
    if (reason === 'shutdown' || reason === 'lost') {
      report({ outcome: 'stopped', claimed: [] });
      return;
    }
    const end = await finishScan(database, workerId, scan.id, result.ending, result, next());
    report(end);
    log.info(
      {
        scanId: scan.id,
        outcome: end.outcome,
        ending: result.ending.kind,
        findings: result.findings.length,
        // The tool's last words on an engine error: here only, never in the scan's error.
        ...(result.detail ? { detail: result.detail } : {}),
      },
      'scan ended',
    );
  } catch (error) {
    log.error({ err: error, scanId: scan.id }, 'scan run failed');
    report({ outcome: 'lost', claimed: [] });
    await finishScan(
      database,
      workerId,
      scan.id,
      {
        kind: 'failed',
        error: { code: 'ENGINE_ERROR', message: 'Internal error while running the scan' },
      },
      { findings: [], summary: emptySummary(), riskScore: 0 },
    ).catch((inner: unknown) => log.error({ err: inner, scanId: scan.id }, 'could not fail scan'));
  }
  if (parentId !== null) {
    await parents
      .childEnded(parentId)
      .catch((error: unknown) =>
        log.error({ err: error, scanId: parentId }, 'could not collect the parent scan'),
      );
  }
}
