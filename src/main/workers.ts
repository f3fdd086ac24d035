/**
 * Starting scan workers: WORKERS loops in this process, each running up to WORKER_CONCURRENCY
 * scans, on the engines whose scanners were found here (or the runners a test passes).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { readTimeoutMs } from '../adapters/db/pg-pool.js';
import type { EngineAvailability } from '../adapters/http/app-deps.js';
import { createProcessEngineRunner } from '../adapters/process/process-engine-runner.js';
import type { Sandbox } from '../adapters/process/sandbox.js';
import { createSentinelRunStore } from '../adapters/queue/sentinel-runs.js';
import type { Config } from '../config/load-config.js';
import { listEngines } from '../engines/registry.js';
import type { EngineRunner } from '../use-cases/ports/engine-runs.js';
import { NO_METRICS, type ServiceMetrics } from '../use-cases/ports/metrics.js';
import type { TargetResolver } from '../use-cases/ports/scans.js';
import type { SecretBox } from '../use-cases/ports/secrets.js';
import type { ScanTracing } from '../use-cases/ports/tracing.js';
import {
  createSentinelLifecycle,
  type SentinelLifecycle,
} from '../use-cases/scans/sentinel-lifecycle.js';
import { type ScanWorker, startScanWorker } from '../workers/scan-worker.js';

/** The safety-net poll of a worker; NOTIFY wakes it at once in the normal case. */
const WORKER_POLL_MS = 5_000;

/**
 * A runner for every engine that has a command and whose binary was found on PATH (of those
 * WORKER_ENGINES names, when it is set), in `sandbox`
 * when there is one (`scannerSandbox`, SCANNER_SANDBOX).
 */
export function realEngineRunners(
  config: Config,
  engines: readonly EngineAvailability[],
  sandbox: Sandbox | null,
): Map<string, EngineRunner> {
  const runners = new Map<string, EngineRunner>();
  for (const engine of listEngines()) {
    const probed = engines.find((candidate) => candidate.name === engine.name);
    const excluded = config.workerEngines !== null && !config.workerEngines.includes(engine.name);
    if (engine.kind !== 'tool' || probed?.available !== true || excluded) {
      continue;
    }
    runners.set(
      engine.name,
      createProcessEngineRunner(engine, {
        parentEnv: { PATH: config.scannerPath ?? undefined },
        privileged: process.getuid?.() === 0,
        sandbox,
        toolVersion: probed.version,
      }),
    );
  }
  return runners;
}

/** The sentinel lifecycle over this database: the API's child-scan planner and cancel follow-up, and
 * every worker's parent hooks. */
export function sentinelLifecycle(
  database: DatabaseHandle,
  metrics: Pick<ServiceMetrics, 'scanFinished'> = NO_METRICS,
): SentinelLifecycle {
  return createSentinelLifecycle(createSentinelRunStore(database), metrics);
}

export async function startWorkers(options: {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly runners: ReadonlyMap<string, EngineRunner>;
  readonly resolver: TargetResolver;
  /** Opens the credentials of a scan's options for its scanner. */
  readonly secrets: SecretBox;
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  /** This process's scan tracing (no-op when tracing is off). */
  readonly tracing?: ScanTracing;
  /** The sentinel lifecycle (one per process); otherwise built over `database`. */
  readonly parents?: SentinelLifecycle;
  /** Called when a scan of these workers ended (wakes the webhook dispatcher). */
  readonly onScanEnded?: () => void;
}): Promise<ScanWorker[]> {
  const { config } = options;
  const parents = options.parents ?? sentinelLifecycle(options.database);
  const workers: ScanWorker[] = [];
  for (let index = 0; index < config.workers; index += 1) {
    workers.push(
      await startScanWorker({
        id: `${hostname()}-${process.pid}-${index}-${randomUUID().slice(0, 8)}`,
        database: options.database,
        runners: options.runners,
        resolver: options.resolver,
        secrets: options.secrets,
        allowPrivateTargets: config.allowPrivateTargets,
        concurrency: config.workerConcurrency,
        leaseMs: config.workerLeaseMs,
        tenantMaxRunningScans: config.tenantMaxRunningScans,
        pollMs: WORKER_POLL_MS,
        // A statement the client gave up on commits within its statement timeout, if at all; with
        // none, a lease is the longest any claim stays unknown (housekeeping reclaims it then).
        claimSettleMs: readTimeoutMs(config.databaseStatementTimeoutMs) || config.workerLeaseMs,
        logger: options.logger,
        metrics: options.metrics,
        ...(options.tracing ? { tracing: options.tracing } : {}),
        parents,
        ...(options.onScanEnded ? { onScanEnded: options.onScanEnded } : {}),
      }),
    );
  }
  return workers;
}
