/**
 * `npm run worker` as a real process with WORKER_HEALTH_PORT set: /healthz and /readyz answer as
 * an API process's do (same routes, same envelope), /readyz says why while PostgreSQL is away and
 * is 200 again once it is back. The database is the real PostgreSQL behind a proxy of this file's
 * own, or the embedded one in a DATA_DIR of its own (both whatever the suite's backend).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtEntry } from '../support/builds.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';
import { createProxiedPostgres } from '../support/proxied-postgres.js';
import { TEST_SECRETS_KEY } from '../support/secrets.js';
import { teardownAfterAll } from '../support/teardown.js';
import { until } from '../support/until.js';

const teardown = teardownAfterAll();

interface WorkerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  get(path: string): Promise<{ status: number; body: unknown }>;
}

/** Spawns the worker process and waits for its health server's address (logged on stdout). */
async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [builtEntry('main/worker-server')], {
    env: {
      PATH: process.env.PATH ?? '',
      WORKER_HEALTH_PORT: '0',
      SECRETS_KEY: TEST_SECRETS_KEY,
      WORKERS: '1',
      LOG_LEVEL: 'info',
      // Its workers run no scan here; unsandboxed, it loads no egress rules for the machine.
      SCANNER_SANDBOX: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  teardown.kill(child);
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n').slice(0, -1)) {
        const address = /"address":"(http:\/\/[^"]+)"/.exec(line)?.[1];
        if (address !== undefined) {
          child.stdout?.off('data', onData);
          // Keep draining stdout so the child never blocks on a full pipe.
          child.stdout?.resume();
          resolve(address);
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before listening`)));
  });
  return {
    child,
    url,
    async get(path) {
      const response = await fetch(`${url}${path}`);
      return { status: response.status, body: await response.json() };
    },
  };
}

async function stopped(worker: WorkerProcess): Promise<number | null> {
  const exit = new Promise<number | null>((resolve) => worker.child.once('exit', resolve));
  worker.child.kill('SIGTERM');
  return exit;
}

describe('npm run worker with WORKER_HEALTH_PORT', () => {
  it('serves /metrics on METRICS_PORT, behind METRICS_TOKEN', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampart-worker-metrics-'));
    teardown.add(() => rm(dataDir, { recursive: true, force: true }));
    const token = 'worker-metrics-token-0123456789';
    // METRICS_PORT is the setting's name; WORKER_HEALTH_PORT (the other tests) its older one.
    const worker = await startWorkerProcess({
      DATA_DIR: dataDir,
      WORKER_HEALTH_PORT: '',
      METRICS_PORT: '0',
      METRICS_TOKEN: token,
    });
    expect((await fetch(`${worker.url}/metrics`)).status).toBe(401);
    const scrape = async () => {
      const response = await fetch(`${worker.url}/metrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      return parsePrometheusText(await response.text());
    };
    const before = await scrape();
    expect(sampleValue(before, 'rampart_build_info', { node_version: process.version })).toBe(1);
    // The embedded database has one process: this one reports the queue gauges.
    expect(sampleValue(before, 'rampart_queue_metrics_reporter')).toBe(1);
    const live = before.get('rampart_workers_live')?.samples ?? [];
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((sample) => sample.value === 1)).toBe(true);
    expect(sampleValue(before, 'rampart_scans_queued')).toBe(0);
    expect((await worker.get('/healthz')).status).toBe(200);
    expect((await worker.get('/no/such/path')).status).toBe(404);
    const after = await scrape();
    for (const labels of [
      { method: 'GET', route: '/healthz', status: '200' },
      { method: 'GET', route: 'unmatched', status: '404' },
    ]) {
      const count = (families: typeof before) =>
        sampleValue(families, 'rampart_http_request_duration_seconds_count', labels);
      expect(count(after) - count(before), JSON.stringify(labels)).toBe(1);
    }
    expect(await stopped(worker)).toBe(0);
  }, 60_000);

  it('answers /healthz, /readyz and unknown paths as the API does (embedded database)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampart-worker-health-'));
    teardown.add(() => rm(dataDir, { recursive: true, force: true }));
    const worker = await startWorkerProcess({ DATA_DIR: dataDir });
    expect(await worker.get('/healthz')).toEqual({
      status: 200,
      body: { success: true, data: { status: 'ok' } },
    });
    expect(await worker.get('/readyz')).toEqual({
      status: 200,
      body: { success: true, data: { status: 'ready' } },
    });
    expect(await worker.get('/api/v1/scans')).toEqual({
      status: 404,
      body: { success: false, error: 'Route not found: GET /api/v1/scans', code: 'NOT_FOUND' },
    });
    expect(await stopped(worker)).toBe(0);
  }, 60_000);

  it('answers /readyz 503 while PostgreSQL is silent, and 200 once it is back', async () => {
    const database = await createProxiedPostgres();
    teardown.add(() => database.destroy());
    const worker = await startWorkerProcess({
      DATABASE_URL: database.urlWithSchema,
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
    });
    expect((await worker.get('/readyz')).status).toBe(200);
    database.proxy.freeze();
    let answer: { status: number; body: unknown };
    const started = performance.now();
    try {
      answer = await worker.get('/readyz');
    } finally {
      database.proxy.thaw();
    }
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(answer).toEqual({
      status: 503,
      body: {
        success: false,
        error: 'Service temporarily unavailable: the database is not answering',
        code: 'SERVICE_UNAVAILABLE',
      },
    });
    const recovered = await until(
      () => worker.get('/readyz'),
      (each) => each.status === 200,
    );
    expect(recovered.body).toEqual({ success: true, data: { status: 'ready' } });
    expect(await stopped(worker)).toBe(0);
  }, 60_000);
});
