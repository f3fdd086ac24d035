/**
 * Fair webhook deliveries (issue 20) over real HTTP and real HTTPS, with two services on one
 * database (each runs a dispatcher, as every process does): deliveries go in turns over tenants
 * with at most WEBHOOK_TENANT_MAX_IN_FLIGHT attempts of one tenant in flight over both, so a tenant
 * whose receivers never answer delays only itself; a suspended tenant's deliveries are held, with
 * no attempt and no failure counted, until it is reinstated; and a tenant has at most
 * WEBHOOK_TEST_MAX_CONCURRENT webhook tests in flight over both services.
 *
 * Scans run on named test doubles (test/doubles/engines.ts): nmap completes at once, so a scan is
 * two events (scan.started, scan.completed) for the price of a POST; sqlmap is held until released.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldEngine, instantEngine } from '../doubles/engines.js';
import {
  bearer,
  createKey,
  startApp,
  type TestApp,
  tokenFor,
  useTestApp,
} from '../support/harness.js';
import { createScan } from '../support/scans.js';
import { type HttpsReceiver, type ReceivedRequest, startHttpsReceiver } from '../support/tls.js';
import { until } from '../support/until.js';

/** A hanging attempt holds its place for this long: longer than the tests that count on it. */
const TIMEOUT_MS = 40_000;
/** TENANT_MAX_WEBHOOKS' default on the branch that adds the cap (issue 20). */
const MAX_WEBHOOKS = 25;
const CAP = 4;

const held = heldEngine();
const engines = new Map([
  ['nmap', instantEngine()],
  ['sqlmap', held.engine],
]);
const resolver = {
  check: async () => ({ ok: true as const, addresses: ['203.0.113.10'] }),
};
const env = {
  WORKERS: '1',
  WORKER_CONCURRENCY: '8',
  ALLOW_PRIVATE_WEBHOOKS: 'true',
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_RETRY_DELAYS_MS: '0,200,400,800',
  WEBHOOK_TENANT_MAX_IN_FLIGHT: String(CAP),
  WORKER_SHUTDOWN_GRACE_MS: '100',
};
const ctx = useTestApp(env, { engineRunners: engines, resolver });

/** The second service: API and dispatcher, no scan workers. */
let second: TestApp;
let live: HttpsReceiver;
let admin = '';

beforeAll(async () => {
  second = await startApp(ctx.database.connectAgain(), { ...env, WORKERS: '0' });
  live = await startHttpsReceiver();
  admin = await tokenFor(randomUUID(), { admin: true, subject: 'root' });
});

afterAll(async () => {
  await live?.close();
  await second?.close();
});

async function newTenant(): Promise<{ id: string; key: string }> {
  const id = randomUUID();
  const { rawKey } = await createKey(ctx.app, await tokenFor(id), {
    rateLimitPerMinute: 1000,
    rateLimitPerHour: 50_000,
  });
  return { id, key: rawKey };
}

const call = (app: TestApp, key: string, method: string, path: string, json?: unknown) =>
  app.request(path, {
    method,
    headers: { 'x-api-key': key },
    ...(json === undefined ? {} : { json }),
  });

