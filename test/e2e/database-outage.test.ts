/**
 * What a client sees while PostgreSQL is away (issue 19): every request gets an answer within the
 * configured timeouts, 503 SERVICE_UNAVAILABLE with Retry-After in the envelope, and requests
 * succeed again once the database is back, without a restart. A call that waits for a pooled
 * connection while every one is held gives up after the connect timeout, as an outage. A database failure that is not an
 * outage answers 500 DATABASE_ERROR, saying nothing of the SQL. Always on the real PostgreSQL,
 * behind a TCP proxy only this file's app uses (test/support/proxied-postgres.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/adapters/db/database-errors.js';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  fromDatabaseError,
} from '../../src/adapters/http/error-handler.js';
import {
  bearer,
  createKey,
  startApp,
  type TestApp,
  type TestResponse,
  tokenFor,
} from '../support/harness.js';
import { createProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { until } from '../support/until.js';

/** Small on purpose; the client gives up a statement 1 s after the server would (pg-pool.ts). */
const TIMEOUTS = { connectTimeoutMs: 1_000, statementTimeoutMs: 1_500 };
const READ_TIMEOUT_MS = TIMEOUTS.statementTimeoutMs + 1_000;
/**
 * The longest a request may wait on a silent path: a pooled client (at most the connect timeout)
 * and one statement on it (the read timeout), plus scheduling margin on a shared 2-core machine.
 */
const FROZEN_BOUND_MS = TIMEOUTS.connectTimeoutMs + READ_TIMEOUT_MS + 1_500;
/** "At once": well below any timeout. */
const AT_ONCE_MS = TIMEOUTS.connectTimeoutMs;
/** Trust authentication ignores it; it must not reach a log line. */
const PASSWORD = 'pw-that-must-not-leak';

const UNAVAILABLE = {
  success: false,
  error: 'Service temporarily unavailable: the database is not answering',
  code: 'SERVICE_UNAVAILABLE',
};

let database: ProxiedPostgres;
let app: TestApp;
let token: string;
let rawKey: string;

beforeAll(async () => {
  database = await createProxiedPostgres({ password: PASSWORD });
  app = await startApp(database.connect({ timeouts: TIMEOUTS }));
  token = await tokenFor(randomUUID());
  rawKey = (await createKey(app, token)).rawKey;
});

afterAll(async () => {
  await app?.close();
  await database?.destroy();
});

/** A JWT route (the tenant check reads the database) and an API-key route (the key lookup does). */
const requests = {
  jwt: () => app.request('/api/v1/api-keys', { headers: bearer(token) }),
  key: () => app.request('/api/v1/scans', { headers: { 'x-api-key': rawKey } }),
};

async function timed(request: () => Promise<TestResponse>) {
  const started = performance.now();
  const response = await request();
  return { response, ms: performance.now() - started };
}

function expectUnavailable(response: TestResponse): void {
  expect(response.status).toBe(503);
  expect(response.body).toEqual(UNAVAILABLE);
  expect(response.headers.get('retry-after')).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
}

const recovered = (request: () => Promise<TestResponse>) =>
  until(request, (response) => response.status === 200, 15_000, 100);

/** Log lines of one request, parsed. */
function logsOf(response: TestResponse): Array<Record<string, unknown>> {
  const id = response.headers.get('x-request-id');
  return app.logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.reqId === id);
}

describe('while the path to PostgreSQL is silent (a partition)', () => {
  it('answers 503 with Retry-After within the configured timeouts, then serves again', async () => {
    for (const request of Object.values(requests)) {
      expect((await request()).status).toBe(200);
    }
    database.proxy.freeze();
    try {
      // Both at once: pooled clients whose statements hang, and new connections that never open.
      const answers = await Promise.all(
        [...Object.values(requests), ...Object.values(requests)].map(timed),
      );
      for (const { response, ms } of answers) {
        expectUnavailable(response);
        expect(ms).toBeLessThan(FROZEN_BOUND_MS);
      }
    } finally {
      database.proxy.thaw();
    }
    for (const request of Object.values(requests)) {
      expect((await recovered(request)).status).toBe(200);
    }
  });

  it('logs one warning per refused request, with no stack and no password', async () => {
    database.proxy.freeze();
    let response: TestResponse;
    try {
      response = await requests.jwt();
    } finally {
      database.proxy.thaw();
    }
    expectUnavailable(response);
    const lines = logsOf(response).filter((line) => Number(line.level) >= 40);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, code: 'SERVICE_UNAVAILABLE' });
    expect(JSON.stringify(lines[0])).not.toMatch(/\bat .+:\d+:\d+/);
    expect(app.logs.join('')).not.toContain(PASSWORD);
    await recovered(requests.jwt);
  });
});

