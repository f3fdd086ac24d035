/**
 * The queue tests' set-up: the API alone (WORKERS 0) over a test database, and scan workers in
 * the test's process that the test starts, with an engine of its own, when it needs them.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import { registerWorker } from '../../src/adapters/db/workers.repository.js';
import { sentinelLifecycle } from '../../src/main/workers.js';
import type { EngineRunner } from '../../src/use-cases/ports/engine-runs.js';
import { NO_METRICS } from '../../src/use-cases/ports/metrics.js';
import { type ScanWorker, startScanWorker } from '../../src/workers/scan-worker.js';
import type { TestDatabase } from './database.js';
import { startApp, type TestApp } from './harness.js';
import { testSecretBox } from './secrets.js';

/**
 * The API alone (WORKERS 0): each test starts the workers it needs. A registered worker row that
 * never claims stands for "a worker exists", so that creates are not answered 503.
 */
export async function startQueueApp(database: TestDatabase): Promise<TestApp> {
  const app = await startApp(database.handle, { WORKER_SHUTDOWN_GRACE_MS: '100' });
  await registerWorker(database.handle.db, {
    id: 'standby',
    engines: ['nmap'],
    hostname: 'test',
    pid: 1,
  });
  return app;
}

export interface TestWorkerOptions {
  /** The start of its id (a random suffix follows). */
  readonly name?: string;
  /** The engine `runner` runs (nmap). */
  readonly engine?: string;
  readonly concurrency?: number;
  readonly leaseMs?: number;
  /** The safety-net poll: a minute by default, so that NOTIFY alone wakes it. */
  readonly pollMs?: number;
}

/**
 * A scan worker on `handle` whose engine is `runner`: every target resolves (to nothing) and is
 * public, its logs are silent.
 */
export function startTestWorker(
  handle: DatabaseHandle,
  runner: EngineRunner,
  options: TestWorkerOptions = {},
): Promise<ScanWorker> {
  return startScanWorker({
    id: `${options.name ?? 'test'}-${randomUUID().slice(0, 8)}`,
    database: handle,
    runners: new Map([[options.engine ?? 'nmap', runner]]),
    resolver: { check: async () => ({ ok: true, addresses: [] }) },
    secrets: testSecretBox(),
    allowPrivateTargets: false,
    concurrency: options.concurrency ?? 1,
    leaseMs: options.leaseMs ?? 30_000,
    pollMs: options.pollMs ?? 60_000,
    logger: pino({ level: 'silent' }),
    metrics: NO_METRICS,
    parents: sentinelLifecycle(handle),
  });
}
