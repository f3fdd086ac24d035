/**
 * Retention (issue 25): old scan events, ended deliveries with their attempts, and ended scans'
 * findings are deleted in batches by the one process holding the retention lock, newer rows stay,
 * the endpoints that read them still answer, and `rampart_retention_deleted_rows_total` counts
 * them. Scans run in the app's worker on the instant test engine; webhooks go to a real HTTPS
 * receiver. "Old" rows are made by moving their timestamps back in the database. The timer's
 * interval is a day, so only the test's runOnce() rounds run.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/adapters/db/connect.js';
import { pruneFindings, pruneScanEvents } from '../../src/adapters/db/retention.repository.js';
import {
  NO_METRICS,
  RETENTION_TABLES,
  type RetentionTable,
} from '../../src/use-cases/ports/metrics.js';
import { createOutageLog } from '../../src/workers/outage-log.js';
import { type Retention, startRetention } from '../../src/workers/retention.js';
import { draftFinding, instantEngine } from '../doubles/engines.js';
import { BACKEND } from '../support/database.js';
import { createKey, SCAN_ADDRESS, tokenFor, useTestApp } from '../support/harness.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';
import { createScan, waitForStatus } from '../support/scans.js';
import { type HttpsReceiver, startHttpsReceiver } from '../support/tls.js';
import { until } from '../support/until.js';

const FINDINGS_PER_SCAN = 3;
const engine = instantEngine(() =>
  [22, 80, 443].map((port) =>
    draftFinding({
      ruleId: `open-port-${port}`,
      title: `Open port ${port}/tcp`,
      location: { host: SCAN_ADDRESS, port, protocol: 'tcp', url: null },
    }),
  ),
);
const RETENTION = {
  RETENTION_EVENTS_DAYS: '2',
  RETENTION_DELIVERIES_DAYS: '2',
  RETENTION_FINDINGS_DAYS: '2',
  RETENTION_BATCH_SIZE: '2',
  RETENTION_INTERVAL_MS: '86400000',
};
const ctx = useTestApp(
  {
    WORKERS: '1',
    ALLOW_PRIVATE_TARGETS: 'true',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '0,0,0,0',
    ...RETENTION,
  },
  { engineRunners: new Map([['nmap', engine]]) },
);

let key = '';
let webhookId = '';
let receiver: HttpsReceiver;
/** Scans whose rows are moved three days back (older than the 2 days kept). */
const oldScans: string[] = [];
/** A scan of now: everything of it stays. */
let newScan = '';

const headers = () => ({ 'x-api-key': key });

async function scanToTheEnd(): Promise<string> {
  const scan = await createScan(ctx.app, key, {
    target: SCAN_ADDRESS,
    scanType: 'nmap',
    options: { ports: '22' },
  });
  await waitForStatus(ctx.app, key, scan.id, ['completed']);
  return scan.id;
}

/** Waits until every event is fanned out and every delivery has ended. */
async function drained(): Promise<void> {
  const db = ctx.app.composed.database.db;
  await until(
    async () =>
      (
        await sql<{ n: string }>`
          select (select count(*) from scan_events where dispatched_at is null)
            + (select count(*) from webhook_deliveries where status = 'pending') as n`.execute(db)
      ).rows[0]?.n,
    (n) => Number(n) === 0,
  );
}

/** Moves the scans', their events' and their deliveries' timestamps three days back. */
async function makeOld(scanIds: readonly string[]): Promise<void> {
  const db = ctx.app.composed.database.db;
  const ids = sql.join(scanIds.map((id) => sql`${id}::uuid`));
  await sql`update scans set created_at = created_at - interval '3 days',
    completed_at = completed_at - interval '3 days' where id in (${ids})`.execute(db);
  await sql`update scan_events set created_at = created_at - interval '3 days'
    where scan_id in (${ids})`.execute(db);
  await sql`update webhook_deliveries set created_at = created_at - interval '3 days'
    where scan_id in (${ids})`.execute(db);
}

