/**
 * Webhook filters and open issues in usage (issue 23, "notifications for what is new"), over real
 * HTTP with a real HTTPS receiver: rescans of one target whose findings the named instant engine
 * double returns (test/doubles/engines.ts; real scanners' rescans are covered elsewhere). A webhook
 * filtered on `minSeverity: high, onlyNew` gets a scan.completed only for the scans that open or
 * reopen an untriaged high issue, with the counts in its body; one with `onlyNew: false` for every
 * scan that sees an untriaged high issue; a webhook without filters and the scan's callbackUrl get
 * the contract's body for every scan. "No delivery" is asserted once the dispatcher has drained.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../examples/verify-webhook-signature.js';
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import { createAjv } from '../../src/domain/validation/ajv.js';
import { draftFinding, heldEngine, instantEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';
import { type HttpsReceiver, type ReceivedRequest, startHttpsReceiver } from '../support/tls.js';

/** The findings each scan returns, by the scan's name (a sentinel child's: by its target). */
const plan = new Map<string, DraftFinding[]>();
const nmap = instantEngine(
  (request) => plan.get(request.scan.name) ?? plan.get(request.scan.target) ?? [],
);
const nuclei = heldEngine();

const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '4',
    ALLOW_PRIVATE_TARGETS: 'true',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '0,100,100,100',
    WEBHOOK_TIMEOUT_MS: '5000',
    WORKER_SHUTDOWN_GRACE_MS: '100',
  },
  {
    engineRunners: new Map([
      ['nmap', nmap],
      ['nuclei', nuclei.engine],
    ]),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);

const TARGET = '10.0.0.21';
const CONTRACT_DATA = [
  'scanId',
  'scanType',
  'name',
  'target',
  'status',
  'progress',
  'resultCount',
  'durationMs',
  'createdAt',
  'completedAt',
];

function port(portNumber: number, severity: DraftFinding['severity'], host = TARGET): DraftFinding {
  return draftFinding({
    title: `Port ${portNumber}/tcp`,
    severity,
    location: { host, port: portNumber, protocol: 'tcp', url: null },
    raw: { portid: String(portNumber), service: { name: `svc${portNumber}` } },
  });
}
const HIGH = port(443, 'high');
const INFO = port(22, 'info');
const LOW = port(8080, 'low');

let key = '';
let receiver: HttpsReceiver;
const hooks: Record<'filtered' | 'anyHigh' | 'plain', { id: string; secret: string }> = {
  filtered: { id: '', secret: '' },
  anyHigh: { id: '', secret: '' },
  plain: { id: '', secret: '' },
};
// biome-ignore lint/suspicious/noExplicitAny: the served document is read field by field.
let openapi: any;

const call = (method: string, path: string, json?: unknown) =>
  ctx.app.request(path, {
    method,
    headers: { 'x-api-key': key },
    ...(json === undefined ? {} : { json }),
  });

beforeAll(async () => {
  key = (
    await createKey(ctx.app, await tokenFor(randomUUID()), {
      rateLimitPerMinute: 1000,
      rateLimitPerHour: 50_000,
    })
  ).rawKey;
  receiver = await startHttpsReceiver();
  openapi = (await ctx.app.request('/api/v1/openapi.json')).body;
});

afterAll(async () => {
  await receiver.close();
});

/** Requests the receiver got at `path`, as text bodies. */
const at = (path: string): ReceivedRequest[] =>
  receiver.requests.filter((request) => request.url === `/${path}`);

/** Runs a scan of TARGET returning `findings`, waits for its end and for every delivery. */
async function rescan(name: string, findings: DraftFinding[], callback = false) {
  plan.set(name, findings);
  const { id } = await createScan(ctx.app, key, {
    target: TARGET,
    scanType: 'nmap',
    name,
    ...(callback ? { callbackUrl: `${receiver.url}callback` } : {}),
  });
  await waitForStatus(ctx.app, key, id, ['completed']);
  await ctx.app.composed.dispatcher.drain();
  return id;
}

