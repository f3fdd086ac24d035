/**
 * `npm start`: the API and WORKERS scan workers in one process, on the
 * embedded database unless DATABASE_URL is set. A bad configuration stops the process at once with
 * a one-line message naming the variable (exit code 1).
 */
import { loadConfigOrExit } from '../config/load-config.js';
import { composeApp } from './compose.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const composed = await composeApp(config);
  const { app, logger } = composed;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      return;
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    // Running scans get WORKER_SHUTDOWN_GRACE_MS to finish; the rest of the shutdown gets 10 s.
    const force = setTimeout(() => process.exit(1), config.workerShutdownGraceMs + 10_000);
    force.unref();
    composed.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  logger.info(
    { database: composed.database.kind, rateLimits: config.redisUrl ? 'redis' : 'memory' },
    `Rampart listening on http://${config.host}:${config.port} (dashboard at /app, docs at /docs)`,
  );
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Rampart failed to start: ${message}\n`);
  process.exit(1);
});
