/**
 * Starting the scheduler of a process that runs scan workers (the API process with WORKERS > 0,
 * and `npm run worker`), unless SCHEDULER=off. Its scans are created as POST /api/v1/scans
 * creates them, with this process's resolver, URL check, secrets and clock.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { createWorkerDirectory } from '../adapters/db/worker-directory.js';
import type { LookupAddresses } from '../adapters/dns/resolve-target.js';
import { createScheduleClaimer } from '../adapters/queue/claim-schedules.js';
import { checkWebhookUrl } from '../adapters/webhook-client/check-webhook-url.js';
import type { Config } from '../config/load-config.js';
import type { Clock } from '../use-cases/ports/common.js';
import type { ServiceMetrics } from '../use-cases/ports/metrics.js';
import type { TargetResolver, WorkerDirectory } from '../use-cases/ports/scans.js';
import type { ScheduleClaimer, ScheduleRecord } from '../use-cases/ports/schedules.js';
import type { SecretBox } from '../use-cases/ports/secrets.js';
import { NO_TRACING } from '../use-cases/ports/tracing.js';
import type { ChildScanPlanner } from '../use-cases/scans/create-scan.js';
import { runDueSchedules } from '../use-cases/schedules/run-due-schedules.js';
import { type Scheduler, startScheduler } from '../workers/scheduler.js';

/**
 * Schedules per claim (one transaction). Small enough that a claim holds its rows briefly and a
 * failure rolls back little; large enough that 10,000 due schedules need few round trips
 * (bench/schedules.ts).
 */
export const SCHEDULER_BATCH = 50;

export function startProcessScheduler(options: {
  readonly config: Config;
  readonly database: DatabaseHandle;
  readonly resolver: TargetResolver;
  readonly secrets: SecretBox;
  readonly childScans: ChildScanPlanner;
  readonly logger: Logger;
  /** Counts the scans schedules create (and their quota refusals). */
  readonly metrics: ServiceMetrics;
  readonly clock?: Clock;
  readonly workers?: WorkerDirectory;
  readonly webhookLookup?: LookupAddresses;
  /** The claim of due schedules (default: SKIP LOCKED on this database); tests wrap the real one. */
  readonly claimer?: ScheduleClaimer;
}): Scheduler | null {
  const { config } = options;
  if (config.workers === 0 || !config.scheduler.enabled) {
    return null;
  }
  const deps = {
    claimer: options.claimer ?? createScheduleClaimer(options.database),
    childScans: options.childScans,
    workers:
      options.workers ??
      createWorkerDirectory(options.database.db, { staleAfterMs: config.workerLeaseMs }),
    resolver: options.resolver,
    urls: {
      check: (url: string) =>
        checkWebhookUrl(url, config.allowPrivateWebhooks, options.webhookLookup),
    },
    ids: { uuid: randomUUID },
    randomBytes,
    allowPrivateTargets: config.allowPrivateTargets,
    requireVerifiedTargets: config.verification.requireVerifiedTargets,
    secrets: options.secrets,
    clock: options.clock ?? { now: () => new Date() },
    metrics: options.metrics,
    // A scheduled scan has no request to continue: its run starts a trace of its own.
    tracing: NO_TRACING,
    lateAfterMs: config.scheduler.lateAfterMs,
    maxFailures: config.scheduler.maxFailures,
    batchSize: SCHEDULER_BATCH,
    reportRunError: (schedule: ScheduleRecord, error: unknown) =>
      options.logger.error(
        {
          err: error,
          component: 'scheduler',
          scheduleId: schedule.id,
          tenantId: schedule.tenantId,
        },
        'a schedule run failed unexpectedly: its scans were rolled back, the other schedules of the claim kept theirs',
      ),
  };
  return startScheduler({
    database: options.database,
    claim: () => runDueSchedules(deps),
    batchSize: SCHEDULER_BATCH,
    pollMs: config.scheduler.pollMs,
    logger: options.logger,
  });
}
