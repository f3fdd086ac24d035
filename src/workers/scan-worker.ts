/**
 * A scan worker: claims queued scans of the engines it can run, runs each under a lease, and ends
 * it. Lifecycle and wiring only: the SQL lives in adapters/queue, the decisions in use-cases.
 *
 * - Wakes on NOTIFY (a new or requeued scan), on the end of one of its own runs, and on a slow poll
 *   (the safety net for a missed notification), never in a tight loop.
 * - Heartbeats renew the leases of its running scans; a scan it no longer holds (cancelled, or
 *   given to another worker after a lost lease) is aborted at once. A NOTIFY carries cancels to
 *   whichever worker runs the scan, so the process stops within the runner's kill grace.
 * - A claim whose answer was lost (the connection cut or silent after the commit) gave this worker
 *   scans it does not know it holds. After any claim that failed, each claim round first looks for
 *   them (takeUpLostClaims) and runs them, until a look made `claimSettleMs` after the failure
 *   found the claims of that time settled.
 * - Housekeeping puts the scans of silent workers back in the queue once, then fails them with
 *   WORKER_LOST, and asks `parents` to collect the parent scans nobody collected. For one lease
 *   after this process's own database outage it reclaims nothing: leases that ran out meanwhile
 *   are most likely held by workers that were cut off the same way (a database restart cuts off
 *   all of them) and renew them at their next heartbeat. A worker that is really gone loses its
 *   scans one lease later.
 * - The run of one scan, and what its parent does as it moves, is run-claimed-scan.ts. A run whose
 *   end waits to be stored (the database is away) stays in `running` and keeps its slot: the
 *   heartbeat renews its lease meanwhile, and a worker never holds more finished runs in memory
 *   than its concurrency.
 * - While the database is away every loop keeps its cadence and resumes by itself; failures are
 *   reported to the process's outage log (outage-log.ts), which says so once per outage.
 * - stop(): no more claims; running scans get `graceMs` to finish (or to store their end), then
 *   are aborted and handed back to the queue. A database that is away then does not make stop()
 *   fail: what could not be handed back is left to its lease.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { expireTriages } from '../adapters/db/issues.repository.js';
import { CANCEL_CHANNEL, QUEUE_CHANNEL } from '../adapters/db/scan-rows.js';
import {
  pruneWorkers,
  registerWorker,
  touchWorker,
  unregisterWorker,
} from '../adapters/db/workers.repository.js';
import { claimScans, DEFAULT_TENANT_MAX_RUNNING_SCANS } from '../adapters/queue/claim-scans.js';
import { reclaimLostScans } from '../adapters/queue/reclaim-lost-scans.js';
import { renewLeases, unknownHeldScans } from '../adapters/queue/renew-leases.js';
import { returnScans } from '../adapters/queue/return-scans.js';
import type { ScanRecord } from '../domain/scans/scan.js';
import type { PrivateTargetPolicy } from '../domain/targets/private-target-policy.js';
import type { EngineRunner } from '../use-cases/ports/engine-runs.js';
import type { ServiceMetrics } from '../use-cases/ports/metrics.js';
import type { TargetResolver } from '../use-cases/ports/scans.js';
import type { SecretBox } from '../use-cases/ports/secrets.js';
import { NO_TRACING, type ScanTracing } from '../use-cases/ports/tracing.js';
import { outageLogOf } from './outage-log.js';
import {
  type AbortReason,
  type ParentScanHooks,
  type RunCallbacks,
  runClaimedScan,
  type ScanRunContext,
} from './run-claimed-scan.js';

export interface ScanWorkerOptions {
  readonly id: string;
  readonly database: DatabaseHandle;
  readonly runners: ReadonlyMap<string, EngineRunner>;
  readonly resolver: TargetResolver;
  readonly allowPrivateTargets: PrivateTargetPolicy;
  /** Opens the credentials of a scan's options for its scanner (only here, at run time). */
  readonly secrets: SecretBox;
  readonly concurrency: number;
  /** A claim's lifetime without heartbeat; heartbeats come every third of it. */
  readonly leaseMs: number;
  /** The safety-net poll. */
  readonly pollMs: number;
  /**
   * How long after a claim failed on the client its statement may still commit on the server: the
   * database's statement timeout and a margin (see takeUpLostClaims). Default: the lease.
   */
  readonly claimSettleMs?: number;
  readonly logger: Logger;
  /** What a child scan's parent does as the child moves (the sentinel lifecycle). */
  readonly parents: ParentScanHooks;
  /** Counts scan starts and ends, findings and reclaimed scans. */
  readonly metrics: ServiceMetrics;
  /** Runs each scan in a `scan.run` span continuing its creator's trace; none when unset. */
  readonly tracing?: ScanTracing;
  /** Called after a scan's end was recorded (its events are in the outbox). */
  readonly onScanEnded?: () => void;
  /**
   * The running scans a tenant may have at once unless an admin set its own cap
   * (TENANT_MAX_RUNNING_SCANS; default DEFAULT_TENANT_MAX_RUNNING_SCANS).
   */
  readonly tenantMaxRunningScans?: number;
}

