/**
 * The composition root: builds every adapter once from the configuration and wires them into the
 * HTTP app. Nothing else constructs adapters, so tests can build the same graph with their own
 * database, clock or log destination.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import { createTokenVerifier } from '../adapters/auth-tokens/jwt.js';
import { loadOrCreateJwtSecret } from '../adapters/auth-tokens/jwt-secret-file.js';
import { describeDataDirFailure } from '../adapters/data-dir/data-dir-failure.js';
import { createApiKeyStore } from '../adapters/db/api-keys.repository.js';
import { createAssetStore } from '../adapters/db/assets.repository.js';
import {
  connectPglite,
  connectPostgres,
  type DatabaseHandle,
  openPglite,
} from '../adapters/db/connect.js';
import { describeDatabaseUrlFailure } from '../adapters/db/database-url-failure.js';
import { createIssueStore } from '../adapters/db/issues.repository.js';
import { createLastUsedRecorder } from '../adapters/db/last-used-recorder.js';
import { migrate } from '../adapters/db/migrate.js';
import { embeddedDatabaseDir } from '../adapters/db/open-in-data-dir.js';
import { resealStoredSecrets } from '../adapters/db/reseal-secrets.js';
import { createScanStore } from '../adapters/db/scans.repository.js';
import { createScheduleStore } from '../adapters/db/schedules.repository.js';
import { createTemplateStore } from '../adapters/db/templates.repository.js';
import { createTenantStore } from '../adapters/db/tenants.repository.js';
import { createUsageStore } from '../adapters/db/usage.repository.js';
import { createWebhookStore } from '../adapters/db/webhooks.repository.js';
import { createWorkerDirectory } from '../adapters/db/worker-directory.js';
import { checkResolvedTarget, type LookupAddresses } from '../adapters/dns/resolve-target.js';
import type { AppDeps, EngineAvailability } from '../adapters/http/app-deps.js';
import { buildApp } from '../adapters/http/build-app.js';
import { createLogger } from '../adapters/http/logger.js';
import { probeEngineBinaries } from '../adapters/process/probe-binaries.js';
import type { Sandbox } from '../adapters/process/sandbox.js';
import { createMemoryRateLimitStore } from '../adapters/rate-limit-store/memory-store.js';
import type { RateLimitStore } from '../adapters/rate-limit-store/rate-limit-store.js';
import { createRedisRateLimitStore } from '../adapters/rate-limit-store/redis-store.js';
import { createSecretBox } from '../adapters/secrets/secret-box.js';
import { loadOrCreateSecretsKey } from '../adapters/secrets/secrets-key-file.js';
import type { ProcessTracing } from '../adapters/tracing/start-tracing.js';
import { createProofReader } from '../adapters/verification/proof-reader.js';
import { checkWebhookUrl } from '../adapters/webhook-client/check-webhook-url.js';
import { createWebhookClient } from '../adapters/webhook-client/send-webhook.js';
import type { Config } from '../config/load-config.js';
import { listEngines } from '../engines/registry.js';
import type { Clock } from '../use-cases/ports/common.js';
import type { EngineRunner } from '../use-cases/ports/engine-runs.js';
import type { TargetResolver } from '../use-cases/ports/scans.js';
import type { SecretBox } from '../use-cases/ports/secrets.js';
import type { WebhookSender } from '../use-cases/ports/webhooks.js';
import { type AssetReverifier, startAssetReverifier } from '../workers/asset-reverifier.js';
import { outageLogOf } from '../workers/outage-log.js';
import { type Retention, startRetention } from '../workers/retention.js';
import type { ScanWorker } from '../workers/scan-worker.js';
import type { Scheduler } from '../workers/scheduler.js';
import { startWebhookDispatcher, type WebhookDispatcher } from '../workers/webhook-dispatcher.js';
import { startEgressRules } from './egress.js';
import { removeLeftoverScanWorkspaces } from './leftover-workspaces.js';
import { processMetrics } from './metrics.js';
import { processReadiness } from './readiness.js';
import { scannerSandbox } from './scanner-sandbox.js';
import { startProcessScheduler } from './scheduler.js';
import { processTracing } from './tracing.js';
import { realEngineRunners, sentinelLifecycle, startWorkers } from './workers.js';

export interface ComposeOptions {
  /** An already open database (tests share one between two apps); otherwise from the config. */
  database?: DatabaseHandle;
  /** Engine availability; otherwise probed once from PATH. */
  engines?: readonly EngineAvailability[];
  rateLimits?: RateLimitStore;
  logDestination?: DestinationStream;
  /**
   * The engines this process's workers run, by engine name; otherwise the real scanners whose
   * binaries were found. Tests and benchmarks register an instant test engine here.
   */
  engineRunners?: ReadonlyMap<string, EngineRunner>;
  /**
   * The scanner sandbox, instead of the one SCANNER_SANDBOX decides (tests: one whose /etc/hosts
   * is the test's); its egress rules are loaded as for that one. Unused with `engineRunners`.
   */
  sandbox?: Sandbox;
  /** Replaces DNS resolution of target names (tests). */
  resolver?: TargetResolver;
  /** Replaces DNS resolution of webhook hosts, at creation and at connect time (tests). */
  webhookLookup?: LookupAddresses;
  /** Replaces the outgoing HTTPS client (benchmarks). */
  webhookSender?: WebhookSender;
  /** The clock of quota months and usage periods (tests move it across a month boundary). */
  clock?: Clock;
  /** This process's tracing (tests: an in-memory exporter); otherwise from the configuration. */
  tracing?: ProcessTracing;
}