function bodyOf(request: ReceivedRequest) {
  return JSON.parse(request.body.toString('utf8'));
}

/** The one delivery of `scanId` at `path`, or undefined; fails on two. */
function deliveryOf(path: string, scanId: string, event = 'scan.completed') {
  const found = at(path).filter(
    (request) =>
      request.headers['x-webhook-event'] === event && bodyOf(request).data.scanId === scanId,
  );
  expect(found.length, `${path} ${event} of ${scanId}`).toBeLessThanOrEqual(1);
  return found[0];
}

const validates = (event: string, body: unknown) => {
  const ajv = createAjv({ coerceTypes: false, useDefaults: false });
  const validate = ajv.compile(
    openapi.webhooks[event].post.requestBody.content['application/json'].schema,
  );
  return validate(body) ? 'valid' : JSON.stringify(validate.errors);
};

/** Checks a contract body: exactly the contract's fields, no `findings`. */
function expectContractBody(request: ReceivedRequest | undefined, scanId: string) {
  expect(request, `contract delivery of ${scanId}`).toBeDefined();
  const body = bodyOf(request as ReceivedRequest);
  expect(Object.keys(body)).toEqual(['event', 'timestamp', 'tenantId', 'data']);
  expect(Object.keys(body.data)).toEqual(CONTRACT_DATA);
  expect(body.data).toMatchObject({ scanId, status: 'completed' });
  expect(validates('scan.completed', body)).toBe('valid');
}

/**
 * Checks a filtered delivery: its bytes are the contract body's with `findings` added to `data`,
 * both signatures verify, and the served document describes it.
 */
function expectFilteredBody(
  request: ReceivedRequest | undefined,
  contract: ReceivedRequest | undefined,
  secret: string,
  findings: Record<string, unknown>,
) {
  expect(request).toBeDefined();
  const sent = (request as ReceivedRequest).body.toString('utf8');
  const plain = (contract as ReceivedRequest).body.toString('utf8');
  expect(sent).toBe(`${plain.slice(0, -2)},"findings":${JSON.stringify(findings)}}}`);
  const headers = (request as ReceivedRequest).headers;
  expect(
    verifyWebhookSignature(
      (request as ReceivedRequest).body,
      String(headers['x-webhook-signature']),
      secret,
    ),
  ).toBe(true);
  expect(() => new Webhook(secret).verify(sent, headers as Record<string, string>)).not.toThrow();
  expect(validates('scan.completed', JSON.parse(sent))).toBe('valid');
}

const counts = (patch: Record<string, number>) => ({
  critical: 0,
  high: 0,
  medium: 0,
  low: 0,
  info: 0,
  ...patch,
});

