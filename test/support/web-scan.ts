/**
 * What the tests that scan the deliberately vulnerable test app with a real scanner (sqlmap,
 * wapiti) set up: the vulnerable app, a server that never answers (to cancel a scan that is
 * waiting), a site whose pages send the scanner to another host that counts who came, and for the
 * end-to-end tests an app whose one worker runs only that engine, through
 * the runners a worker builds at start, with ALLOW_PRIVATE_TARGETS (the vulnerable app is on
 * 127.0.0.2, as a deployment scanning its own network would set it; not on 127.0.0.1, the service's
 * own address, which the scanner egress rules refuse), and a key whose rate limit
 * lets a test poll its scans for minutes.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { EngineName } from '../../src/engines/engine.js';
import { realEngineRunners } from '../../src/main/workers.js';
import type { EngineRunner } from '../../src/use-cases/ports/engine-runs.js';
import {
  createKey,
  TEST_ENGINES,
  TEST_JWT_SECRET,
  type TestApp,
  tokenFor,
  useTestApp,
} from './harness.js';
import { TEST_SANDBOX } from './sandbox.js';
import { type getScan, waitUntilEnded } from './scans.js';
import { type PlantedFlaw, startVulnerableApp, type VulnerableApp } from './vulnerable-app.js';

/** The vulnerable app as a test file sees it (vulnerable-app.ts). */
export interface VulnerableAppView {
  readonly url: string;
  /** Requests its `/auth/reset` page has had. */
  readonly resetVisits: number;
  /** Logs in through its form: the session cookie. */
  login(): Promise<{ readonly name: string; readonly value: string }>;
  /** Switches a planted flaw of its public pages off (`true`) or on again (`false`). */
  setFixed(flaw: PlantedFlaw, fixed: boolean): void;
}

/** The deliberately vulnerable test app for the whole test file; read `url` inside tests and hooks. */
export function useVulnerableApp(): VulnerableAppView {
  let vulnerable: VulnerableApp | null = null;
  beforeAll(async () => {
    vulnerable = await startVulnerableApp();
  });
  afterAll(async () => {
    await vulnerable?.close();
  });
  const started = (): VulnerableApp => {
    if (vulnerable === null) {
      throw new Error('useVulnerableApp: the app exists only inside tests and hooks');
    }
    return vulnerable;
  };
  return {
    get url() {
      return started().url;
    },
    get resetVisits() {
      return started().resetVisits ?? 0;
    },
    login() {
      const app = started();
      if (app.login === undefined) {
        throw new Error('useVulnerableApp: this app has no login');
      }
      return app.login();
    },
    setFixed(flaw, fixed) {
      const app = started();
      if (app.setFixed === undefined) {
        throw new Error('useVulnerableApp: this app cannot switch its flaws');
      }
      app.setFixed(flaw, fixed);
    },
  };
}

/** Listens on `host` (127.0.0.2: a scan's target) on a free port; resolves with the port. */
async function listenLocally(server: Server, host = '127.0.0.2'): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('the server has no TCP address');
  }
  return address.port;
}

export interface ElsewhereSite {
  /** The site the scanner is given, `http://127.0.0.2:<port>/`. */
  readonly url: string;
  /** Connections the other host has received so far. */
  readonly visits: number;
}

/**
 * Two servers for the whole test file: the site a scan targets, on 127.0.0.2, and another host,
 * reached as `localhost` (127.0.0.1, another host name for the scanner; when a worker's egress
 * rules are loaded the kernel refuses it too, as the service's own address), that only counts
 * connections. The
 * site's pages send the scanner there: `/jump?id=1` with a 302 redirect, `/meta?id=1` with a meta
 * refresh, `/` with links to the other host and to `/jump` and `/meta`.
 */
export function useElsewhereSite(): ElsewhereSite {
  let visits = 0;
  let sitePort = 0;
  const elsewhere = createServer((socket) => {
    visits += 1;
    socket.on('error', () => {
      // a scanner may reset the connection; it came, which is what counts
    });
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno');
  });
  let elsewherePort = 0;
  const site = createHttpServer((request, response) => {
    const other = `http://localhost:${elsewherePort}`;
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    if (path === '/jump') {
      response.writeHead(302, { Location: `${other}/landed?id=1` }).end();
      return;
    }
    const body =
      path === '/meta'
        ? `<html><head><meta http-equiv="refresh" content="0; url=${other}/refreshed?id=1"></head><body>moved</body></html>`
        : `<html><body><a href="${other}/linked?id=1">elsewhere</a> <a href="/jump?id=1">jump</a> <a href="/meta?id=1">meta</a></body></html>`;
    response.writeHead(200, { 'Content-Type': 'text/html' }).end(body);
  });
  beforeAll(async () => {
    elsewherePort = await listenLocally(elsewhere, '127.0.0.1');
    sitePort = await listenLocally(site);
  });
  afterAll(async () => {
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
    await new Promise((resolve) => elsewhere.close(resolve));
  });
  return {
    get url() {
      return `http://127.0.0.2:${sitePort}/`;
    },
    get visits() {
      return visits;
    },
  };
}

