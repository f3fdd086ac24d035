/**
 * A scan worker process for the multi-process queue tests (run with tsx). It runs the sleep test
 * engine, a named double that records each run (scan id, pid, start and end times) as a JSON line
 * in RAMPART_TEST_RUN_LOG and then completes after RAMPART_TEST_SLEEP_MS.
 *
 * Env: DATABASE_URL, RAMPART_TEST_SCHEMA, WORKER_CONCURRENCY, WORKER_LEASE_MS,
 * RAMPART_TEST_SLEEP_MS, RAMPART_TEST_RUN_LOG. Prints "ready <workerId>" once registered.
 */
import { appendFileSync } from 'node:fs';
import { connectPostgres } from '../../src/adapters/db/connect.js';
import { createLogger } from '../../src/adapters/http/logger.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startWorkers } from '../../src/main/workers.js';
import type { EngineRunner } from '../../src/use-cases/ports/engine-runs.js';
import { NO_METRICS } from '../../src/use-cases/ports/metrics.js';
import { testSecretBox } from './secrets.js';

const env = process.env;
const config = loadConfig({ ...env, WORKERS: '1', LOG_LEVEL: 'warn' });
const schema = env.RAMPART_TEST_SCHEMA;
const database = connectPostgres(config.databaseUrl ?? '', {
  ...(schema ? { schema } : {}),
  poolSize: 4,
});
const sleepMs = Number(env.RAMPART_TEST_SLEEP_MS ?? '0');
const runLog = env.RAMPART_TEST_RUN_LOG ?? '';

const sleepEngine: EngineRunner = {
  async run(request) {
    const start = Date.now();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, sleepMs);
      request.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    appendFileSync(
      runLog,
      `${JSON.stringify({ scanId: request.scan.id, pid: process.pid, start, end: Date.now() })}\n`,
    );
    return {
      findings: [],
      warnings: [],
      ending: request.signal.aborted ? 'cancelled' : 'completed',
      message: null,
    };
  },
};

const workers = await startWorkers({
  config,
  database,
  runners: new Map([['nmap', sleepEngine]]),
  resolver: { check: async () => ({ ok: true, addresses: [] }) },
  secrets: testSecretBox(),
  logger: createLogger('warn'),
  metrics: NO_METRICS,
});
process.stdout.write(`ready ${workers[0]?.id}\n`);
process.once('SIGTERM', () => {
  void Promise.all(workers.map((worker) => worker.stop(config.workerShutdownGraceMs)))
    .then(() => database.close())
    .then(() => process.exit(0));
});
