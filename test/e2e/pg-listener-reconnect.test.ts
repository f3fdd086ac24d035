/**
 * The LISTEN connection of a PostgreSQL handle comes back by itself after the database went away
 * however it went (issue 19): cut (a restart), refused while it tries again (the server still
 * down), or silent (a partition: no error ever arrives, so the handle must notice by itself). A
 * NOTIFY sent after the recovery reaches the subscriber. Always on the real PostgreSQL, behind a
 * proxy only this file uses; the handle runs no other query, so every connection the proxy sees
 * is the listener's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import { createProxiedPostgres, type ProxiedPostgres } from '../support/proxied-postgres.js';
import { until } from '../support/until.js';

const TIMEOUTS = { connectTimeoutMs: 1_000, statementTimeoutMs: 1_500 };
const CHANNEL = `reconnect_${randomUUID().replace(/-/g, '')}`;

let database: ProxiedPostgres;
let handle: DatabaseHandle;
const received: string[] = [];

beforeAll(async () => {
  database = await createProxiedPostgres();
  handle = database.connect({ timeouts: TIMEOUTS });
  await handle.listen(CHANNEL, (payload) => received.push(payload));
});

afterAll(async () => {
  await database?.destroy();
});

beforeEach(async () => {
  // Each test starts from a listener that hears.
  await delivered(`ready-${randomUUID()}`);
});

/** Sends `payload` (directly, past the proxy) until the subscriber has it. */
async function delivered(payload: string): Promise<void> {
  await until(
    async () => {
      await database.admin.query('select pg_notify($1, $2)', [CHANNEL, payload]);
      return received.includes(payload);
    },
    (done) => done,
    15_000,
    200,
  );
}

/** Waits until the listener has opened `count` more connections than it had. */
async function reconnectAttempts(count: number): Promise<void> {
  const before = database.proxy.arrived();
  await until(
    () => database.proxy.arrived(),
    (arrived) => arrived >= before + count,
    15_000,
  );
}

describe('the LISTEN connection', () => {
  it('reconnects after its connection is cut', async () => {
    const attempt = reconnectAttempts(1);
    database.proxy.cut();
    await attempt;
    await delivered('after the cut');
  });

  it('keeps trying while reconnects are refused, and hears again once accepted', async () => {
    const attempts = reconnectAttempts(2);
    database.proxy.refuse();
    try {
      await attempts;
    } finally {
      database.proxy.accept();
    }
    await delivered('after the refusals');
  });

  it('gives up a silent connection, keeps trying on the silent path, and hears once it thaws', async () => {
    const opened = database.proxy.connections();
    expect(opened).toBe(1);
    database.proxy.freeze();
    try {
      // No error arrives on a frozen path: a new connection means the listener noticed by
      // itself; a second one, that an attempt which never opened was given up and retried.
      await reconnectAttempts(2);
    } finally {
      database.proxy.thaw();
    }
    await delivered('after the freeze');
    expect(database.proxy.connections()).toBe(1);
  });
});
