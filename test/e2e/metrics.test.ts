/**
 * GET /metrics of an API process, scraped over real HTTP and parsed with a strict Prometheus
 * text-format parser (test/support/prometheus-text.ts): each metric moves when its event happens.
 * Scans run in the app's own worker on the held test engine (test/doubles), webhooks go to a real
 * HTTPS receiver on 127.0.0.1, limits are met through the API. The worker process's listener is
 * covered by worker-health.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFinding, heldEngine } from '../doubles/engines.js';
import { BACKEND } from '../support/database.js';
import {
  bearer,
  createKey,
  SCAN_ADDRESS,
  startApp,
  type TestApp,
  tokenFor,
  useTestApp,
  withinOneMinuteWindow,
} from '../support/harness.js';
import { type MetricFamily, parsePrometheusText, sampleValue } from '../support/prometheus-text.js';
import { createScan, waitForStatus } from '../support/scans.js';
import { answerWith, type HttpsReceiver, startHttpsReceiver } from '../support/tls.js';
import { until } from '../support/until.js';

const engine = heldEngine();
const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '1',
    WORKER_LEASE_MS: '1000',
    ALLOW_PRIVATE_TARGETS: 'true',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '0,0,0,0',
    WEBHOOK_TIMEOUT_MS: '10000',
    WORKER_SHUTDOWN_GRACE_MS: '100',
  },
  { engineRunners: new Map([['nmap', engine.engine]]) },
);

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

let tenantId = '';
let key = '';
let receiver: HttpsReceiver;
/** Opened to let the receiver answer the requests to /hold. */
let openHold: () => void = () => undefined;

type Families = Map<string, MetricFamily>;

async function scrape(app: TestApp = ctx.app, init: RequestInit = {}): Promise<Families> {
  const response = await fetch(`${app.url}/metrics`, init);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(text);
}

/** Scrapes until `check` holds (the queue gauges are read from the database every few seconds). */
const scrapeUntil = (check: (families: Families) => boolean, app: TestApp = ctx.app) =>
  until(() => scrape(app), check, 20_000, 200);

const value = sampleValue;
const sampleCount = (families: Families, name: string) => families.get(name)?.samples.length ?? 0;

beforeAll(async () => {
  tenantId = randomUUID();
  key = (
    await createKey(ctx.app, await tokenFor(tenantId), {
      rateLimitPerMinute: 1000,
      rateLimitPerHour: 50_000,
    })
  ).rawKey;
  const hold = new Promise<void>((resolve) => {
    openHold = resolve;
  });
  receiver = await startHttpsReceiver(async (request, res, req) => {
    if (request.url === '/fail') {
      await answerWith(500)(request, res, req);
      return;
    }
    if (request.url === '/hold') {
      await hold;
    }
    await answerWith(200)(request, res, req);
  });
  for (const [name, path, events] of [
    ['ok', 'ok', ['scan.completed']],
    ['failing', 'fail', ['scan.started', 'scan.completed', 'scan.cancelled']],
    ['slow', 'hold', ['scan.cancelled']],
  ] as const) {
    const response = await ctx.app.request('/api/v1/webhooks', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { name, url: `${receiver.url}${path}`, events },
    });
    expect(response.status, response.text).toBe(201);
  }
});

afterAll(async () => {
  openHold();
  await receiver.close();
});