export interface ComposedApp {
  readonly app: FastifyInstance;
  readonly deps: AppDeps;
  readonly database: DatabaseHandle;
  readonly logger: Logger;
  readonly workers: readonly ScanWorker[];
  readonly dispatcher: WebhookDispatcher;
  /** Checks verified assets again every VERIFICATION_INTERVAL_HOURS (every process runs one). */
  readonly reverifier: AssetReverifier;
  /** Deletes old rows (RETENTION_*) while this process holds the retention lock. */
  readonly retention: Retention;
  /** The scheduler of scheduled scans (null: WORKERS=0 or SCHEDULER=off). */
  readonly scheduler: Scheduler | null;
  close(): Promise<void>;
}

/**
 * Opens the configured database and applies pending migrations. A failure throws one line naming
 * DATABASE_URL (password hidden) or DATA_DIR and the cause, for the start-up message.
 */
export async function openDatabase(config: Config): Promise<DatabaseHandle> {
  const { databaseUrl } = config;
  if (databaseUrl === null) {
    const handle = connectPglite((await openPglite(config.dataDir)).pglite, true, {
      dataDir: config.dataDir,
    });
    try {
      await migrate(handle.db);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw new Error(
        await describeDataDirFailure(
          config.dataDir,
          error,
          `the embedded database in DATA_DIR ${config.dataDir} could not be migrated`,
          [config.dataDir, embeddedDatabaseDir(config.dataDir)],
        ),
        { cause: error },
      );
    }
    return handle;
  }
  const timeouts = {
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
  };
  // Migrations get a connection without statement timeout: an index built on a large table, or
  // waiting for another process's migration, may take longer than a request may.
  const migrating = connectPostgres(databaseUrl, {
    poolSize: 1,
    timeouts: { ...timeouts, statementTimeoutMs: 0 },
  });
  try {
    await migrate(migrating.db);
  } catch (error) {
    throw new Error(describeDatabaseUrlFailure(databaseUrl, error), { cause: error });
  } finally {
    await migrating.close();
  }
  return connectPostgres(databaseUrl, { timeouts });
}

/** Probes every engine's binary once and reports it as GET /api/v1/engines shows it. */
export async function probeEngines(): Promise<EngineAvailability[]> {
  const engines = listEngines();
  const probes = await probeEngineBinaries(engines);
  return engines.map((engine) => {
    const probe = probes.get(engine.name);
    const available =
      engine.kind === 'tool'
        ? probe?.installed === true
        : engines.some(
            (member) => member.kind === 'tool' && probes.get(member.name)?.installed === true,
          );
    return {
      name: engine.name,
      description: engine.description,
      available,
      version: probe?.version ?? null,
      targetTypes: [...engine.targetTypes],
      optionsSchema: engine.optionsSchema,
      ...(engine.configSchema === undefined ? {} : { configSchema: engine.configSchema }),
    };
  });
}