async function createWebhook(key: string, url: string, events: string[]) {
  const response = await call(ctx.app, key, 'POST', '/api/v1/webhooks', {
    name: 'hook',
    url,
    events,
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.webhook as { id: string };
}

const scanOf = (request: ReceivedRequest): string =>
  JSON.parse(request.body.toString()).data.scanId as string;

const count = async (query: RawBuilder<{ n: number }>) =>
  (await query.execute(ctx.database.handle.db)).rows[0]?.n ?? -1;

describe('a suspended tenant', () => {
  it('has its deliveries held, not sent and not counted, until it is reinstated', async () => {
    const tenant = await newTenant();
    const path = `/held-${randomUUID()}`;
    const webhook = await createWebhook(tenant.key, `${live.url}${path.slice(1)}`, [
      'scan.completed',
      'scan.failed',
    ]);
    const scan = await createScan(ctx.app, tenant.key, {
      target: 'http://app.example/item?id=1',
      scanType: 'sqlmap',
    });
    await held.waitFor(scan.id);
    const suspended = await ctx.app.request(`/api/v1/admin/tenants/${tenant.id}/suspend`, {
      method: 'POST',
      headers: bearer(admin),
    });
    expect(suspended.status).toBe(200);
    // The scan ends while its tenant is suspended (released here, or ended by the kill switch).
    held.held.get(scan.id)?.release({});
    await until(
      () =>
        count(sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
          where tenant_id = ${tenant.id} and kind = 'webhook'`),
      (n) => n === 1,
    );
    // Both dispatchers have nothing they may send now: had the delivery been claimable, a drain
    // would have sent it.
    await Promise.all([ctx.app.composed.dispatcher.drain(), second.composed.dispatcher.drain()]);
    expect(live.requests.filter((request) => request.url === path)).toHaveLength(0);
    expect(
      await count(sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
        where tenant_id = ${tenant.id} and status = 'pending' and attempts = 0`),
    ).toBe(1);
    expect(
      await count(sql<{ n: number }>`select count(*)::int as n from webhook_attempts
        where tenant_id = ${tenant.id}`),
    ).toBe(0);
    expect(
      await count(sql<{ n: number }>`select consecutive_failures as n from webhooks
        where id = ${webhook.id.slice(3)}`),
    ).toBe(0);

    const reinstated = await ctx.app.request(`/api/v1/admin/tenants/${tenant.id}/reinstate`, {
      method: 'POST',
      headers: bearer(admin),
    });
    expect(reinstated.status).toBe(200);
    const [request] = await until(
      () => live.requests.filter((r) => r.url === path),
      (list) => list.length >= 1,
    );
    expect(request && scanOf(request)).toBe(scan.id);
    await Promise.all([ctx.app.composed.dispatcher.drain(), second.composed.dispatcher.drain()]);
    const log = (
      await call(ctx.app, tenant.key, 'GET', `/api/v1/webhooks/${webhook.id}/deliveries`)
    ).body.data.deliveries;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ attempt: 1, success: true, statusCode: 200 });
  });
});

describe('webhook tests', () => {
  it('runs at most WEBHOOK_TEST_MAX_CONCURRENT (2) of one tenant at once over both services', async () => {
    const waiting: ServerResponse[] = [];
    const holding = await startHttpsReceiver((_request, res) => {
      waiting.push(res);
    });
    try {
      const tenant = await newTenant();
      const other = await newTenant();
      const mine = await createWebhook(tenant.key, holding.url, ['scan.completed']);
      const theirs = await createWebhook(other.key, live.url, ['scan.completed']);
      const test = (app: TestApp, key: string, id: string) =>
        call(app, key, 'POST', `/api/v1/webhooks/${id}/test`);
      const first = test(ctx.app, tenant.key, mine.id);
      const secondTest = test(second, tenant.key, mine.id);
      await holding.waitForRequests(2, 10_000);

      for (const app of [ctx.app, second]) {
        const refused = await test(app, tenant.key, mine.id);
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(Math.ceil((TIMEOUT_MS + 5_000) / 1000));
        expect(refused.body.error).toBe(`Rate limit exceeded. Retry in ${retryAfter} seconds.`);
      }
      // Another tenant's tests are not held back.
      expect((await test(second, other.key, theirs.id)).body.data).toMatchObject({
        delivered: true,
      });
      expect(holding.requests).toHaveLength(2);

      for (const res of waiting.splice(0)) {
        res.writeHead(204).end();
      }
      for (const answer of await Promise.all([first, secondTest])) {
        expect(answer.status).toBe(200);
        expect(answer.body.data).toMatchObject({ delivered: true, statusCode: 204 });
      }
      holding.setStatus(200);
      expect((await test(second, tenant.key, mine.id)).body.data).toMatchObject({
        delivered: true,
      });
      // The refused calls were never sent nor logged.
      const log = (await call(ctx.app, tenant.key, 'GET', `/api/v1/webhooks/${mine.id}/deliveries`))
        .body.data.deliveries;
      expect(log).toHaveLength(3);
    } finally {
      await holding.close();
    }
  }, 30_000);

  it('documents the limit in the OpenAPI document', async () => {
    const { paths } = (await ctx.app.request('/api/v1/openapi.json')).body;
    const route = paths['/api/v1/webhooks/{webhookId}/test'].post;
    expect(route.description).toContain('WEBHOOK_TEST_MAX_CONCURRENT');
    expect(route.responses['429'].description).toContain('RATE_LIMIT_EXCEEDED');
  });
});

