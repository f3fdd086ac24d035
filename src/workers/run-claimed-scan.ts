/**
 * A worker's run of one claimed scan, from the claim to the recorded end: its parent (if it is a
 * child scan) is started, the engine runs with its progress written at most once a second, and
 * the end is stored through finish-scan (which may claim the worker's next scans in the same
 * statement). The worker's loop (scan-worker.ts) decides when to claim and when to stop.
 *
 * A finished run is never lost to a database outage: its end (findings included) stays in memory
 * and storing it is retried with backoff (STORE_END_BACKOFF) for as long as the database is away,
 * while the scan stays with the worker, whose heartbeat keeps renewing its lease. Retrying ends
 * when the end is stored or finish-scan says the scan is no longer this worker's (cancelled, or
 * another worker's after a lost lease), or when the worker's shutdown grace is over (the lease
 * then decides). A store that fails for another reason is not retried: the scan is failed with
 * ENGINE_ERROR instead, once (a rerun would most likely fail the same way).
 */
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import type { ClaimRequest } from '../adapters/queue/claim-scans.js';
import { type FinishOutcome, finishScan, type ScanResults } from '../adapters/queue/finish-scan.js';
import { setProgress } from '../adapters/queue/renew-leases.js';
import { emptySummary } from '../domain/findings/summary.js';
import type { ScanRecord } from '../domain/scans/scan.js';
import type { RunEnding } from '../domain/scans/status-machine.js';
import type { ServiceMetrics } from '../use-cases/ports/metrics.js';
import type { ScanTracing } from '../use-cases/ports/tracing.js';
import { type RunScanDeps, runScan, type ScanRunResult } from '../use-cases/scans/run-scan.js';
import { backoffDelay, pause, STORE_END_BACKOFF } from './backoff.js';
import type { OutageLog } from './outage-log.js';

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
  /** Where failed database calls are reported (one line per outage). */
  readonly outage: OutageLog;
  /** Aborted when the worker's shutdown grace is over: an end not stored by then is given up. */
  readonly shutdown: AbortSignal;
  /** Counts starts (queue wait), stored ends (duration) and findings. */
  readonly metrics: ServiceMetrics;
  /** The `scan.run` span of each run, continuing the trace stored with the scan. */
  readonly tracing: ScanTracing;
}

/**
 * How the end went, and the scans claimed with it (the worker starts them). `stopped`: aborted
 * for shutdown or a lost lease, nothing recorded; `unstored`: the end could not be stored (the
 * worker stopped while the database was away, or storing failed twice), the lease decides.
 */
export interface RunEnd {
  readonly outcome: FinishOutcome | 'stopped' | 'unstored';
  readonly claimed: readonly ScanRecord[];
}

/** How a run and the worker that started it talk about the run's end. */
export interface RunCallbacks {
  /**
   * Asked once, just before the end is first stored: the claim to make in the same statement
   * (null: none).
   */
  next(): ClaimRequest | null;
  /** The statement that carried next()'s claim failed: no scan was claimed with it. */
  claimDropped(): void;
  /** The end is settled (stored, or given up): the scan's slot is free. Called once. */
  finished(end: RunEnd): void;
}

const PROGRESS_WRITE_INTERVAL_MS = 1000;

const NO_RESULTS: ScanResults = { findings: [], summary: emptySummary(), riskScore: 0 };

function internalError(message: string): RunEnding {
  return { kind: 'failed', error: { code: 'ENGINE_ERROR', message } };
}

function progressWriter(context: ScanRunContext, scan: ScanRecord): (percent: number) => void {
  const { database, workerId, parents, outage } = context;
  let lastProgressAt = 0;
  let lastProgress = 0;
  return (percent) => {
    const now = Date.now();
    if (percent <= lastProgress || now - lastProgressAt < PROGRESS_WRITE_INTERVAL_MS) {
      return;
    }
    lastProgress = percent;
    lastProgressAt = now;
    const began = outage.begin();
    setProgress(database.db, workerId, scan.id, percent)
      .then(() =>
        scan.parentScanId === null ? undefined : parents.childProgressed(scan.parentScanId),
      )
      .then(
        () => outage.succeeded(began),
        (error: unknown) => outage.failed(error, began, 'recording progress', { scanId: scan.id }),
      );
  };
}

/**
 * Runs `scan` and records its end (see the file comment), in a `scan.run` span whose parent is
 * the trace context stored with the scan (the request that created it). A run aborted for
 * shutdown or a lost lease records nothing (the scan goes back to the queue, or is another
 * worker's now).
 */
export function runClaimedScan(
  context: ScanRunContext,
  scan: ScanRecord,
  signal: AbortSignal,
  callbacks: RunCallbacks,
): Promise<void> {
  return context.tracing.runScan(
    scan.traceContext,
    { scanId: scan.id, engine: scan.scanType, priority: scan.priority },
    () => runAndRecord(context, scan, signal, callbacks),
  );
}