/** The HS256 secret: JWT_SECRET, or the one generated into DATA_DIR on first start. */
export async function resolveJwtSecret(config: Config): Promise<string | null> {
  if (config.jwt.mode !== 'secret') {
    return null;
  }
  return config.jwt.secret ?? (await loadOrCreateJwtSecret(config.dataDir));
}

/**
 * The SecretBox of credentials at rest: SECRETS_KEY (with SECRETS_KEY_PREVIOUS for values sealed
 * before a rotation), or the key generated into DATA_DIR on first start. Every process that
 * shares the database (API nodes, `npm run worker`) needs the same key: with DATABASE_URL and no
 * SECRETS_KEY this says so once.
 */
export async function resolveSecretBox(config: Config, logger: Logger): Promise<SecretBox> {
  if (config.secrets.key === null && config.databaseUrl !== null) {
    logger.warn(
      `SECRETS_KEY is unset: credentials in scan options are encrypted with the key generated into ${config.dataDir}/secrets-key; every API and worker process of this database needs that same key, so set SECRETS_KEY on each (openssl rand -base64 32)`,
    );
  }
  const key = config.secrets.key ?? (await loadOrCreateSecretsKey(config.dataDir));
  return createSecretBox(key, config.secrets.previousKeys);
}

/** Seals what is stored in clear or under a previous key (reseal-secrets.ts); logs counts only. */
async function resealAtStart(database: DatabaseHandle, box: SecretBox, logger: Logger) {
  const report = await resealStoredSecrets(database.db, box);
  if (report.resealed > 0) {
    logger.info({ resealed: report.resealed }, 'stored credentials sealed with SECRETS_KEY');
  }
  if (report.unreadable > 0) {
    logger.warn(
      { unreadable: report.unreadable },
      'stored credentials that no configured key opens were left as they are: add the key they were sealed with to SECRETS_KEY_PREVIOUS',
    );
  }
}