/**
 * A TCP server on 127.0.0.2 for the whole test file that accepts connections and never answers:
 * a scanner sent there waits on its first request until it is stopped. Read `port` inside tests.
 */
export function useSilentServer(): { readonly port: number } {
  let server: Server | null = null;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {
        // the scanner's connection is cut when it is killed; expected here.
      });
      socket.on('close', () => sockets.delete(socket));
    });
    server = silent;
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.2', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) {
      socket.destroy();
    }
    const silent = server;
    if (silent !== null) {
      await new Promise((resolve) => silent.close(resolve));
    }
  });
  return {
    get port() {
      const address = server?.address();
      if (address === undefined || address === null || typeof address === 'string') {
        throw new Error('useSilentServer: the server listens only inside tests and hooks');
      }
      return address.port;
    },
  };
}

/**
 * A key of a new tenant with a generous rate limit: scans of a real scanner run for seconds and
 * are polled all along, which the default 60 requests a minute would not allow.
 */
export async function createPollingKey(app: TestApp): Promise<string> {
  const created = await createKey(app, await tokenFor(randomUUID()), {
    rateLimitPerMinute: 1000,
    rateLimitPerHour: 50_000,
  });
  return created.rawKey;
}

/**
 * Waits until GET /api/v1/engines shows `engine` available: the worker registers its engines as
 * it starts, which on a loaded machine may come after the test's first scan would (a 503).
 */
export async function untilEngineAvailable(
  app: TestApp,
  key: string,
  engine: EngineName,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await app.request('/api/v1/engines', { headers: { 'x-api-key': key } });
    const listed = (
      response.body?.data?.engines as Array<{ name: string; available: boolean }> | undefined
    )?.find((entry) => entry.name === engine);
    if (listed?.available === true) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`no worker registered ${engine} within ${timeoutMs} ms: ${response.text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface WebScanContext {
  /** The runners the worker was given: only those of the engines asked for. */
  readonly runners: ReadonlyMap<string, EngineRunner>;
  readonly app: TestApp;
  readonly key: string;
  readonly vulnerable: VulnerableAppView;
  /** Polls the scan every 250 ms (the scanner runs for seconds) until it has ended. */
  waitUntilEnded(id: string, timeoutMs: number): ReturnType<typeof getScan>;
}

/**
 * For a test file: the app (with a test database), the vulnerable app and the key, made before
 * its tests and closed after them. Read the fields inside tests and hooks.
 */
export function useWebScanApp(engine: EngineName | readonly EngineName[]): WebScanContext {
  // The runners a worker builds at start (`realEngineRunners`, which takes every engine with a
  // `command` whose binary was found), here with only `engine` (or those listed) reported as
  // installed.
  const installed: readonly EngineName[] = typeof engine === 'string' ? [engine] : engine;
  const runners = realEngineRunners(
    loadConfig({ JWT_SECRET: TEST_JWT_SECRET, PATH: process.env.PATH ?? '' }),
    TEST_ENGINES.map((listed) => ({
      ...listed,
      available: (installed as readonly string[]).includes(listed.name),
    })),
    TEST_SANDBOX,
  );
  const ctx = useTestApp(
    {
      WORKERS: '1',
      WORKER_CONCURRENCY: '1',
      ALLOW_PRIVATE_TARGETS: 'true',
      WORKER_SHUTDOWN_GRACE_MS: '100',
    },
    { engineRunners: runners },
  );
  let key = '';
  beforeAll(async () => {
    key = await createPollingKey(ctx.app);
    for (const name of installed) {
      await untilEngineAvailable(ctx.app, key, name);
    }
  });
  const vulnerable = useVulnerableApp();

  return {
    runners,
    get app() {
      return ctx.app;
    },
    get key() {
      return key;
    },
    vulnerable,
    waitUntilEnded: (id, timeoutMs) => waitUntilEnded(ctx.app, key, id, timeoutMs),
  };
}