describe('a tenant whose receiver never answers', () => {
  it("delays only itself: another tenant's deliveries arrive within 2 s of their events", async () => {
    // Accepts the connection, reads the request and never answers.
    const silent = await startHttpsReceiver(() => {});
    try {
      const flooder = await newTenant();
      for (let i = 0; i < MAX_WEBHOOKS; i += 1) {
        await createWebhook(flooder.key, `${silent.url}a-${i}`, ['scan.started', 'scan.completed']);
      }
      // That is the most it may have.
      const oneMore = await call(ctx.app, flooder.key, 'POST', '/api/v1/webhooks', {
        name: 'hook',
        url: `${silent.url}a-more`,
        events: ['scan.started'],
      });
      expect(oneMore.status).toBe(409);
      expect(oneMore.body.code).toBe('TENANT_LIMIT_REACHED');
      // 4 scans: 8 events, 200 deliveries to the silent receiver.
      for (let i = 0; i < 4; i += 1) {
        await createScan(ctx.app, flooder.key, { target: `a-${i}.example`, scanType: 'nmap' });
      }
      await silent.waitForRequests(CAP, 10_000);

      const victim = await newTenant();
      const path = `/victim-${randomUUID()}`;
      await createWebhook(victim.key, `${live.url}${path.slice(1)}`, ['scan.completed']);
      const latencies: number[] = [];
      for (let round = 0; round < 6; round += 1) {
        // The flood goes on: every round the flooder adds two events, 50 deliveries.
        await createScan(ctx.app, flooder.key, {
          target: `more-${round}.example`,
          scanType: 'nmap',
        });
        const scan = await createScan(ctx.app, victim.key, {
          target: `b-${round}.example`,
          scanType: 'nmap',
        });
        const [request] = await until(
          () => live.requests.filter((r) => r.url === path && scanOf(r) === scan.id),
          (list) => list.length === 1,
          10_000,
        );
        const event = JSON.parse(request?.body.toString() ?? '{}');
        latencies.push((request?.receivedAt ?? 0) - Date.parse(event.timestamp));
      }
      expect(Math.max(...latencies), `event → delivery: ${latencies.join(', ')} ms`).toBeLessThan(
        2_000,
      );
      // However many of its deliveries are due, the flooder has had exactly its cap in flight over
      // both services the whole time (its attempts hang for 40 s): any claim that let the victim's
      // deliveries through would have taken the flooder's older ones first had its cap allowed.
      expect(silent.requests).toHaveLength(CAP);
      expect(
        await count(sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
          where tenant_id = ${flooder.id} and leased_until > now()`),
      ).toBe(CAP);
      // The rest waits its turn: 10 scans, 20 events, 500 deliveries, all but CAP never tried.
      await until(
        () =>
          count(sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
            where tenant_id = ${flooder.id} and status = 'pending' and attempts = 0`),
        (n) => n === MAX_WEBHOOKS * 2 * 10 - CAP,
      );
      expect(silent.requests).toHaveLength(CAP);
    } finally {
      // The hanging attempts end now (connection closed): failures, retried on the schedule.
      await silent.close();
    }
  }, 60_000);
});
