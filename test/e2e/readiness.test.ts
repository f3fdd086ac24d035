/**
 * /readyz says whether this process can serve, and why not (issue 19): PostgreSQL not answering
 * (behind a proxy this file cuts), no scan worker of the process able to claim, the embedded
 * database's DATA_DIR out of room (a real tmpfs filled up). Each answer is 503 SERVICE_UNAVAILABLE
 * with the reason in the message, and 200 again once the cause is gone, without a restart.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPglite, type DatabaseHandle, openPglite } from '../../src/adapters/db/connect.js';
import { DATA_DIR_MIN_FREE_BYTES } from '../../src/adapters/db/database-health.js';
import { migrate } from '../../src/adapters/db/migrate.js';
import { instantEngine } from '../doubles/engines.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startApp, type TestApp, type TestResponse } from '../support/harness.js';
import { createProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { until } from '../support/until.js';

const run = promisify(execFile);

const TIMEOUTS = { connectTimeoutMs: 1_000, statementTimeoutMs: 1_500 };

const READY = { success: true, data: { status: 'ready' } };
const CANNOT_CLAIM =
  /^Service temporarily unavailable: no scan worker of this process can claim: \S/;

function notReady(reason: string) {
  return {
    success: false,
    error: `Service temporarily unavailable: ${reason}`,
    code: 'SERVICE_UNAVAILABLE',
  };
}

const readyz = (app: TestApp) => app.request('/readyz');
const answers = (app: TestApp, body: unknown) =>
  until(
    () => readyz(app),
    (response: TestResponse) => JSON.stringify(response.body) === JSON.stringify(body),
    15_000,
    100,
  );

describe('/readyz of an API process on PostgreSQL', () => {
  let database: ProxiedPostgres;
  let app: TestApp;

  beforeAll(async () => {
    database = await createProxiedPostgres();
    app = await startApp(database.connect({ timeouts: TIMEOUTS }));
  });

  afterAll(async () => {
    await app?.close();
    await database?.destroy();
  });

  it('is 503 within the connect timeout while the path is silent, 200 once it thaws', async () => {
    expect((await readyz(app)).body).toEqual(READY);
    database.proxy.freeze();
    let response: TestResponse;
    const started = performance.now();
    try {
      response = await readyz(app);
    } finally {
      database.proxy.thaw();
    }
    const ms = performance.now() - started;
    expect(response.status).toBe(503);
    expect(response.body).toEqual(notReady('the database is not answering'));
    expect(ms).toBeLessThan(TIMEOUTS.connectTimeoutMs + 1_000);
    await answers(app, READY);
  });

  it('is 503 at once while PostgreSQL refuses connections, 200 once it accepts', async () => {
    database.proxy.refuse();
    let response: TestResponse;
    const started = performance.now();
    try {
      response = await readyz(app);
    } finally {
      database.proxy.accept();
    }
    expect(response.body).toEqual(notReady('the database is not answering'));
    expect(performance.now() - started).toBeLessThan(TIMEOUTS.connectTimeoutMs);
    await answers(app, READY);
  });
});

describe('/readyz of a process that runs scan workers', () => {
  let database: TestDatabase;
  let app: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startApp(
      database.handle,
      { WORKERS: '1' },
      { engineRunners: new Map([['nmap', instantEngine()]]) },
    );
  });

  afterAll(async () => {
    await app?.close();
    await database?.destroy();
  });

  it('is 503 while its worker cannot claim, 200 once it can again', async () => {
    const [worker] = app.composed.workers;
    expect(worker).toBeDefined();
    expect((await readyz(app)).body).toEqual(READY);
    // The database answers `select 1`, but the queue cannot be read.
    await sql`alter table scans rename to scans_away`.execute(database.handle.db);
    try {
      worker?.wake();
      // The reason after the colon is the worker's own (ScanWorker.readiness()).
      const answer = await until(
        () => readyz(app),
        (response) => response.status === 503,
        15_000,
        100,
      );
      expect(answer.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
      expect(answer.body.error).toMatch(CANNOT_CLAIM);
    } finally {
      await sql`alter table scans_away rename to scans`.execute(database.handle.db);
    }
    worker?.wake();
    await answers(app, READY);
  });

  it('is 503 once its worker is stopping', async () => {
    const [worker] = app.composed.workers;
    await worker?.stop(0);
    const answer = await readyz(app);
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatch(CANNOT_CLAIM);
  });
});

describe('/readyz on the embedded database', () => {
  let mountPoint: string;
  let dataDir: string;
  let handle: DatabaseHandle;
  let app: TestApp;

  beforeAll(async () => {
    // A file system of its own, small enough to fill: a tmpfs (the suite runs as root).
    mountPoint = await mkdtemp(join(tmpdir(), 'rampart-readyz-'));
    await run('mount', ['-t', 'tmpfs', '-o', 'size=160m,mode=0700', 'tmpfs', mountPoint]);
    dataDir = join(mountPoint, 'data');
    const { pglite } = await openPglite(dataDir);
    handle = connectPglite(pglite, true, { dataDir });
    await migrate(handle.db);
    app = await startApp(handle);
  });

  afterAll(async () => {
    await app?.close();
    await handle?.close();
    await run('umount', [mountPoint]).catch(() => {});
    await rm(mountPoint, { recursive: true, force: true });
  });

  it('is 503 while DATA_DIR is low on space, 200 once there is room again', async () => {
    expect((await readyz(app)).body).toEqual(READY);
    const stats = await statfs(dataDir);
    const free = stats.bavail * stats.bsize;
    expect(free).toBeGreaterThan(DATA_DIR_MIN_FREE_BYTES);
    // Leave half the threshold free.
    const filler = join(mountPoint, 'filler');
    await writeFile(filler, Buffer.alloc(free - DATA_DIR_MIN_FREE_BYTES / 2));
    try {
      expect((await readyz(app)).body).toEqual(notReady(`no space left on DATA_DIR ${dataDir}`));
    } finally {
      await rm(filler);
    }
    expect((await readyz(app)).body).toEqual(READY);
  });
});
