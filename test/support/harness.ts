/**
 * Starts the real app on 127.0.0.1 port 0 with a per-file database and talks to it over HTTP.
 */

import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { signToken } from '../../src/adapters/auth-tokens/jwt.js';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import type { EngineAvailability } from '../../src/adapters/http/app-deps.js';
import type { Sandbox } from '../../src/adapters/process/sandbox.js';
import type { RateLimitStore } from '../../src/adapters/rate-limit-store/rate-limit-store.js';
import type { ProcessTracing } from '../../src/adapters/tracing/start-tracing.js';
import { type Config, loadConfig } from '../../src/config/load-config.js';
import { allowsPrivateAddress } from '../../src/domain/targets/private-target-policy.js';
import { listEngines } from '../../src/engines/registry.js';
import { type ComposedApp, composeApp } from '../../src/main/compose.js';
import type { EngineRunner } from '../../src/use-cases/ports/engine-runs.js';
import type { TargetResolver } from '../../src/use-cases/ports/scans.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { TEST_SECRETS_KEY } from './secrets.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!';

/**
 * The engines whose scanners install from Debian here and in CI (`.ci/run`; nikto from
 * `non-free`); the others (ZAP, trivy, nuclei, theHarvester) cannot be installed on this machine.
 */
export const INSTALLED_ENGINES: readonly string[] = [
  'nmap',
  'nikto',
  'sqlmap',
  'wapiti',
  'sublist3r',
];

/**
 * Engines as every test app reports them (no PATH probing per app: the probe has its own tests,
 * and test/e2e/engine-availability.test.ts starts an app that probes for real).
 */
export const TEST_ENGINES: EngineAvailability[] = listEngines().map((engine) => ({
  name: engine.name,
  description: engine.description,
  available: INSTALLED_ENGINES.includes(engine.name),
  version: engine.name === 'nmap' ? '7.93' : null,
  targetTypes: [...engine.targetTypes],
  optionsSchema: engine.optionsSchema,
}));

export interface TestApp {
  readonly url: string;
  readonly composed: ComposedApp;
  readonly config: Config;
  /** Every log line written so far. */
  readonly logs: string[];
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field in tests.
  readonly body: any;
}

export async function startApp(
  database: DatabaseHandle,
  env: Record<string, string> = {},
  options: {
    rateLimits?: RateLimitStore;
    /** The engines this app's workers run (set WORKERS in env to start some). */
    engineRunners?: ReadonlyMap<string, EngineRunner>;
    resolver?: TargetResolver;
    /** The scanner sandbox of the real runners (without `engineRunners`) and their egress rules. */
    sandbox?: Sandbox;
    /** Resolves webhook and callback hosts (creation checks and delivery). */
    webhookLookup?: (host: string) => Promise<string[]>;
    /** The app's clock (quota months, usage periods). */
    clock?: { now(): Date };
    /** Probe PATH for the scanners as the service does, instead of TEST_ENGINES. */
    probeEngines?: boolean;
    /** The app's tracing (an in-memory exporter); otherwise off, as without OTEL_* settings. */
    tracing?: ProcessTracing;
  } = {},
): Promise<TestApp> {
  // No scan workers unless a test asks for them (WORKERS), so API tests run no background loops.
  const config = loadConfig({
    JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_KEY: TEST_SECRETS_KEY,
    LOG_LEVEL: 'info',
    WORKERS: '0',
    PATH: process.env.PATH ?? '',
    // The scanner sandbox as test/support/sandbox.ts decides it for runners built by tests.
    SCANNER_SANDBOX: process.env.SCANNER_SANDBOX,
    SCANNER_USER: process.env.SCANNER_USER,
    ...env,
  });
  assertScannersMayShare(config, options.engineRunners !== undefined);
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const composed = await composeApp(config, {
    database,
    ...(options.probeEngines ? {} : { engines: TEST_ENGINES }),
    logDestination: destination,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.engineRunners ? { engineRunners: options.engineRunners } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.webhookLookup ? { webhookLookup: options.webhookLookup } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
  });
  await composed.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = composed.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    composed,
    config,
    logs,
    async request(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      let body = rest.body;
      if (json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(json);
      }
      const response = await fetch(`${url}${path}`, { ...rest, headers, body });
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
      return { status: response.status, headers: response.headers, text, body: parsed };
    },
    close: () => composed.close(),
  };
}