async function count(table: string, where = sql`true`): Promise<number> {
  const result = await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}
    where ${where}`.execute(ctx.app.composed.database.db);
  return Number(result.rows[0]?.n ?? 0);
}

const ofScans = (ids: readonly string[]) =>
  sql`scan_id in (${sql.join(ids.map((id) => sql`${id}::uuid`))})`;

async function retentionCounter(table: string): Promise<number> {
  const response = await fetch(`${ctx.app.url}/metrics`);
  expect(response.status).toBe(200);
  return sampleValue(
    parsePrometheusText(await response.text()),
    'rampart_retention_deleted_rows_total',
    { table },
  );
}

/** A retention loop of another "process" on its own handle of the same database. */
function otherProcess(database: DatabaseHandle): Retention {
  return startRetention({
    database,
    config: ctx.app.config.retention,
    metrics: NO_METRICS,
    outage: createOutageLog(ctx.app.composed.logger),
  });
}

beforeAll(async () => {
  const tenantId = randomUUID();
  key = (await createKey(ctx.app, await tokenFor(tenantId))).rawKey;
  receiver = await startHttpsReceiver();
  const created = await ctx.app.request('/api/v1/webhooks', {
    method: 'POST',
    headers: headers(),
    json: {
      name: 'receiver',
      url: `${receiver.url}hook`,
      events: ['scan.started', 'scan.completed'],
    },
  });
  expect(created.status, created.text).toBe(201);
  webhookId = created.body.data.webhook.id;
  oldScans.push(await scanToTheEnd(), await scanToTheEnd());
  newScan = await scanToTheEnd();
  await drained();
  await makeOld(oldScans);
});

afterAll(async () => {
  await receiver.close();
});

describe('retention', () => {
  it.runIf(BACKEND === 'postgres')(
    'lets one process at a time delete: the one holding the lock',
    async () => {
      const first = otherProcess(ctx.database.connectAgain());
      const second = otherProcess(ctx.database.connectAgain());
      const nothing = { scan_events: 0, webhook_deliveries: 0, webhook_attempts: 0, findings: 0 };
      // The first to ask takes the lock and deletes; while it holds it, the others (this test's
      // second process and the app) delete nothing, though old rows are there.
      const taken = await first.runOnce();
      expect(taken.held).toBe(true);
      expect(taken.deleted.findings).toBe(oldScans.length * FINDINGS_PER_SCAN);
      await makeOldAgain();
      expect(await second.runOnce()).toEqual({ held: false, deleted: nothing });
      expect(await ctx.app.composed.retention.runOnce()).toEqual({ held: false, deleted: nothing });
      expect(await count('findings', ofScans(oldScans))).toBe(oldScans.length * FINDINGS_PER_SCAN);
      // The holder's lock connection drops (its process died): the next one that asks takes over.
      await endLockHolder();
      expect((await second.runOnce()).held).toBe(true);
      expect((await first.runOnce()).held).toBe(false);
      await first.stop();
      await second.stop();
      // The second "process" dies too, so that the app takes over in the next test.
      await endLockHolder();
      // The old rows the second deleted are made again for the next test, whose app takes over.
      await makeOldAgain();
    },
  );

  it('deletes old rows in batches and leaves newer ones', async () => {
    const oldEvents = await count('scan_events', ofScans(oldScans));
    const oldDeliveries = await count('webhook_deliveries', ofScans(oldScans));
    const oldAttempts = await count(
      'webhook_attempts',
      sql`delivery_id in (select id from webhook_deliveries where ${ofScans(oldScans)})`,
    );
    const newEvents = await count('scan_events', ofScans([newScan]));
    const newDeliveries = await count('webhook_deliveries', ofScans([newScan]));
    // scan.started and scan.completed of each scan, each delivered once to the webhook.
    expect(oldEvents).toBe(4);
    expect(oldDeliveries).toBe(4);
    expect(oldAttempts).toBe(4);
    expect(newEvents).toBe(2);
    expect(newDeliveries).toBe(2);
    const before = Object.fromEntries(
      await Promise.all(
        RETENTION_TABLES.map(async (table) => [table, await retentionCounter(table)] as const),
      ),
    ) as Record<RetentionTable, number>;
    const prunedBefore = await count('scans', sql`findings_pruned_at is not null`);

    // One batch deletes at most its size, and says whether more may be left; a scan is marked
    // pruned only once none of its findings is left.
    const db = ctx.app.composed.database.db;
    const cutoff = new Date(Date.now() - 2 * 86_400_000);
    expect(await pruneScanEvents(db, cutoff, 1)).toEqual({
      deleted: { scan_events: 1 },
      more: true,
    });
    expect(await pruneFindings(db, cutoff, 2)).toEqual({ deleted: { findings: 2 }, more: true });
    expect(await count('scans', sql`findings_pruned_at is not null`)).toBe(prunedBefore);

    const round = await ctx.app.composed.retention.runOnce();

    expect(round).toEqual({
      held: true,
      deleted: {
        scan_events: oldEvents - 1,
        webhook_deliveries: oldDeliveries,
        webhook_attempts: oldAttempts,
        // Batches of 2 over scans of 3 findings each: more than one batch per scan.
        findings: oldScans.length * FINDINGS_PER_SCAN - 2,
      },
    });
    expect(await count('scan_events', ofScans(oldScans))).toBe(0);
    expect(await count('webhook_deliveries', ofScans(oldScans))).toBe(0);
    expect(await count('findings', ofScans(oldScans))).toBe(0);
    expect(await count('scan_events', ofScans([newScan]))).toBe(newEvents);
    expect(await count('webhook_deliveries', ofScans([newScan]))).toBe(newDeliveries);
    expect(await count('findings', ofScans([newScan]))).toBe(FINDINGS_PER_SCAN);
    expect(
      await count(
        'scans',
        sql`findings_pruned_at is not null and id in (${sql.join(oldScans.map((id) => sql`${id}::uuid`))})`,
      ),
    ).toBe(oldScans.length);
    expect(await count('scans', sql`findings_pruned_at is not null and id = ${newScan}`)).toBe(0);
    // The app's counter moved by what its round deleted, table by table.
    for (const table of RETENTION_TABLES) {
      expect(await retentionCounter(table), table).toBe(before[table] + round.deleted[table]);
    }

    // Nothing is left to delete: the next round deletes nothing.
    const again = await ctx.app.composed.retention.runOnce();
    expect(again.deleted).toEqual({
      scan_events: 0,
      webhook_deliveries: 0,
      webhook_attempts: 0,
      findings: 0,
    });
  });

  it('leaves the endpoints answering for pruned scans, issues and deliveries', async () => {
    const [pruned] = oldScans;
    const scan = await ctx.app.request(`/api/v1/scans/${pruned}`, { headers: headers() });
    expect(scan.status, scan.text).toBe(200);
    expect(scan.body.data.scan.resultCount).toBe(FINDINGS_PER_SCAN);

    const results = await ctx.app.request(`/api/v1/scans/${pruned}/results`, {
      headers: headers(),
    });
    expect(results.status, results.text).toBe(200);
    expect(results.body.data.findings).toEqual([]);
    expect(results.body.data.pagination.total).toBe(0);
    expect(results.body.data.summary.info).toBe(FINDINGS_PER_SCAN);
    expect(Date.parse(results.body.data.findingsPrunedAt)).not.toBeNaN();

    const kept = await ctx.app.request(`/api/v1/scans/${newScan}/results`, { headers: headers() });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.findings).toHaveLength(FINDINGS_PER_SCAN);
    expect(kept.body.data).not.toHaveProperty('findingsPrunedAt');

    const findings = await ctx.app.request(`/api/v1/scans/${pruned}/findings`, {
      headers: headers(),
    });
    expect(findings.status, findings.text).toBe(200);
    expect(findings.body.data.findings).toEqual([]);

    const sarif = await ctx.app.request(`/api/v1/scans/${pruned}/results?format=sarif`, {
      headers: headers(),
    });
    expect(sarif.status, sarif.text).toBe(200);

    const issues = await ctx.app.request('/api/v1/issues', { headers: headers() });
    expect(issues.status, issues.text).toBe(200);
    expect(issues.body.data.issues).toHaveLength(FINDINGS_PER_SCAN);
    for (const issue of issues.body.data.issues) {
      const one = await ctx.app.request(`/api/v1/issues/${issue.id}`, { headers: headers() });
      expect(one.status, one.text).toBe(200);
    }
    for (const id of [pruned, newScan]) {
      const diff = await ctx.app.request(`/api/v1/scans/${id}/diff`, { headers: headers() });
      expect(diff.status, diff.text).toBe(200);
    }

    const deliveries = await ctx.app.request(`/api/v1/webhooks/${webhookId}/deliveries`, {
      headers: headers(),
    });
    expect(deliveries.status, deliveries.text).toBe(200);
    // The new scan's two deliveries (started, completed), one attempt each.
    expect(deliveries.body.data.deliveries).toHaveLength(2);
  });
  it('never deletes a pending delivery or an event not fanned out yet, however old', async () => {
    // The dispatcher is stopped so that it neither sends the delivery nor fans the event out.
    await ctx.app.composed.dispatcher.stop();
    const db = ctx.app.composed.database.db;
    const deliveryId = randomUUID();
    const eventId = randomUUID();
    const tenant = await sql<{ tenant_id: string }>`
      select tenant_id from scans where id = ${newScan}`.execute(db);
    const tenantId = tenant.rows[0]?.tenant_id ?? '';
    await sql`insert into webhook_deliveries (id, tenant_id, kind, webhook_id, scan_id, event,
        event_timestamp, body, status, next_attempt_at, created_at)
      values (${deliveryId}, ${tenantId}, 'webhook', ${webhookId.replace(/^wh-/, '')}, ${newScan},
        'scan.completed', '2026-01-01T00:00:00.000Z', '{}', 'pending', now() + interval '1 day',
        now() - interval '10 days')`.execute(db);
    await sql`insert into scan_events (id, tenant_id, scan_id, event, payload, created_at)
      values (${eventId}, ${tenantId}, ${newScan}, 'scan.completed', '{}',
        now() - interval '10 days')`.execute(db);

    const round = await ctx.app.composed.retention.runOnce();

    expect(round.deleted.webhook_deliveries).toBe(0);
    expect(round.deleted.scan_events).toBe(0);
    expect(await count('webhook_deliveries', sql`id = ${deliveryId}`)).toBe(1);
    expect(await count('scan_events', sql`id = ${eventId}`)).toBe(1);
  });
});

/** Ends the connection holding the retention lock (its process died): its lock is released. */
async function endLockHolder(): Promise<void> {
  const db = ctx.app.composed.database.db;
  const holder = sql`from pg_locks
    where locktype = 'advisory' and objsubid = 1 and granted
      and ((classid::bigint << 32) | objid::bigint)
        = hashtext('rampart-retention' || ':' || current_schema())::bigint`;
  const ended = await sql<{ ended: boolean }>`
    select pg_terminate_backend(pid) as ended ${holder}`.execute(db);
  expect(ended.rows).toEqual([{ ended: true }]);
  // The signal is sent at once; the backend ends, and its lock goes, a moment later.
  await until(
    async () => (await sql<{ n: string }>`select count(*) as n ${holder}`.execute(db)).rows[0]?.n,
    (n) => Number(n) === 0,
  );
}

/** The lock test's first process deleted the old rows: make them again. */
async function makeOldAgain(): Promise<void> {
  const more = [await scanToTheEnd(), await scanToTheEnd()];
  await drained();
  await makeOld(more);
  oldScans.splice(0, oldScans.length, ...more);
}