describe('webhook filters', () => {
  it('are validated, shown with their defaults, and cleared with null', async () => {
    const url = `${receiver.url}crud`;
    for (const [filters, code] of [
      [{ minSeverity: 'severe' }, 'INVALID_FIELD_VALUE'],
      [{ minSeverity: 'HIGH' }, 'INVALID_FIELD_VALUE'],
      [{ onlyNew: 'yes' }, 'INVALID_FIELD_TYPE'],
      [{ minSeverity: 'high', extra: 1 }, 'INVALID_FIELD_VALUE'],
      ['high', 'INVALID_FIELD_TYPE'],
      [['high'], 'INVALID_FIELD_TYPE'],
    ] as const) {
      const response = await call('POST', '/api/v1/webhooks', { name: 'x', url, filters });
      expect(response.status, JSON.stringify(filters)).toBe(400);
      expect(response.body.code, JSON.stringify(filters)).toBe(code);
      expect(response.body.error).toContain('filters');
    }
    const plain = await call('POST', '/api/v1/webhooks', { name: 'plain', url });
    expect(plain.body.data.webhook.filters).toBeNull();
    const created = await call('POST', '/api/v1/webhooks', { name: 'f', url, filters: {} });
    expect(created.status).toBe(201);
    const { id } = created.body.data.webhook;
    expect(created.body.data.webhook.filters).toEqual({ minSeverity: 'info', onlyNew: true });
    const patched = await call('PATCH', `/api/v1/webhooks/${id}`, {
      filters: { minSeverity: 'critical', onlyNew: false },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.webhook.filters).toEqual({ minSeverity: 'critical', onlyNew: false });
    expect((await call('GET', `/api/v1/webhooks/${id}`)).body.data.webhook.filters).toEqual({
      minSeverity: 'critical',
      onlyNew: false,
    });
    const bad = await call('PATCH', `/api/v1/webhooks/${id}`, { filters: { onlyNew: 1 } });
    expect(bad.body.code).toBe('INVALID_FIELD_TYPE');
    // Other fields leave the filters alone; null removes them.
    await call('PATCH', `/api/v1/webhooks/${id}`, { name: 'f2' });
    const listed = await call('GET', '/api/v1/webhooks');
    const shown = listed.body.data.webhooks.find((hook: { id: string }) => hook.id === id);
    expect(shown.filters).toEqual({ minSeverity: 'critical', onlyNew: false });
    const cleared = await call('PATCH', `/api/v1/webhooks/${id}`, { filters: null });
    expect(cleared.body.data.webhook.filters).toBeNull();
    for (const hook of [id, plain.body.data.webhook.id]) {
      expect((await call('DELETE', `/api/v1/webhooks/${hook}`)).status).toBe(200);
    }
  });

  it('send scan.completed only for new or reopened untriaged findings at or above minSeverity', async () => {
    for (const [name, body] of [
      ['filtered', { filters: { minSeverity: 'high', onlyNew: true } }],
      ['anyHigh', { filters: { minSeverity: 'high', onlyNew: false } }],
      ['plain', {}],
    ] as const) {
      const response = await call('POST', '/api/v1/webhooks', {
        name,
        url: `${receiver.url}${name}`,
        ...body,
      });
      expect(response.status, response.text).toBe(201);
      hooks[name] = response.body.data.webhook;
    }
    const usage = async () => (await call('GET', '/api/v1/usage')).body.data.issues;
    expect(await usage()).toEqual({ open: 0, openBySeverity: counts({}) });

    // 1: a high and an info issue, both new.
    const first = await rescan('first', [HIGH, INFO], true);
    expectContractBody(deliveryOf('plain', first), first);
    expectContractBody(deliveryOf('callback', first), first);
    expectFilteredBody(
      deliveryOf('filtered', first),
      deliveryOf('plain', first),
      hooks.filtered.secret,
      {
        new: 2,
        reopened: 0,
        fixed: 0,
        bySeverity: counts({ high: 1, info: 1 }),
      },
    );
    expectFilteredBody(
      deliveryOf('anyHigh', first),
      deliveryOf('plain', first),
      hooks.anyHigh.secret,
      {
        new: 2,
        reopened: 0,
        fixed: 0,
        bySeverity: counts({ high: 1, info: 1 }),
      },
    );
    expect(await usage()).toEqual({ open: 2, openBySeverity: counts({ high: 1, info: 1 }) });

    // 2: the same plus a new low one: nothing new at or above high.
    const second = await rescan('second', [HIGH, INFO, LOW]);
    expectContractBody(deliveryOf('plain', second), second);
    expect(deliveryOf('filtered', second)).toBeUndefined();
    // onlyNew false: the high issue is still open and untriaged.
    expectFilteredBody(
      deliveryOf('anyHigh', second),
      deliveryOf('plain', second),
      hooks.anyHigh.secret,
      {
        new: 1,
        reopened: 0,
        fixed: 0,
        bySeverity: counts({ low: 1 }),
      },
    );

    // 3: the high and low ones are gone (fixed): nothing for either filtered webhook.
    const third = await rescan('third', [INFO]);
    expectContractBody(deliveryOf('plain', third), third);
    expect(deliveryOf('filtered', third)).toBeUndefined();
    expect(deliveryOf('anyHigh', third)).toBeUndefined();
    expect(await usage()).toEqual({ open: 1, openBySeverity: counts({ info: 1 }) });

    // 4: the high one is back: reopened.
    const fourth = await rescan('fourth', [HIGH, INFO]);
    const reopened = { new: 0, reopened: 1, fixed: 0, bySeverity: counts({ high: 1 }) };
    expectFilteredBody(
      deliveryOf('filtered', fourth),
      deliveryOf('plain', fourth),
      hooks.filtered.secret,
      reopened,
    );
    expectFilteredBody(
      deliveryOf('anyHigh', fourth),
      deliveryOf('plain', fourth),
      hooks.anyHigh.secret,
      reopened,
    );
    expect(await usage()).toEqual({ open: 2, openBySeverity: counts({ high: 1, info: 1 }) });

    // A false positive: its return is no news, and it no longer counts as open in usage.
    const listed = await call('GET', `/api/v1/issues?target=${TARGET}&severity=high`);
    expect(listed.body.data.issues).toHaveLength(1);
    const triaged = await call('PATCH', `/api/v1/issues/${listed.body.data.issues[0].id}`, {
      triage: 'false_positive',
    });
    expect(triaged.status, triaged.text).toBe(200);
    expect(await usage()).toEqual({ open: 1, openBySeverity: counts({ info: 1 }) });
    const fifth = await rescan('fifth', [INFO]);
    const sixth = await rescan('sixth', [HIGH, INFO]);
    for (const scanId of [fifth, sixth]) {
      expectContractBody(deliveryOf('plain', scanId), scanId);
      expect(deliveryOf('filtered', scanId)).toBeUndefined();
      expect(deliveryOf('anyHigh', scanId)).toBeUndefined();
    }
    expect(await usage()).toEqual({ open: 1, openBySeverity: counts({ info: 1 }) });

    // In all: the filtered webhook got exactly the first and fourth scans' completions.
    expect(at('filtered').map((request) => bodyOf(request).data.scanId)).toEqual([first, fourth]);
    expect(at('anyHigh').map((request) => bodyOf(request).data.scanId)).toEqual([
      first,
      second,
      fourth,
    ]);
    expect(at('plain')).toHaveLength(6);
  });

  it('gate scan.completed only: other events reach a filtered webhook with the contract body', async () => {
    const before = at('filtered').length;
    const { id } = await createScan(ctx.app, key, { target: TARGET, scanType: 'nuclei' });
    await nuclei.waitFor(id);
    nuclei.release(id, { ending: 'engine-error', message: 'boom', findings: [] });
    await waitForStatus(ctx.app, key, id, ['failed']);
    await ctx.app.composed.dispatcher.drain();
    const failed = deliveryOf('filtered', id, 'scan.failed');
    expect(failed).toBeDefined();
    expect(failed?.body.toString('utf8')).toBe(
      deliveryOf('plain', id, 'scan.failed')?.body.toString('utf8'),
    );
    const body = bodyOf(failed as ReceivedRequest);
    expect(Object.keys(body.data)).toEqual([...CONTRACT_DATA, 'error']);
    expect(at('filtered')).toHaveLength(before + 1);
  });

  it('count a sentinel scan once, through its correlated findings', async () => {
    const target = '10.0.0.22';
    plan.set(target, [port(443, 'critical', target), port(22, 'info', target)]);
    const { id } = await createScan(ctx.app, key, {
      target,
      scanType: 'sentinel',
      options: { depth: 'quick', engines: ['nmap'] },
    });
    await waitForStatus(ctx.app, key, id, ['completed']);
    await ctx.app.composed.dispatcher.drain();
    expectContractBody(deliveryOf('plain', id), id);
    expectFilteredBody(deliveryOf('filtered', id), deliveryOf('plain', id), hooks.filtered.secret, {
      new: 2,
      reopened: 0,
      fixed: 0,
      bySeverity: counts({ critical: 1, info: 1 }),
    });
    // Its child scan sends nothing of its own.
    const children = at('plain').filter((request) => bodyOf(request).data.target === target);
    expect(children.map((request) => bodyOf(request).data.scanId)).toEqual([id]);
  });
});
