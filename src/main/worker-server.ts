/**
 * `npm run worker`: scan workers only, no API (only /healthz, /readyz and /metrics on METRICS_PORT
 * when set, worker-health.ts), for running more worker processes (or machines)
 * against one PostgreSQL (DATABASE_URL). Each registers the engines whose scanners it found; the
 * API's 503 check and GET /api/v1/engines read the registry. SIGTERM stops claiming, lets running
 * scans finish for WORKER_SHUTDOWN_GRACE_MS, then hands the rest back to the queue. The scanner
 * user's egress rules (egress.ts) are loaded before the workers start and released after they stop.
 * The process stays up while the database is away (the loops retry at their own pace and log the
 * outage once) and ends only on SIGTERM or SIGINT.
 */
import { checkResolvedTarget } from '../adapters/dns/resolve-target.js';
import { createLogger } from '../adapters/http/logger.js';
import { createWebhookClient } from '../adapters/webhook-client/send-webhook.js';
import { loadConfigOrExit } from '../config/load-config.js';
import type { TargetResolver } from '../use-cases/ports/scans.js';
import { outageLogOf } from '../workers/outage-log.js';
import { startRetention } from '../workers/retention.js';
import { startWebhookDispatcher } from '../workers/webhook-dispatcher.js';
import { openDatabase, probeEngines, resolveSecretBox } from './compose.js';
import { startEgressRules } from './egress.js';
import { removeLeftoverScanWorkspaces } from './leftover-workspaces.js';
import { processMetrics } from './metrics.js';
import { scannerSandbox } from './scanner-sandbox.js';
import { startProcessScheduler } from './scheduler.js';
import { processTracing } from './tracing.js';
import { startWorkerHealthServer } from './worker-health.js';
import { realEngineRunners, sentinelLifecycle, startWorkers } from './workers.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config.logLevel);
  const tracing = await processTracing(config, 'rampart-worker');
  const sandbox = await scannerSandbox(config, logger);
  const database = await openDatabase(config);
  const secrets = await resolveSecretBox(config, logger);
  const runners = realEngineRunners(config, await probeEngines(), sandbox);
  const metrics = processMetrics(database, config);
  // Worker processes deliver webhooks too, so a deployment of workers alone still notifies.
  const webhookClient = createWebhookClient({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.allowPrivateWebhooks,
  });
  const dispatcher = startWebhookDispatcher({
    database,
    sender: webhookClient,
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: config.webhookTimeoutMs,
    tenantMaxInFlight: config.webhookTenantMaxInFlight,
    logger,
    metrics: metrics.recorder,
  });
  const egress = await startEgressRules(config, sandbox, logger);
  await removeLeftoverScanWorkspaces(logger);
  const resolver: TargetResolver = {
    check: (target, allowPrivate) => checkResolvedTarget(target, allowPrivate),
  };
  const parents = sentinelLifecycle(database, metrics.recorder);
  const workers = await startWorkers({
    config: { ...config, workers: Math.max(1, config.workers) },
    database,
    runners,
    resolver,
    secrets,
    logger,
    metrics: metrics.recorder,
    tracing: tracing.scans,
    parents,
    onScanEnded: () => dispatcher.wake(),
  });
  // Scheduled scans are created here too (SCHEDULER=off leaves them to other processes).
  const scheduler = startProcessScheduler({
    config: { ...config, workers: Math.max(1, config.workers) },
    database,
    resolver,
    secrets,
    childScans: parents,
    logger,
    metrics: metrics.recorder,
  });
  // Old rows are deleted by whichever process (API or worker) holds the retention lock.
  const retention = startRetention({
    database,
    config: config.retention,
    metrics: metrics.recorder,
    outage: outageLogOf(database, logger),
  });
  // The loops' timers are unref()'d (an API process or a test that stops them must be free to
  // end), and while the database is away no socket is open either: without this the event loop
  // would empty and the process exit with status 0. It is held until stop().
  const keepAlive = setInterval(() => {}, 2 ** 31 - 1);
  logger.info({ engines: [...runners.keys()], workers: workers.length }, 'Rampart workers running');
  await startWorkerHealthServer(config, { database, workers, logger, metrics });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info({ signal }, 'stopping workers');
    Promise.all([scheduler?.stop(), retention.stop()])
      .then(() => Promise.all(workers.map((worker) => worker.stop(config.workerShutdownGraceMs))))
      .then(() => egress?.release())
      .then(() => dispatcher.stop())
      .then(() => webhookClient.close())
      .then(() => database.close())
      .then(() => tracing.shutdown())
      .finally(() => clearInterval(keepAlive))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Rampart workers failed to start: ${message}\n`);
  process.exit(1);
});