describe('GET /metrics of an API process', () => {
  it('follows the naming rules and says which version runs', async () => {
    const families = await scrape();
    expect(
      value(families, 'rampart_build_info', { version: VERSION, node_version: process.version }),
    ).toBe(1);
    for (const family of families.values()) {
      expect(family.name).toMatch(/^rampart_[a-z0-9_]+$/);
      expect(family.help, family.name).not.toBeNull();
      if (family.type === 'counter') {
        expect(family.name).toMatch(/_total$/);
      }
      for (const sample of family.samples) {
        expect(Object.keys(sample.labels).some((label) => /tenant/i.test(label))).toBe(false);
      }
    }
    // Process figures of the same registry, under the same prefix and in base units.
    expect(value(families, 'rampart_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts scans created, started, finished and cancelled, and shows the queue', async () => {
    const before = await scrape();
    const first = await createScan(ctx.app, key, {
      scanType: 'nmap',
      target: SCAN_ADDRESS,
      priority: 'high',
    });
    await engine.waitFor(first.id);
    const second = await createScan(ctx.app, key, { scanType: 'nmap', target: SCAN_ADDRESS });
    const queue = await scrapeUntil(
      (families) =>
        value(families, 'rampart_scans_running', { engine: 'nmap', priority: 'high' }) === 1 &&
        value(families, 'rampart_scans_queued', { engine: 'nmap', priority: 'normal' }) === 1,
    );
    expect(value(queue, 'rampart_queue_metrics_reporter')).toBe(1);
    expect(value(queue, 'rampart_workers_live', { engine: 'nmap' })).toBe(1);
    expect(
      value(queue, 'rampart_scans_oldest_queued_age_seconds', {
        engine: 'nmap',
        priority: 'normal',
      }),
    ).toBeGreaterThanOrEqual(0);
    const created = (families: Families, priority: string) =>
      value(families, 'rampart_scans_created_total', { engine: 'nmap', priority });
    expect(created(queue, 'high') - created(before, 'high')).toBe(1);
    expect(created(queue, 'normal') - created(before, 'normal')).toBe(1);
    const waits = (families: Families) =>
      value(families, 'rampart_scan_queue_wait_seconds_count', {
        engine: 'nmap',
        priority: 'high',
      });
    expect(waits(queue) - waits(before)).toBe(1);

    engine.release(first.id, {
      findings: [draftFinding(), draftFinding({ ruleId: 'x', severity: 'high' })],
    });
    await waitForStatus(ctx.app, key, first.id, ['completed']);
    await engine.waitFor(second.id);
    const cancel = await ctx.app.request(`/api/v1/scans/${second.id}/cancel`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });
    expect(cancel.status, cancel.text).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      value(after, name, labels) - value(before, name, labels);
    expect(
      delta('rampart_scans_finished_total', {
        engine: 'nmap',
        priority: 'high',
        outcome: 'completed',
      }),
    ).toBe(1);
    expect(
      delta('rampart_scans_finished_total', {
        engine: 'nmap',
        priority: 'normal',
        outcome: 'cancelled',
      }),
    ).toBe(1);
    expect(
      delta('rampart_scan_duration_seconds_count', { engine: 'nmap', outcome: 'completed' }),
    ).toBe(1);
    expect(delta('rampart_findings_total', { engine: 'nmap', severity: 'info' })).toBe(1);
    expect(delta('rampart_findings_total', { engine: 'nmap', severity: 'high' })).toBe(1);
    const drained = await scrapeUntil(
      (families) =>
        value(families, 'rampart_scans_running') === 0 &&
        value(families, 'rampart_scans_queued') === 0,
    );
    expect(drained.get('rampart_scans_oldest_queued_age_seconds')?.samples).toEqual([]);
  });

  it('counts a scan taken back from a worker that stopped answering, then failed WORKER_LOST', async () => {
    const before = await scrape();
    const scan = await createScan(ctx.app, key, { scanType: 'nmap', target: SCAN_ADDRESS });
    await engine.waitFor(scan.id);
    // Its lease now looks like a lost worker's: housekeeping puts it back in the queue once, and
    // fails it with WORKER_LOST the second time.
    const loseItsWorker = () =>
      sql`update scans set lease_owner = 'lost-worker', lease_expires_at = now() - interval '1 hour'
        where id = ${scan.id}`.execute(ctx.database.handle.db);
    const reclaimed = (families: Families, result: string) =>
      value(families, 'rampart_scans_reclaimed_total', { result }) -
      value(before, 'rampart_scans_reclaimed_total', { result });
    await loseItsWorker();
    const requeued = await scrapeUntil((families) => reclaimed(families, 'requeued') > 0);
    expect(reclaimed(requeued, 'requeued')).toBe(1);
    expect(reclaimed(requeued, 'failed')).toBe(0);
    // The next claim runs it again (its second attempt).
    await until(
      async () =>
        (
          await sql<{ attempts: number; status: string; lease_owner: string | null }>`
            select attempts, status, lease_owner from scans where id = ${scan.id}`.execute(
            ctx.database.handle.db,
          )
        ).rows[0],
      (row) => row?.attempts === 2 && row.status === 'running' && row.lease_owner !== 'lost-worker',
    );
    await loseItsWorker();
    const failed = await scrapeUntil((families) => reclaimed(families, 'failed') > 0);
    expect(reclaimed(failed, 'failed')).toBe(1);
    expect(reclaimed(failed, 'requeued')).toBe(1);
    const ended = await waitForStatus(ctx.app, key, scan.id, ['failed']);
    expect(ended.error.code).toBe('WORKER_LOST');
    const finished = (families: Families) =>
      value(families, 'rampart_scans_finished_total', {
        engine: 'nmap',
        priority: 'normal',
        outcome: 'failed',
      });
    expect(finished(failed) - finished(before)).toBe(1);
  });

  it('counts webhook attempts, ended deliveries, pending ones and a disabled webhook', async () => {
    // The events of the scans above went to three webhooks: /ok answers 200, /fail 500 (4
    // attempts a delivery: its 10th failed attempt disables it), /hold only once opened.
    await scrapeUntil(
      (families) => value(families, 'rampart_webhook_deliveries_pending', { kind: 'webhook' }) >= 1,
    );
    openHold();
    await ctx.app.composed.dispatcher.drain();
    const after = await scrapeUntil(
      (families) =>
        value(families, 'rampart_webhook_deliveries_pending', { kind: 'webhook' }) === 0 &&
        value(families, 'rampart_webhooks_disabled_total') === 1,
    );
    expect(
      value(after, 'rampart_webhook_deliveries_total', {
        event: 'scan.completed',
        outcome: 'delivered',
      }),
    ).toBe(1);
    expect(
      value(after, 'rampart_webhook_deliveries_total', {
        event: 'scan.cancelled',
        outcome: 'delivered',
      }),
    ).toBe(1);
    // Every delivery that ended is counted once, with the state the database holds.
    const ended = await sql<{ status: string; event: string; deliveries: number }>`
      select status, event, count(*)::integer as deliveries from webhook_deliveries
      where status <> 'pending' group by status, event`.execute(ctx.database.handle.db);
    expect(ended.rows.length).toBeGreaterThan(2);
    for (const row of ended.rows) {
      expect(
        value(after, 'rampart_webhook_deliveries_total', { event: row.event, outcome: row.status }),
        `${row.event} ${row.status}`,
      ).toBe(row.deliveries);
    }
    expect(sampleCount(after, 'rampart_webhook_deliveries_total')).toBe(ended.rows.length);
    expect(
      value(after, 'rampart_webhook_deliveries_total', { outcome: 'cancelled' }),
    ).toBeGreaterThanOrEqual(1);
    // Attempts already in flight when the 10th failed end as failures too.
    expect(
      value(after, 'rampart_webhook_attempt_duration_seconds_count', { outcome: 'failure' }),
    ).toBeGreaterThanOrEqual(10);
    expect(
      value(after, 'rampart_webhook_attempt_duration_seconds_count', { outcome: 'success' }),
      'one successful attempt per delivered delivery',
    ).toBe(value(after, 'rampart_webhook_deliveries_total', { outcome: 'delivered' }));
    expect(
      value(after, 'rampart_webhook_attempt_duration_seconds_sum', { outcome: 'success' }),
    ).toBeGreaterThan(0);
  });

  it('counts rate-limit and quota refusals', async () => {
    const token = await tokenFor(randomUUID());
    const limited = await createKey(ctx.app, token, { rateLimitPerMinute: 1 });
    const before = await scrape();
    await withinOneMinuteWindow();
    const answers = [];
    for (let i = 0; i < 2; i += 1) {
      answers.push(
        (await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': limited.rawKey } }))
          .status,
      );
    }
    expect(answers).toEqual([200, 429]);

    const quotaTenant = randomUUID();
    const quotaKey = await createKey(ctx.app, await tokenFor(quotaTenant));
    const admin = await tokenFor(randomUUID(), { admin: true });
    const set = await ctx.app.request(`/api/v1/admin/tenants/${quotaTenant}/quota`, {
      method: 'PUT',
      headers: bearer(admin),
      json: { monthlyScanQuota: 0 },
    });
    expect(set.status, set.text).toBe(200);
    const refused = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': quotaKey.rawKey },
      json: { scanType: 'nmap', target: SCAN_ADDRESS },
    });
    expect(refused.body?.code).toBe('QUOTA_EXCEEDED');

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta('rampart_rate_limit_rejections_total', { limit: 'api_key' })).toBe(1);
    expect(delta('rampart_rate_limit_rejections_total', { limit: 'tenant_token' })).toBe(0);
    expect(delta('rampart_quota_rejections_total')).toBe(1);
    expect(
      delta('rampart_scans_created_total', { engine: 'nmap' }),
      'a refused scan is not created',
    ).toBe(0);
  });

  it('labels requests with the route pattern, never the raw path', async () => {
    const before = await scrape();
    const id = randomUUID();
    expect((await ctx.app.request('/no/such/route')).status).toBe(404);
    expect(
      (await ctx.app.request(`/api/v1/scans/${id}`, { headers: { 'x-api-key': key } })).status,
    ).toBe(404);
    const response = await fetch(`${ctx.app.url}/metrics`);
    const text = await response.text();
    expect(text).not.toContain(id);
    expect(text).not.toContain('/no/such/route');
    const after = parsePrometheusText(text);
    const count = (families: Families, labels: Record<string, string>) =>
      value(families, 'rampart_http_request_duration_seconds_count', labels);
    for (const labels of [
      { method: 'GET', route: 'unmatched', status: '404' },
      { method: 'GET', route: '/api/v1/scans/:scanId', status: '404' },
    ]) {
      expect(count(after, labels) - count(before, labels), JSON.stringify(labels)).toBe(1);
    }
  });

  it("counts a sentinel scan's end under its own engine, its children under theirs", async () => {
    const before = await scrape();
    const parent = await createScan(ctx.app, key, {
      scanType: 'sentinel',
      target: SCAN_ADDRESS,
      options: { depth: 'quick' },
    });
    const listed = await ctx.app.request(`/api/v1/scans?parentScanId=${parent.id}`, {
      headers: { 'x-api-key': key },
    });
    const children: Array<{ id: string; scanType: string }> = listed.body.data.scans;
    expect(children.map((child) => child.scanType)).toEqual(['nmap']);
    const [child] = children;
    if (child === undefined) {
      throw new Error('the sentinel scan has no child');
    }
    await engine.waitFor(child.id);
    engine.release(child.id, { findings: [draftFinding()] });
    await waitForStatus(ctx.app, key, parent.id, ['completed']);
    const after = await scrape();
    const finished = (families: Families, scanEngine: string) =>
      value(families, 'rampart_scans_finished_total', {
        engine: scanEngine,
        priority: 'normal',
        outcome: 'completed',
      });
    expect(finished(after, 'sentinel') - finished(before, 'sentinel')).toBe(1);
    expect(finished(after, 'nmap') - finished(before, 'nmap')).toBe(1);
  });

  it("counts the running scans a tenant's suspension fails", async () => {
    const suspendedTenant = randomUUID();
    const suspendedKey = (await createKey(ctx.app, await tokenFor(suspendedTenant))).rawKey;
    const before = await scrape();
    const scan = await createScan(ctx.app, suspendedKey, {
      scanType: 'nmap',
      target: SCAN_ADDRESS,
      priority: 'low',
    });
    await engine.waitFor(scan.id);
    const admin = await tokenFor(randomUUID(), { admin: true, subject: 'root' });
    const suspend = await ctx.app.request(`/api/v1/admin/tenants/${suspendedTenant}/suspend`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(suspend.status, suspend.text).toBe(200);
    // The worker's run ends on the cancel notification and stores what it has; it counts nothing.
    await until(
      async () => engine.held.has(scan.id),
      (stillHeld) => !stillHeld,
    );
    const after = await scrapeUntil((families) => value(families, 'rampart_scans_running') === 0);
    const failed = (families: Families) =>
      value(families, 'rampart_scans_finished_total', {
        engine: 'nmap',
        priority: 'low',
        outcome: 'failed',
      });
    expect(failed(after) - failed(before)).toBe(1);
  });
});

describe('METRICS_TOKEN, and one reporter of the queue gauges', () => {
  let guarded: TestApp;

  beforeAll(async () => {
    guarded = await startApp(
      ctx.database.connectAgain(),
      { METRICS_TOKEN },
      { engineRunners: new Map([['nmap', engine.engine]]) },
    );
  });

  afterAll(async () => {
    await guarded?.close();
  });

  it('answers 401 without the token or with another, 200 with it', async () => {
    const missing = await guarded.request('/metrics');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      success: false,
      error: 'Missing bearer token: send Authorization: Bearer <METRICS_TOKEN>',
      code: 'MISSING_AUTH_TOKEN',
    });
    const wrong = await guarded.request('/metrics', {
      headers: bearer(`${METRICS_TOKEN.slice(0, -1)}x`),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_AUTH_TOKEN');
    expect(wrong.text).not.toContain(METRICS_TOKEN);
    const families = await scrape(guarded, { headers: bearer(METRICS_TOKEN) });
    expect(value(families, 'rampart_build_info')).toBe(1);
  });

  it.runIf(BACKEND === 'postgres')(
    'reports the queue gauges from one process of a PostgreSQL database',
    async () => {
      // The first app took the lock at its first scrape and keeps it while it runs.
      expect(value(await scrape(), 'rampart_queue_metrics_reporter')).toBe(1);
      const other = await scrape(guarded, { headers: bearer(METRICS_TOKEN) });
      expect(value(other, 'rampart_queue_metrics_reporter')).toBe(0);
      expect(other.get('rampart_workers_live')?.samples).toEqual([]);
      expect(other.get('rampart_webhook_deliveries_pending')?.samples).toEqual([]);
    },
  );
});
