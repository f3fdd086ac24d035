/**
 * Standard Webhooks headers and redelivery, over real HTTP and a real HTTPS receiver (issue 22):
 * receivers verify real deliveries (events, tests, callbacks, retries, redeliveries) with the
 * `standardwebhooks` library, with the README's snippet and with GitHub's verifier
 * (`@octokit/webhooks-methods`); a delivery is sent again one at a time or by recovery since a
 * time, with the scope, another tenant's webhook and delivery, and every refusal checked.
 */
import { randomUUID } from 'node:crypto';
import { verify as verifyGitHub } from '@octokit/webhooks-methods';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../examples/verify-webhook-signature.js';
import { createKey, SCAN_ADDRESS, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';
import {
  answerWith,
  type HttpsReceiver,
  type ReceivedRequest,
  startHttpsReceiver,
} from '../support/tls.js';
import { until } from '../support/until.js';

const DELAYS = [0, 100, 100, 100];
const ctx = useTestApp({
  WORKERS: '1',
  WORKER_CONCURRENCY: '4',
  // Its real runners load the scanner egress rules: keep the suite's scan address (harness.ts).
  ALLOW_PRIVATE_TARGETS: SCAN_ADDRESS,
  ALLOW_PRIVATE_WEBHOOKS: 'true',
  WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','),
  // Long enough that no attempt times out on a loaded machine: the counts below are exact.
  WEBHOOK_TIMEOUT_MS: '5000',
  WORKER_SHUTDOWN_GRACE_MS: '100',
});

let key = '';
let otherKey = '';
const receivers: HttpsReceiver[] = [];
const limits = { rateLimitPerMinute: 1000, rateLimitPerHour: 50_000 };

beforeAll(async () => {
  otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()), limits)).rawKey;
});