describe('a pooled connection whose statement timed out on a silent path', () => {
  it('is closed, not handed to the next query with that statement still in flight', async () => {
    const handle = database.connect({ timeouts: TIMEOUTS, poolSize: 1 });
    const backendPid = async () =>
      (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)).rows[0]?.pid;
    const before = await backendPid();
    database.proxy.freeze();
    try {
      await expect(sql`select 1`.execute(handle.db)).rejects.toThrow('Query read timeout');
    } finally {
      database.proxy.thaw();
    }
    // Kept, the one connection would answer again once thawed (its late answer drained first).
    const after = await backendPid();
    expect(after).toBeGreaterThan(0);
    expect(after).not.toBe(before);
  });
});

describe('a transaction whose statement timed out on a silent path', () => {
  it('fails within one read timeout: its rollback does not wait behind that statement', async () => {
    const handle = database.connect({ timeouts: TIMEOUTS, poolSize: 1 });
    let started = 0;
    const failure = await handle.db
      .transaction()
      .execute(async (trx) => {
        await sql`select 1`.execute(trx);
        database.proxy.freeze();
        started = performance.now();
        await sql`select 2`.execute(trx);
      })
      .then(
        () => null,
        (error: unknown) => error,
      )
      .finally(() => database.proxy.thaw());
    const ms = performance.now() - started;
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(fromDatabaseError(failure)?.status).toBe(503);
    // One read timeout (the statement's), not two (the ROLLBACK's after it on the same connection).
    expect(ms).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(READ_TIMEOUT_MS + 1_000);
    // The pool replaced the connection: the next call is served.
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([
      { one: 1 },
    ]);
  });
});

describe('a call that waits for a pooled connection while every one is held', () => {
  it('gives up after the connect timeout as an outage (503), and the pool serves again', async () => {
    const handle = database.connect({ timeouts: TIMEOUTS, poolSize: 1 });
    // A transaction holds the only connection until the test lets it go (idle in it: no statement
    // runs, so no statement timeout ends it).
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const holder = handle.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      entered();
      await held;
    });
    await inside;
    let waited: { error: unknown; ms: number };
    try {
      const started = performance.now();
      const error = await sql`select 1`.execute(handle.db).then(
        () => null,
        (failure: unknown) => failure,
      );
      waited = { error, ms: performance.now() - started };
    } finally {
      letGo();
      await holder;
    }
    expect(waited.error).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(waited.error)).toBe(true);
    expect(fromDatabaseError(waited.error)?.status).toBe(503);
    // It waited for the connect timeout (a little timer slack below it), and not much longer.
    expect(waited.ms).toBeGreaterThanOrEqual(TIMEOUTS.connectTimeoutMs - 50);
    expect(waited.ms).toBeLessThan(TIMEOUTS.connectTimeoutMs + 1_000);
    // The connection the transaction gave back serves the next call.
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([
      { one: 1 },
    ]);
  });
});

describe('while PostgreSQL refuses connections (the server down)', () => {
  it('answers 503 at once, then serves again once it accepts', async () => {
    database.proxy.refuse();
    try {
      for (const request of Object.values(requests)) {
        const { response, ms } = await timed(request);
        expectUnavailable(response);
        expect(ms).toBeLessThan(AT_ONCE_MS);
      }
    } finally {
      database.proxy.accept();
    }
    for (const request of Object.values(requests)) {
      expect((await recovered(request)).status).toBe(200);
    }
  });
});

describe('after every connection was cut (a restart)', () => {
  it('serves again at once on new connections', async () => {
    database.proxy.cut();
    const seen: number[] = [];
    await until(
      async () => {
        const response = await requests.key();
        seen.push(response.status);
        if (response.status !== 200) {
          expectUnavailable(response);
        }
        return response;
      },
      (response) => response.status === 200,
      5_000,
      50,
    );
    // Idle connections the cut reset are dropped by the pool, not handed to requests.
    expect(seen).toEqual([200]);
  });
});

describe('a database failure that is not an outage', () => {
  it('answers 500 DATABASE_ERROR without SQL or stack, and logs it once at error', async () => {
    await database.admin.query(`alter table ${database.schema}.api_keys rename to api_keys_away`);
    let response: TestResponse;
    try {
      response = await requests.jwt();
    } finally {
      await database.admin.query(`alter table ${database.schema}.api_keys_away rename to api_keys`);
    }
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      success: false,
      error: 'Database operation failed',
      code: 'DATABASE_ERROR',
    });
    expect(response.headers.get('retry-after')).toBeNull();
    expect(response.text).not.toMatch(/api_keys|relation|select|\bat .+:\d+:\d+/i);
    const lines = logsOf(response).filter((line) => Number(line.level) >= 40);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      code: 'DATABASE_ERROR',
      db: { code: '42P01', message: 'relation "api_keys" does not exist' },
    });
    expect((await requests.jwt()).status).toBe(200);
  });
});
