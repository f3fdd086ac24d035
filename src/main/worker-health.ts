/**
 * `npm run worker`'s /healthz, /readyz and /metrics, on METRICS_PORT (or its older name
 * WORKER_HEALTH_PORT; unset: none): a Fastify instance with nothing but the API's own health and
 * metrics routes, error envelope and 404, so a supervisor or an orchestrator probes and scrapes a
 * worker process as it does an API process, with the same answers.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { errorHandler, frameworkErrors, notFoundHandler } from '../adapters/http/error-handler.js';
import { observeRequests } from '../adapters/http/request-metrics.js';
import { registerHealth } from '../adapters/http/routes/system/health.js';
import { registerMetrics } from '../adapters/http/routes/system/metrics.js';
import { ErrorEnvelope } from '../adapters/http/schemas/envelope.js';
import type { MetricsRegistry } from '../adapters/metrics/service-metrics.js';
import type { Config } from '../config/load-config.js';
import type { ScanWorker } from '../workers/scan-worker.js';
import { processReadiness } from './readiness.js';

/** Listens on HOST:METRICS_PORT and logs the address; null when the port is unset. */
export async function startWorkerHealthServer(
  config: Config,
  parts: {
    readonly database: DatabaseHandle;
    readonly workers: readonly ScanWorker[];
    readonly logger: Logger;
    readonly metrics: MetricsRegistry;
  },
): Promise<FastifyInstance | null> {
  if (config.workerHealthPort === null) {
    return null;
  }
  const app = Fastify({
    loggerInstance: parts.logger as FastifyBaseLogger,
    return503OnClosing: true,
    frameworkErrors,
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  app.addSchema(ErrorEnvelope);
  registerHealth(app, {
    readiness: processReadiness(parts.database, () => parts.workers),
  });
  registerMetrics(app, { metrics: parts.metrics, metricsToken: config.metricsToken });
  observeRequests(app, parts.metrics);
  const address = await app.listen({ host: config.host, port: config.workerHealthPort });
  parts.logger.info({ address }, `worker health server listening on ${address}`);
  return app;
}