export function tokenFor(
  tenantId: string,
  options: { admin?: boolean; ttlSeconds?: number; subject?: string } = {},
): Promise<string> {
  return signToken(
    TEST_JWT_SECRET,
    { subject: options.subject ?? 'user-1', tenantId, admin: options.admin ?? false },
    options.ttlSeconds ?? 3600,
  );
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Creates a key through the API and returns its record and raw key. */
export async function createKey(
  app: TestApp,
  token: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; rawKey: string; apiKey: Record<string, unknown> }> {
  const response = await app.request('/api/v1/api-keys', {
    method: 'POST',
    headers: bearer(token),
    json: { name: 'test key', ...body },
  });
  if (response.status !== 201) {
    throw new Error(`key creation failed: ${response.status} ${response.text}`);
  }
  return {
    id: response.body.data.apiKey.id,
    rawKey: response.body.data.rawKey,
    apiKey: response.body.data.apiKey,
  };
}

export interface TestContext {
  readonly database: TestDatabase;
  readonly app: TestApp;
}

/**
 * Runs `step`, failing with an error that names it when it has not ended after 45 s: a hook that
 * times out (at 60 s) names only the hook, and CI keeps only the end of its output.
 */
async function failIfSlow(what: string, step: () => Promise<unknown> | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      step(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not end within 45 s`)), 45_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A database and a listening app for the whole test file, created before its tests and closed
 * after them. Read `ctx.app` and `ctx.database` inside tests and hooks.
 */
export function useTestApp(
  env: Record<string, string> = {},
  options: Parameters<typeof startApp>[2] = {},
): TestContext {
  let database: TestDatabase | null = null;
  let app: TestApp | null = null;
  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startApp(database.handle, env, options);
  });
  afterAll(async () => {
    await failIfSlow('closing the app', () => app?.close());
    await failIfSlow('destroying the test database', () => database?.destroy());
  });
  return {
    get database() {
      if (database === null) {
        throw new Error('useTestApp: the database exists only inside tests and hooks');
      }
      return database;
    },
    get app() {
      if (app === null) {
        throw new Error('useTestApp: the app exists only inside tests and hooks');
      }
      return app;
    },
  };
}

/**
 * Rate-limit windows are fixed and roll over on the UTC minute. A test that counts several
 * requests in one window waits, when the minute is about to end, until the next one has begun, so
 * that its requests never straddle a boundary.
 */
export async function withinOneMinuteWindow(marginMs = 5_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) {
    await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
  }
}

/** Where the suite's real scanners are pointed: a loopback address that is not the service's. */
export const SCAN_ADDRESS = '127.0.0.2';

/**
 * An app whose workers build the real runners loads the scanner egress rules, and those judge
 * every scanner process on the machine, the other test files' included (they run in parallel).
 * Such an app must therefore let scanners reach SCAN_ADDRESS, or it would break scans it knows
 * nothing of: refused here, loudly, rather than as another file's flaky failure.
 */
function assertScannersMayShare(config: Config, ownRunners: boolean): void {
  if (
    config.workers > 0 &&
    !ownRunners &&
    !allowsPrivateAddress(config.allowPrivateTargets, SCAN_ADDRESS)
  ) {
    throw new Error(
      `a test app with real runners loads the scanner egress rules: its ALLOW_PRIVATE_TARGETS must allow ${SCAN_ADDRESS}`,
    );
  }
}