export async function composeApp(
  config: Config,
  options: ComposeOptions = {},
): Promise<ComposedApp> {
  const logger = createLogger(config.logLevel, options.logDestination);
  // First, so the SDK is up before anything that could start a span.
  const tracing = options.tracing ?? (await processTracing(config, 'rampart-api'));
  // Decided before anything is opened: SCANNER_SANDBOX=required stops a start that cannot comply.
  const sandbox =
    options.engineRunners === undefined && config.workers > 0
      ? (options.sandbox ?? (await scannerSandbox(config, logger)))
      : null;
  const database = options.database ?? (await openDatabase(config));
  const secrets = await resolveSecretBox(config, logger);
  await resealAtStart(database, secrets, logger);
  const rateLimits =
    options.rateLimits ??
    (config.redisUrl ? createRedisRateLimitStore(config.redisUrl) : createMemoryRateLimitStore());
  const apiKeys = createApiKeyStore(database.db, (query) => database.prepared(query));
  // lastUsedAt is informational: a failed write is logged and never fails a request.
  const lastUsed = createLastUsedRecorder((ids) => apiKeys.touchLastUsed(ids), {
    onError: (error) => logger.warn({ err: error }, 'could not record lastUsedAt'),
  });
  const engines = options.engines ?? (await probeEngines());
  const workerDirectory = createWorkerDirectory(database.db, {
    staleAfterMs: config.workerLeaseMs,
  });
  const resolver: TargetResolver = options.resolver ?? {
    check: (target, allowPrivate) => checkResolvedTarget(target, allowPrivate),
  };
  const webhookClient = createWebhookClient({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.allowPrivateWebhooks,
    ...(options.webhookLookup ? { lookup: options.webhookLookup } : {}),
  });
  const webhookSender = options.webhookSender ?? webhookClient;
  const metrics = processMetrics(database, config);
  const proofs = createProofReader({
    dnsServers: config.verification.dnsServers,
    timeoutMs: config.verification.timeoutMs,
    allowPrivate: config.allowPrivateWebhooks,
    ...(options.webhookLookup ? { lookup: options.webhookLookup } : {}),
  });
  const dispatcher = startWebhookDispatcher({
    database,
    sender: webhookSender,
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: config.webhookTimeoutMs,
    tenantMaxInFlight: config.webhookTenantMaxInFlight,
    logger,
    metrics: metrics.recorder,
  });
  const sentinel = sentinelLifecycle(database, metrics.recorder);
  // Started after the routes; /readyz reads them from then on.
  let workers: ScanWorker[] = [];
  const deps: AppDeps = {
    config,
    apiKeys,
    lastUsed,
    tenants: createTenantStore(database.db),
    rateLimits,
    tokens: createTokenVerifier(config.jwt, await resolveJwtSecret(config)),
    engines,
    scans: createScanStore(database),
    childScans: sentinel,
    workers: workerDirectory,
    resolver,
    webhooks: createWebhookStore(database.db),
    templates: createTemplateStore(database.db),
    assets: createAssetStore(database.db),
    proofs,
    schedules: createScheduleStore(database.db),
    secrets,
    usage: createUsageStore(database.db),
    issues: createIssueStore(database.db),
    webhookUrls: {
      check: (url) => checkWebhookUrl(url, config.allowPrivateWebhooks, options.webhookLookup),
    },
    webhookSender,
    wakeDispatcher: () => dispatcher.wake(),
    clock: options.clock ?? { now: () => new Date() },
    metrics: metrics.recorder,
    metricsRegistry: metrics,
    tracing: tracing.scans,
    httpTracing: tracing.httpPlugin,
    ids: { uuid: randomUUID },
    randomBytes,
    readiness: processReadiness(database, () => workers),
  };
  const app = await buildApp(deps, logger);
  const reverifier = startAssetReverifier(
    {
      assets: deps.assets,
      proofs,
      clock: deps.clock,
      graceMs: config.verification.graceHours * 3_600_000,
      intervalMs: config.verification.intervalHours * 3_600_000,
    },
    {
      pollMs: 60_000,
      outage: outageLogOf(database, logger),
      enabled: config.verification.intervalHours > 0,
    },
  );
  const retention = startRetention({
    database,
    config: config.retention,
    metrics: metrics.recorder,
    outage: outageLogOf(database, logger),
    clock: deps.clock,
  });
  if (config.workers > 0) {
    await removeLeftoverScanWorkspaces(logger);
  }
  // The scanner user's egress rules exist while this process runs workers.
  const egress = config.workers > 0 ? await startEgressRules(config, sandbox, logger) : null;
  workers = await startWorkers({
    config,
    database,
    runners: options.engineRunners ?? realEngineRunners(config, engines, sandbox),
    resolver,
    secrets,
    logger,
    metrics: metrics.recorder,
    tracing: tracing.scans,
    parents: sentinel,
    onScanEnded: () => dispatcher.wake(),
  });
  workerDirectory.invalidate();
  const scheduler = startProcessScheduler({
    config,
    database,
    resolver,
    secrets,
    childScans: sentinel,
    logger,
    metrics: metrics.recorder,
    workers: workerDirectory,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.webhookLookup ? { webhookLookup: options.webhookLookup } : {}),
  });
  return {
    app,
    deps,
    database,
    logger,
    workers,
    dispatcher,
    reverifier,
    retention,
    scheduler,
    async close() {
      await app.close();
      await reverifier.stop();
      await retention.stop();
      await scheduler?.stop();
      await Promise.all(workers.map((worker) => worker.stop(config.workerShutdownGraceMs)));
      await egress?.release();
      await dispatcher.stop();
      await webhookClient.close();
      await proofs.close();
      await lastUsed.close();
      if (!options.rateLimits) {
        await rateLimits.close();
      }
      if (!options.database) {
        await database.close();
      }
      if (!options.tracing) {
        await tracing.shutdown();
      }
    },
  };
}