async function runAndRecord(
  context: ScanRunContext,
  scan: ScanRecord,
  signal: AbortSignal,
  callbacks: RunCallbacks,
): Promise<void> {
  const { parents, log, outage } = context;
  const parentId = scan.parentScanId;
  const run = { scan, startedAt: performance.now() };
  // The wait of its first start only: a scan requeued after a lost worker waited for that worker.
  if (scan.attempts <= 1 && scan.startedAt !== null) {
    context.metrics.scanStarted(
      scan.scanType,
      scan.priority,
      (scan.startedAt.getTime() - scan.createdAt.getTime()) / 1000,
    );
  }
  if (parentId !== null) {
    const began = outage.begin();
    await parents.childStarted(parentId).then(
      () => outage.succeeded(began),
      (error: unknown) =>
        outage.failed(error, began, 'starting the parent scan', { scanId: parentId }),
    );
  }
  let result: ScanRunResult | null = null;
  try {
    result = await runScan(context.engines, scan, signal, progressWriter(context, scan));
  } catch (error) {
    // A real failure of the run (not of the database): recorded as ENGINE_ERROR.
    log.error({ err: error, scanId: scan.id }, 'scan run failed');
  }
  const reason = signal.reason as AbortReason | undefined;
  if (result !== null && (reason === 'shutdown' || reason === 'lost')) {
    callbacks.finished({ outcome: 'stopped', claimed: [] });
  } else {
    const end =
      result === null
        ? await storeEnd(
            context,
            run,
            internalError('Internal error while running the scan'),
            NO_RESULTS,
          )
        : await storeEnd(context, run, result.ending, result, callbacks);
    callbacks.finished(end);
    if (result !== null && end.outcome !== 'unstored') {
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
    }
  }
  if (parentId !== null) {
    const began = outage.begin();
    await parents.childEnded(parentId).then(
      () => outage.succeeded(began),
      (error: unknown) =>
        outage.failed(error, began, 'collecting the parent scan', { scanId: parentId }),
    );
  }
}

/** A claimed scan and when this worker started running it (performance.now()). */
interface StartedRun {
  readonly scan: ScanRecord;
  readonly startedAt: number;
}

/**
 * The metrics of an end that was stored: a scan this worker ended (`finished`) counts as finished
 * with its run's duration; the findings of a scan cancelled meanwhile (`kept-ended`) were stored
 * too (its cancel was counted where it happened).
 */
function countStoredEnd(
  metrics: ServiceMetrics,
  run: StartedRun,
  outcome: FinishOutcome,
  ending: RunEnding,
  results: ScanResults,
): void {
  if (outcome === 'lost') {
    return;
  }
  const { scanType, priority } = run.scan;
  metrics.findingsStored(scanType, results.summary);
  if (outcome === 'finished' && ending.kind !== 'cancelled') {
    const seconds = (performance.now() - run.startedAt) / 1000;
    metrics.scanFinished(scanType, priority, ending.kind, seconds);
  }
}

/**
 * Stores a run's end, retrying while the database is away (see the file comment). When storing
 * fails for another reason, the scan is failed with ENGINE_ERROR instead (stored the same way);
 * if that fails too, the end is given up.
 */
async function storeEnd(
  context: ScanRunContext,
  run: StartedRun,
  ending: RunEnding,
  results: ScanResults,
  callbacks: Pick<RunCallbacks, 'next' | 'claimDropped'> | null = null,
): Promise<RunEnd> {
  const scanId = run.scan.id;
  const stored = await storeWhileUnavailable(context, run, ending, results, callbacks);
  if (stored !== 'failed') {
    return stored;
  }
  const isInternal = ending.kind === 'failed' && ending.error.code === 'ENGINE_ERROR';
  if (!isInternal || results.findings.length > 0) {
    const failed = await storeWhileUnavailable(
      context,
      run,
      internalError("Internal error while storing the scan's results"),
      NO_RESULTS,
      null,
    );
    if (failed !== 'failed') {
      return failed;
    }
  }
  context.log.error({ scanId }, 'could not store the end of the scan; its lease decides');
  return { outcome: 'unstored', claimed: [] };
}

/**
 * Tries finishScan until it answers, the database being away between tries: the end, `failed`
 * (a real error, logged) or `unstored` (the shutdown grace ran out while the database was away).
 */
async function storeWhileUnavailable(
  context: ScanRunContext,
  run: StartedRun,
  ending: RunEnding,
  results: ScanResults,
  callbacks: Pick<RunCallbacks, 'next' | 'claimDropped'> | null,
): Promise<RunEnd | 'failed'> {
  const { database, workerId, log, outage, shutdown } = context;
  const scanId = run.scan.id;
  for (let retry = 0; ; retry += 1) {
    const next = retry === 0 && callbacks !== null ? callbacks.next() : null;
    const began = outage.begin();
    try {
      const end = await finishScan(database, workerId, scanId, ending, results, next);
      outage.succeeded(began);
      countStoredEnd(context.metrics, run, end.outcome, ending, results);
      return end;
    } catch (error) {
      if (next !== null) {
        callbacks?.claimDropped();
      }
      if (!outage.failed(error, began, 'storing the end of a scan', { scanId })) {
        return 'failed';
      }
      if (shutdown.aborted) {
        log.error(
          { scanId, ending: ending.kind, findings: results.findings.length },
          'gave up storing the end of a scan: the worker stopped while the database was away; its lease decides',
        );
        return { outcome: 'unstored', claimed: [] };
      }
      const delayMs = backoffDelay(retry, STORE_END_BACKOFF);
      log.debug(
        { scanId, retry, delayMs },
        'the database is away: storing the end of a scan later',
      );
      // Cut short by the end of the shutdown grace: then one last try.
      await pause(delayMs, shutdown);
    }
  }
}