/** Whether a worker can take work now, and why not when it cannot (for /readyz). */
export interface WorkerReadiness {
  readonly ready: boolean;
  readonly reason: string | null;
}

export interface ScanWorker {
  readonly id: string;
  /** Ready while it is not stopping and its last claim round reached the database. */
  readiness(): WorkerReadiness;
  /** Scans running now. */
  running(): string[];
  /** Asks for a claim round now (tests and benchmarks; NOTIFY does this in production). */
  wake(): void;
  stop(graceMs: number): Promise<void>;
}

export async function startScanWorker(options: ScanWorkerOptions): Promise<ScanWorker> {
  const { id, database, logger } = options;
  const db = database.db;
  const engines = [...options.runners.keys()];
  const log = logger.child({ worker: id });
  const outage = outageLogOf(database, logger);
  // Aborted when the shutdown grace is over: runs still storing their end give up.
  const shutdown = new AbortController();
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let stopping = false;
  let claiming = false;
  // When a claim last failed without an answer (null: every claim since was answered or settled).
  let unsettledSince: number | null = null;
  let again = false;
  let claimFailure: string | null = null;
  const tenantMaxRunningScans = options.tenantMaxRunningScans ?? DEFAULT_TENANT_MAX_RUNNING_SCANS;
  const claimSettleMs = options.claimSettleMs ?? options.leaseMs;
  const claimOf = (limit: number) => ({
    engines,
    limit,
    leaseMs: options.leaseMs,
    tenantMaxRunningScans,
  });

  const sandboxedEngines = engines.filter((name) => options.runners.get(name)?.sandboxed === true);
  await registerWorker(db, {
    id,
    engines,
    sandboxedEngines,
    hostname: hostname(),
    pid: process.pid,
  });

  async function pump(): Promise<void> {
    if (stopping) {
      return;
    }
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    // One mark per pass: a round goes on while claims come back full or wakes come in.
    let began = outage.begin();
    try {
      await takeUpLostClaims();
      do {
        again = false;
        const free = options.concurrency - running.size;
        if (free <= 0) {
          break;
        }
        began = outage.begin();
        const scans = await claimScans(database, id, claimOf(free));
        claimFailure = null;
        outage.succeeded(began);
        for (const scan of scans) {
          execute(scan);
        }
        // A full batch means more may be waiting.
        if (scans.length === free) {
          again = true;
        }
      } while (again && !stopping);
    } catch (error) {
      unsettledSince = Date.now();
      claimFailure = 'its last claim round could not reach the database';
      outage.failed(error, began, 'claiming scans', { worker: id });
    } finally {
      claiming = false;
    }
  }

  const context: ScanRunContext = {
    workerId: id,
    database,
    engines: options,
    parents: options.parents,
    log,
    outage,
    shutdown: shutdown.signal,
    metrics: options.metrics,
    tracing: options.tracing ?? NO_TRACING,
  };

  function execute(scan: ScanRecord): void {
    const controller = new AbortController();
    let claimedWithFinish = false;
    const endClaim = () => {
      if (claimedWithFinish) {
        claimedWithFinish = false;
        claiming = false;
      }
    };
    const callbacks: RunCallbacks = {
      // Ask for the next scans in the same statement as the finish when no claim round is under
      // way: this scan's slot is free once it has ended.
      next: () => {
        if (stopping || claiming) {
          return null;
        }
        claiming = true;
        claimedWithFinish = true;
        return claimOf(options.concurrency - running.size + 1);
      },
      // The finish is retried without it: claim rounds go on meanwhile, and look for what it may
      // have claimed.
      claimDropped: () => {
        unsettledSince = Date.now();
        endClaim();
      },
      finished: (end) => {
        running.delete(scan.id);
        endClaim();
        for (const claimed of end.claimed) {
          execute(claimed);
        }
      },
    };
    const done = (async () => {
      try {
        await runClaimedScan(context, scan, controller.signal, callbacks);
        options.onScanEnded?.();
      } finally {
        running.delete(scan.id);
        void pump();
      }
    })();
    running.set(scan.id, { controller, done });
  }

  function abort(scanId: string, reason: AbortReason): void {
    const run = running.get(scanId);
    if (run && !run.controller.signal.aborted) {
      run.controller.abort(reason);
    }
  }

  async function heartbeat(): Promise<void> {
    const began = outage.begin();
    try {
      const ids = [...running.keys()];
      const held = await renewLeases(db, id, ids, options.leaseMs);
      for (const scanId of ids) {
        // Cancelled scans are not renewed; the cancel notification normally came first.
        if (!held.has(scanId) && running.has(scanId)) {
          abort(scanId, 'cancelled');
        }
      }
      await touchWorker(db, id);
      outage.succeeded(began);
    } catch (error) {
      // During an outage the leases are not renewed; the first beat after it renews them (other
      // workers cut off the same way hold off reclaiming for a lease: housekeeping).
      outage.failed(error, began, 'heartbeat', { worker: id });
    }
  }

  /**
   * Runs the scans leased to this worker that it does not know it holds: a claim (or a
   * finish-and-claim) that committed while its answer was lost to a cut or silent connection.
   * Called by a claim round, which holds `claiming`: no other claim of this worker is under way, so
   * every running scan leased to it and not in `running` is one of those. A statement the client
   * gave up on may still commit on the server for up to the statement timeout, so the rounds go on
   * looking until one looked `claimSettleMs` after the last failure. The worker may then run more
   * scans than its concurrency for a while (the failed claim left their slots to later claims).
   */
  async function takeUpLostClaims(): Promise<void> {
    if (unsettledSince === null) {
      return;
    }
    const lookedAt = Date.now();
    const unknown = await unknownHeldScans(db, id, [...running.keys()]);
    for (const scan of unknown) {
      if (!running.has(scan.id)) {
        log.warn({ scanId: scan.id }, 'running a scan claimed while the database answer was lost');
        execute(scan);
      }
    }
    if (unsettledSince !== null && lookedAt - unsettledSince >= claimSettleMs) {
      unsettledSince = null;
    }
  }

  async function housekeeping(): Promise<void> {
    const began = outage.begin();
    try {
      if (outage.reachableForMs() >= options.leaseMs) {
        const { requeued, failed, failedScans } = await reclaimLostScans(db);
        options.metrics.scansReclaimed(requeued, failed);
        for (const scan of failedScans) {
          options.metrics.scanFinished(scan.engine, scan.priority, 'failed', null);
        }
        if (requeued + failed > 0) {
          log.warn({ requeued, failed }, 'reclaimed scans of lost workers');
        }
      }
      const collected = await options.parents.collectPending();
      if (collected > 0) {
        log.warn({ collected }, 'collected parent scans nobody had collected');
      }
      const expired = await expireTriages(db);
      if (expired > 0) {
        log.info({ expired }, 'accepted risks expired');
      }
      await pruneWorkers(db, 10 * 60_000);
      outage.succeeded(began);
    } catch (error) {
      outage.failed(error, began, 'housekeeping', { worker: id });
    }
  }

  const unlistenQueue = await database.listen(QUEUE_CHANNEL, () => void pump());
  const unlistenCancel = await database.listen(CANCEL_CHANNEL, (scanId) =>
    abort(scanId, 'cancelled'),
  );
  const timers = [
    setInterval(() => void pump(), options.pollMs),
    setInterval(() => void heartbeat(), Math.max(100, Math.floor(options.leaseMs / 3))),
    setInterval(() => void housekeeping(), Math.max(200, Math.floor(options.leaseMs / 2))),
  ];
  for (const timer of timers) {
    timer.unref();
  }
  void housekeeping();
  void pump();

  return {
    id,
    readiness: () =>
      stopping
        ? { ready: false, reason: 'it is stopping' }
        : { ready: claimFailure === null, reason: claimFailure },
    running: () => [...running.keys()],
    wake: () => void pump(),
    async stop(graceMs) {
      if (stopping) {
        return;
      }
      stopping = true;
      await unlistenQueue();
      const drained = Promise.all([...running.values()].map((run) => run.done));
      let graceTimer: NodeJS.Timeout | undefined;
      await Promise.race([
        drained,
        new Promise((resolve) => {
          graceTimer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(graceTimer);
      shutdown.abort();
      const unfinished = [...running.keys()];
      for (const scanId of unfinished) {
        abort(scanId, 'shutdown');
      }
      await Promise.all([...running.values()].map((run) => run.done));
      for (const timer of timers) {
        clearInterval(timer);
      }
      await unlistenCancel();
      const returning = outage.begin();
      try {
        const returned = await returnScans(db, id, unfinished);
        if (returned > 0) {
          log.info({ returned }, 'handed unfinished scans back to the queue');
        }
      } catch (error) {
        // Their leases run out instead, and housekeeping puts them back (counting an attempt).
        outage.failed(error, returning, 'handing unfinished scans back', {
          worker: id,
          scans: unfinished,
        });
      }
      // Failing that, the registration is pruned once it has been silent long enough.
      const unregistering = outage.begin();
      await unregisterWorker(db, id).catch((error: unknown) =>
        outage.failed(error, unregistering, 'unregistering the worker', { worker: id }),
      );
    },
  };
}