// A tenant per test: a test's scans fan out to its own webhooks only.
beforeEach(async () => {
  key = (await createKey(ctx.app, await tokenFor(randomUUID()), limits)).rawKey;
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(status = 200): Promise<HttpsReceiver> {
  const started = await startHttpsReceiver(answerWith(status));
  receivers.push(started);
  return started;
}

const call = (method: string, path: string, json?: unknown, apiKey = key) =>
  ctx.app.request(path, {
    method,
    headers: { 'x-api-key': apiKey },
    ...(json === undefined ? {} : { json }),
  });

async function createWebhook(url: string, apiKey = key) {
  const response = await call(
    'POST',
    '/api/v1/webhooks',
    { name: 'standard', url, events: ['scan.failed'] },
    apiKey,
  );
  expect(response.status, response.text).toBe(201);
  return response.body.data.webhook as { id: string; secret: string };
}

/** A scan that fails at once (its target does not resolve): one scan.failed event. */
async function failedScan(): Promise<string> {
  const scan = await createScan(ctx.app, key, {
    target: `gone-${randomUUID().slice(0, 8)}.invalid`,
    scanType: 'nmap',
  });
  await waitForStatus(ctx.app, key, scan.id, ['failed']);
  return scan.id;
}

const header = (request: ReceivedRequest | undefined, name: string) =>
  String(request?.headers[name] ?? '');

/** Verifies one received request by all three verifiers, as a receiver would on arrival. */
async function expectVerified(request: ReceivedRequest | undefined, secret: string) {
  const raw = request?.body ?? Buffer.alloc(0);
  const standardHeaders = {
    'webhook-id': header(request, 'webhook-id'),
    'webhook-timestamp': header(request, 'webhook-timestamp'),
    'webhook-signature': header(request, 'webhook-signature'),
  };
  // The library checks the timestamp against its clock, 5 minutes either way: verify now, as a
  // receiver does, and the moment of receipt is within the tolerance anyway.
  expect(new Webhook(secret).verify(raw.toString('utf8'), standardHeaders)).toEqual(
    JSON.parse(raw.toString('utf8')),
  );
  expect(verifyWebhookSignature(raw, header(request, 'x-webhook-signature'), secret)).toBe(true);
  expect(
    await verifyGitHub(secret, raw.toString('utf8'), header(request, 'x-webhook-signature')),
  ).toBe(true);
  // The attempt's own time, in seconds, taken just before sending (within its 5 s deadline).
  const sentAt = Number(standardHeaders['webhook-timestamp']);
  expect(Number.isInteger(sentAt)).toBe(true);
  expect(sentAt).toBeLessThanOrEqual(Math.floor((request?.receivedAt ?? 0) / 1000));
  expect(sentAt).toBeGreaterThanOrEqual(Math.floor((request?.receivedAt ?? 0) / 1000) - 5);
}

type Attempt = { id: string; attempt: number; success: boolean; redeliveryOf?: string };
const deliveryLog = async (webhookId: string) =>
  (await call('GET', `/api/v1/webhooks/${webhookId}/deliveries?limit=100`)).body.data
    .deliveries as Attempt[];

describe('Standard Webhooks headers on real deliveries', () => {
  it('an event, a test and a callback verify with standardwebhooks, the README snippet and octokit', async () => {
    const hooks = await receiver();
    const webhook = await createWebhook(hooks.url);
    await failedScan();
    const [event] = await hooks.waitForRequests(1, 10_000);
    await expectVerified(event, webhook.secret);
    // An event's first delivery: webhook-id is its delivery id; the contract's headers as before.
    expect(header(event, 'webhook-id')).toBe(header(event, 'x-webhook-delivery'));
    expect(header(event, 'webhook-id')).toMatch(/^del-[0-9a-f-]{36}$/);
    const body = JSON.parse(event?.body.toString('utf8') ?? '{}');
    expect(header(event, 'x-webhook-timestamp')).toBe(body.timestamp);

    const tested = await call('POST', `/api/v1/webhooks/${webhook.id}/test`);
    expect(tested.body.data).toMatchObject({ delivered: true, statusCode: 200 });
    const test = hooks.requests.find(
      (request) => header(request, 'x-webhook-event') === 'webhook.test',
    );
    await expectVerified(test, webhook.secret);
    expect(header(test, 'webhook-id')).toBe(header(test, 'x-webhook-delivery'));

    const scan = await createScan(ctx.app, key, {
      target: 'callback.invalid',
      scanType: 'nmap',
      callbackUrl: `${hooks.url}callback`,
    });
    await waitForStatus(ctx.app, key, scan.id, ['failed']);
    const callback = await until(
      () => hooks.requests.find((request) => request.url === '/callback'),
      (found) => found !== undefined,
    );
    await expectVerified(callback, String(scan.callbackSecret));
  }, 30_000);

  it('every retry keeps the body and the contract headers and is signed at its own time', async () => {
    const flaky = await receiver(500);
    let answered = 0;
    flaky.setHandler((_request, res) => {
      answered += 1;
      res.writeHead(answered < 3 ? 500 : 200, { 'content-length': '0' }).end();
    });
    const webhook = await createWebhook(flaky.url);
    await failedScan();
    const attempts = await flaky.waitForRequests(3, 10_000);
    for (const attempt of attempts) {
      await expectVerified(attempt, webhook.secret);
    }
    for (const name of [
      'x-webhook-signature',
      'x-webhook-delivery',
      'x-webhook-timestamp',
      'webhook-id',
    ]) {
      expect(new Set(attempts.map((attempt) => header(attempt, name))).size, name).toBe(1);
    }
    expect(new Set(attempts.map((attempt) => attempt.body.toString('base64'))).size).toBe(1);
  }, 20_000);
});

describe('redelivery', () => {
  it('sends a failed delivery again as a new, logged delivery carrying the first webhook-id', async () => {
    const hooks = await receiver(500);
    const webhook = await createWebhook(hooks.url);
    await failedScan();
    const failed = await hooks.waitForRequests(4, 10_000);
    await ctx.app.composed.dispatcher.drain();
    const original = header(failed[0], 'x-webhook-delivery');
    // An event from an hour ago, as a receiver that was down for that long would miss it: the
    // redelivery carries the event's time in the body and X-Webhook-Timestamp, and its own time
    // in webhook-timestamp, so a Standard Webhooks receiver (5 minutes' tolerance) accepts it.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const oldBody = JSON.parse(failed[0]?.body.toString('utf8') ?? '{}');
    oldBody.timestamp = hourAgo;
    await sql`update webhook_deliveries set body = ${JSON.stringify(oldBody)},
      event_timestamp = ${hourAgo} where id = ${original.slice(4)}`.execute(ctx.database.handle.db);

    hooks.setStatus(200);
    const response = await call(
      'POST',
      `/api/v1/webhooks/${webhook.id}/deliveries/${original}/redeliver`,
    );
    expect(response.status, response.text).toBe(202);
    const queued = response.body.data.delivery;
    expect(queued).toEqual({
      id: expect.stringMatching(/^del-[0-9a-f-]{36}$/),
      event: 'scan.failed',
      status: 'pending',
      redeliveryOf: original,
      messageId: original,
      createdAt: expect.any(String),
      nextAttemptAt: expect.any(String),
    });
    expect(queued.id).not.toBe(original);
    const [, , , , again] = await hooks.waitForRequests(5, 10_000);
    await expectVerified(again, webhook.secret);
    expect(header(again, 'x-webhook-delivery')).toBe(queued.id);
    expect(header(again, 'webhook-id')).toBe(original);
    expect(header(again, 'x-webhook-timestamp')).toBe(hourAgo);
    expect(JSON.parse(again?.body.toString('utf8') ?? '{}')).toEqual(oldBody);

    // Logged like any delivery: its own id, attempt 1, marked as a redelivery of the original.
    await ctx.app.composed.dispatcher.drain();
    const log = await deliveryLog(webhook.id);
    expect(log[0]).toMatchObject({
      id: queued.id,
      attempt: 1,
      success: true,
      redeliveryOf: original,
    });
    expect(log.filter((attempt) => attempt.id === original)).toHaveLength(4);
    expect(log.find((attempt) => attempt.id === original)).not.toHaveProperty('redeliveryOf');
    const state = (await call('GET', `/api/v1/webhooks/${webhook.id}`)).body.data.webhook;
    expect(state).toMatchObject({ consecutiveFailures: 0, isHealthy: true });

    // A delivered delivery may be sent again too; the message keeps the first id.
    const twice = await call(
      'POST',
      `/api/v1/webhooks/${webhook.id}/deliveries/${queued.id}/redeliver`,
    );
    expect(twice.status).toBe(202);
    expect(twice.body.data.delivery).toMatchObject({
      redeliveryOf: queued.id,
      messageId: original,
    });
    const sixth = (await hooks.waitForRequests(6, 10_000))[5];
    expect(header(sixth, 'webhook-id')).toBe(original);
  }, 30_000);

  it('refuses a message still being delivered, a test delivery and a disabled webhook', async () => {
    const hooks = await receiver();
    const webhook = await createWebhook(hooks.url);
    await failedScan();
    const [first] = await hooks.waitForRequests(1, 10_000);
    await ctx.app.composed.dispatcher.drain();
    const original = header(first, 'x-webhook-delivery');
    const path = `/api/v1/webhooks/${webhook.id}/deliveries/${original}/redeliver`;

    // The receiver now holds every request until its deadline: the redelivery stays pending.
    hooks.setHandler(() => {});
    expect((await call('POST', path)).status).toBe(202);
    const busy = await call('POST', path);
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({
      success: false,
      error: 'Delivery cannot be sent again: a delivery of this message is still pending',
      code: 'DELIVERY_NOT_REDELIVERABLE',
    });
    hooks.setStatus(200);

    await call('POST', `/api/v1/webhooks/${webhook.id}/test`);
    const test = hooks.requests.find(
      (request) => header(request, 'x-webhook-event') === 'webhook.test',
    );
    const testId = header(test, 'x-webhook-delivery');
    expect((await deliveryLog(webhook.id)).map((attempt) => attempt.id)).toContain(testId);
    const testAgain = await call(
      'POST',
      `/api/v1/webhooks/${webhook.id}/deliveries/${testId}/redeliver`,
    );
    expect(testAgain.status).toBe(409);
    expect(testAgain.body.code).toBe('DELIVERY_NOT_REDELIVERABLE');

    await call('PATCH', `/api/v1/webhooks/${webhook.id}`, { isActive: false });
    const disabled = await call('POST', path);
    expect(disabled.status).toBe(409);
    expect(disabled.body.code).toBe('WEBHOOK_DISABLED');
    const recover = await call('POST', `/api/v1/webhooks/${webhook.id}/deliveries/recover`, {
      since: new Date(0).toISOString(),
    });
    expect(recover.status).toBe(409);
    expect(recover.body.code).toBe('WEBHOOK_DISABLED');
  }, 30_000);

  it("answers 404 for another tenant's webhook or delivery and unknown or malformed ids, 403 without the scope", async () => {
    const hooks = await receiver();
    const webhook = await createWebhook(hooks.url);
    await failedScan();
    const [first] = await hooks.waitForRequests(1, 10_000);
    const mine = header(first, 'x-webhook-delivery');
    const theirs = await createWebhook(hooks.url, otherKey);
    const sibling = await createWebhook(`${hooks.url}sibling`);
    const webhookNotFound = {
      success: false,
      error: 'Webhook not found',
      code: 'WEBHOOK_NOT_FOUND',
    };
    const deliveryNotFound = {
      success: false,
      error: 'Webhook delivery not found',
      code: 'DELIVERY_NOT_FOUND',
    };
    for (const [apiKey, webhookId, deliveryId, expected] of [
      // Another tenant calling with my webhook, or with its own webhook and my delivery.
      [otherKey, webhook.id, mine, webhookNotFound],
      [otherKey, theirs.id, mine, deliveryNotFound],
      // My delivery under my other webhook; unknown and malformed ids.
      [key, sibling.id, mine, deliveryNotFound],
      [key, webhook.id, `del-${randomUUID()}`, deliveryNotFound],
      [key, webhook.id, mine.slice(4), deliveryNotFound],
      [key, webhook.id, 'del-nope', deliveryNotFound],
      [key, `wh-${randomUUID()}`, mine, webhookNotFound],
      [key, 'wh-nope', mine, webhookNotFound],
    ] as const) {
      const response = await call(
        'POST',
        `/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`,
        undefined,
        apiKey,
      );
      expect(response.status, `${webhookId} ${deliveryId}`).toBe(404);
      expect(response.body).toEqual(expected);
    }
    const recover = await call(
      'POST',
      `/api/v1/webhooks/${webhook.id}/deliveries/recover`,
      { since: new Date(0).toISOString() },
      otherKey,
    );
    expect(recover.body).toEqual(webhookNotFound);

    const readOnly = (
      await createKey(ctx.app, await tokenFor(randomUUID()), {
        scopes: ['webhooks:read', 'webhooks:create'],
      })
    ).rawKey;
    for (const path of [
      `/api/v1/webhooks/${webhook.id}/deliveries/${mine}/redeliver`,
      `/api/v1/webhooks/${webhook.id}/deliveries/recover`,
    ]) {
      const response = await call('POST', path, { since: new Date(0).toISOString() }, readOnly);
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
    }
    // Nothing was queued by any of these calls.
    await ctx.app.composed.dispatcher.drain();
    expect(hooks.requests).toHaveLength(1);
  }, 30_000);
});

describe('recover', () => {
  it('sends again, once, every delivery an outage failed or cancelled since a time', async () => {
    const hooks = await receiver(503);
    const webhook = await createWebhook(hooks.url);
    const since = new Date(Date.now() - 1000).toISOString();
    // Three events to a dead receiver: the 10th failed attempt disables the webhook and cancels
    // the retries left (an attempt already in flight then still goes: 10 to 12 in all).
    for (let i = 0; i < 3; i += 1) {
      await failedScan();
    }
    await until(
      async () => (await call('GET', `/api/v1/webhooks/${webhook.id}`)).body.data.webhook,
      (state) => state.isActive === false,
      15_000,
    );
    await ctx.app.composed.dispatcher.drain();
    const missed = new Set(hooks.requests.map((request) => header(request, 'x-webhook-delivery')));
    expect(missed.size).toBe(3);
    const outage = hooks.requests.length;
    expect(outage).toBeGreaterThanOrEqual(10);
    expect(outage).toBeLessThanOrEqual(12);

    // The receiver is back; the webhook is re-enabled; nothing more comes by itself.
    hooks.setStatus(200);
    await call('PATCH', `/api/v1/webhooks/${webhook.id}`, { isActive: true });
    const path = `/api/v1/webhooks/${webhook.id}/deliveries/recover`;
    const none = await call('POST', path, { since: new Date(Date.now() + 60_000).toISOString() });
    expect(none.status).toBe(202);
    expect(none.body.data).toEqual({ recovered: 0, hasMore: false, deliveries: [] });

    const response = await call('POST', path, { since });
    expect(response.status, response.text).toBe(202);
    expect(response.body.data).toMatchObject({ recovered: 3, hasMore: false });
    const queued = response.body.data.deliveries as Array<{ messageId: string; id: string }>;
    expect(new Set(queued.map((delivery) => delivery.messageId))).toEqual(missed);
    const recovered = (await hooks.waitForRequests(outage + 3, 10_000)).slice(outage);
    for (const request of recovered) {
      await expectVerified(request, webhook.secret);
    }
    expect(new Set(recovered.map((request) => header(request, 'webhook-id')))).toEqual(missed);
    expect(new Set(recovered.map((request) => header(request, 'x-webhook-delivery')))).toEqual(
      new Set(queued.map((delivery) => delivery.id)),
    );

    // Again: every message's newest delivery has been delivered, so nothing is sent twice.
    await ctx.app.composed.dispatcher.drain();
    const again = await call('POST', path, { since });
    expect(again.body.data).toEqual({ recovered: 0, hasMore: false, deliveries: [] });
    await ctx.app.composed.dispatcher.drain();
    expect(hooks.requests).toHaveLength(outage + 3);
  }, 40_000);

  it('takes at most 1000 a call, oldest first, and says when more are left', async () => {
    const hooks = await receiver();
    const webhook = await createWebhook(hooks.url);
    const webhookUuid = webhook.id.slice(3);
    const tenant = await sql<{ tenant_id: string }>`
      select tenant_id from webhooks where id = ${webhookUuid}`.execute(ctx.database.handle.db);
    // 1001 failed deliveries of an old outage, a minute apart in creation order.
    await sql`insert into webhook_deliveries
        (id, tenant_id, kind, webhook_id, event, event_timestamp, body, status, attempts, created_at)
      select gen_random_uuid(), ${tenant.rows[0]?.tenant_id}, 'webhook', ${webhookUuid},
             'scan.failed', '2026-01-01T00:00:00.000Z', '{"n":' || n || '}', 'failed', 4,
             timestamptz '2026-01-01T00:00:00Z' + n * interval '1 minute'
      from generate_series(1, 1001) as n`.execute(ctx.database.handle.db);
    const path = `/api/v1/webhooks/${webhook.id}/deliveries/recover`;
    // Suspend sending for the check: delete the webhook afterwards, its deliveries go with it.
    const first = await call('POST', path, {
      since: '2026-01-01T00:00:00Z',
      until: '2026-02-01T00:00:00Z',
    });
    expect(first.status).toBe(202);
    expect(first.body.data).toMatchObject({ recovered: 1000, hasMore: true });
    const second = await call('POST', path, {
      since: '2026-01-01T00:00:00Z',
      until: '2026-02-01T00:00:00Z',
    });
    expect(second.body.data).toMatchObject({ recovered: 1, hasMore: false });
    const last = await sql<{ body: string }>`
      select body from webhook_deliveries where id = ${second.body.data.deliveries[0].redeliveryOf.slice(4)}`.execute(
      ctx.database.handle.db,
    );
    expect(last.rows[0]?.body).toBe('{"n":1001}');
    expect((await call('DELETE', `/api/v1/webhooks/${webhook.id}`)).status).toBe(200);
  }, 30_000);

  it.each([
    [{}, 'MISSING_REQUIRED_FIELD', 'Missing required field: since'],
    [{ since: 'yesterday' }, 'INVALID_FIELD_VALUE', null],
    [{ since: '2026-11-26' }, 'INVALID_FIELD_VALUE', null],
    [{ since: '2026-11-26T10:00:00' }, 'INVALID_FIELD_VALUE', null],
    [{ since: 1700000000 }, 'INVALID_FIELD_TYPE', null],
    [
      { since: '2026-11-26T10:00:00Z', until: '2026-11-26T09:00:00Z' },
      'INVALID_FIELD_VALUE',
      'Invalid value for field until: must be after since',
    ],
  ])('refuses %j with 400 %s', async (body, code, message) => {
    const hooks = await receiver();
    const webhook = await createWebhook(hooks.url);
    const response = await call('POST', `/api/v1/webhooks/${webhook.id}/deliveries/recover`, body);
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe(code);
    if (message !== null) {
      expect(response.body.error).toBe(message);
    }
  });
});
