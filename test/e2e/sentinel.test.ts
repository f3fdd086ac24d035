/**
 * sentinel through the API, with held test doubles for the engines (named doubles: each run waits
 * until the test releases it with findings or an ending, or until the worker aborts it), so every
 * step of the orchestration can be watched: planning at creation, child scans in parallel, hidden
 * from the default list and outside the quota, the parent started by its first child, its weighted
 * progress, correlation and risk score when the last child ends, failed children, cancels in both
 * directions, the housekeeping safety net, and the children under their tenant's cap on running
 * scans and its kill switch (issue 20). Real scanners run in sentinel-scan.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import { PROGRESS_WEIGHTS } from '../../src/engines/sentinel/plan.js';
import { sentinelLifecycle } from '../../src/main/workers.js';
import type { EngineRunOutput } from '../../src/use-cases/ports/engine-runs.js';
import { draftFinding, heldEngine } from '../doubles/engines.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, getScan, SCAN_CREATED_FIELDS } from '../support/scans.js';
import { until } from '../support/until.js';

const zapPartial = draftFinding({
  ruleId: '10021',
  title: 'X-Content-Type-Options Header Missing',
  severity: 'low',
  category: 'security-header',
  location: { host: '10.0.0.5', port: 8080, protocol: 'tcp', url: 'http://10.0.0.5:8080/' },
  identifiers: { cve: [], cwe: ['CWE-693'] },
  raw: { pluginid: '10021', confidence: '2' },
});

const engines = {
  nmap: heldEngine(),
  nuclei: heldEngine(),
  zap: heldEngine([zapPartial]),
};

const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '8',
    ALLOW_PRIVATE_TARGETS: 'true',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    // Housekeeping runs every half lease: this keeps it out of the test of the safety net.
    WORKER_LEASE_MS: '600000',
  },
  {
    engineRunners: new Map(Object.entries(engines).map(([name, held]) => [name, held.engine])),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);

let key = '';
let tenantId = '';

beforeAll(async () => {
  tenantId = randomUUID();
  key = (
    await createKey(ctx.app, await tokenFor(tenantId), {
      rateLimitPerMinute: 1000,
      rateLimitPerHour: 50_000,
    })
  ).rawKey;
});

const TARGET = 'http://10.0.0.5:8080/search?q=1';

async function get(path: string, withKey = key) {
  const response = await ctx.app.request(path, { headers: { 'x-api-key': withKey } });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

/** A scan in the list's answer: the fields these tests read, and the rest. */
interface ListedScan {
  readonly id: string;
  readonly scanType: string;
  readonly [field: string]: unknown;
}

async function children(parentId: string): Promise<ListedScan[]> {
  return (await get(`/api/v1/scans?parentScanId=${parentId}`)).scans;
}

/** The child of `parentId` that runs `engine`, once it is running in its held double. */
async function runningChild(parentId: string, engine: keyof typeof engines): Promise<string> {
  const child = (await children(parentId)).find((scan) => scan.scanType === engine);
  if (child === undefined) {
    throw new Error(`sentinel scan ${parentId} has no ${engine} child`);
  }
  await engines[engine].waitFor(child.id);
  return child.id;
}

const ended = (scan: { status: string }) =>
  ['completed', 'failed', 'cancelled'].includes(scan.status);

async function eventsOf(scanId: string): Promise<string[]> {
  const rows = await sql<{ event: string }>`
    select event from scan_events where scan_id = ${scanId} order by seq`.execute(
    ctx.database.handle.db,
  );
  return rows.rows.map((row) => row.event);
}

function release(engine: keyof typeof engines, scanId: string, output: Partial<EngineRunOutput>) {
  engines[engine].release(scanId, output);
}

const nmapPort: DraftFinding = draftFinding({
  ruleId: 'open-port',
  title: 'Open port 8080/tcp (http)',
  category: 'open-port',
  location: { host: '10.0.0.5', port: 8080, protocol: 'tcp', url: null },
  raw: { portid: '8080', service: { name: 'http' } },
});

const zapSqli: DraftFinding = draftFinding({
  ruleId: '40018',
  title: 'SQL Injection',
  severity: 'high',
  toolSeverity: 'High',
  category: 'vulnerability',
  location: {
    host: '10.0.0.5',
    port: 8080,
    protocol: 'tcp',
    url: 'http://10.0.0.5:8080/search?q=1',
  },
  identifiers: { cve: [], cwe: ['CWE-89'] },
  // The shape of the zap parser's raw record: the alert, its instances with their parameter.
  raw: {
    pluginid: '40018',
    confidence: '2',
    instances: [{ uri: 'http://10.0.0.5:8080/search?q=1', method: 'GET', param: 'q' }],
  },
});

const nucleiSqli: DraftFinding = draftFinding({
  ruleId: 'generic-sqli',
  title: 'SQL injection (error based)',
  severity: 'critical',
  toolSeverity: 'critical',
  category: 'vulnerability',
  location: {
    host: '10.0.0.5',
    port: 8080,
    protocol: 'tcp',
    url: 'http://10.0.0.5:8080/search',
  },
  identifiers: { cve: [], cwe: ['CWE-89'] },
  // The shape of the nuclei parser's raw record (its location URL drops the query).
  raw: { templateId: 'generic-sqli', matchedAt: ['http://10.0.0.5:8080/search?q=1'] },
});

describe('sentinel, orchestrated through the API', () => {
  it('plans children, runs them in parallel, then correlates and scores their findings', async () => {
    const before = (await get('/api/v1/usage')).quota.used;
    const created = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap', 'nuclei', 'zap'] },
      tags: ['sentinel-test'],
    });
    expect(Object.keys(created).sort()).toEqual([...SCAN_CREATED_FIELDS]);
    expect(created).toMatchObject({ scanType: 'sentinel', status: 'queued', progress: 0 });
    const id = created.id;

    const nmapId = await runningChild(id, 'nmap');
    const nucleiId = await runningChild(id, 'nuclei');
    const zapId = await runningChild(id, 'zap');
    // All three at once: the children run in parallel.
    expect(engines.nmap.held.has(nmapId) && engines.nuclei.held.has(nucleiId)).toBe(true);
    expect(engines.zap.held.has(zapId)).toBe(true);

    const listed = await children(id);
    expect(listed.map((child) => child.scanType).sort()).toEqual(['nmap', 'nuclei', 'zap']);
    const nmapChild = listed.find((child) => child.scanType === 'nmap');
    expect(nmapChild).toMatchObject({
      parentScanId: id,
      target: '10.0.0.5',
      targetType: 'ip',
      priority: 'normal',
      tags: ['sentinel-test'],
      options: { ports: '8080' },
    });
    expect(listed.find((child) => child.scanType === 'zap')).toMatchObject({ target: TARGET });
    // Children are hidden from the default list and from scanType=all, and use no quota.
    const all = (await get('/api/v1/scans?scanType=all&limit=100')).scans;
    expect(all.map((scan: { id: string }) => scan.id)).toContain(id);
    expect(all.some((scan: { parentScanId: string | null }) => scan.parentScanId !== null)).toBe(
      false,
    );
    expect((await get('/api/v1/usage')).quota.used).toBe(before + 1);

    // The parent runs from its first child's start; its detail lists the children.
    const running = await getScan(ctx.app, key, id);
    expect(running.status).toBe('running');
    expect(running.sentinel).toMatchObject({ depth: 'standard', correlate: true, riskScore: true });
    expect(running.sentinel.children).toHaveLength(3);
    expect(running.sentinel.riskFactors).toBeNull();

    release('nmap', nmapId, { findings: [nmapPort] });
    const weights = PROGRESS_WEIGHTS;
    const expected = Math.round(
      (100 * weights.nmap) / (weights.nmap + weights.nuclei + weights.zap),
    );
    const progressed = await until(
      () => getScan(ctx.app, key, id),
      (scan) => scan.progress === expected,
    );
    expect(progressed.status).toBe('running');
    const results = await ctx.app.request(`/api/v1/scans/${id}/results`, {
      headers: { 'x-api-key': key },
    });
    expect(results.status).toBe(409);

    release('nuclei', nucleiId, { findings: [nucleiSqli] });
    release('zap', zapId, { findings: [zapSqli, zapPartial] });
    const done = await until(() => getScan(ctx.app, key, id), ended);
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    // SQL injection from zap and nuclei on the same URL and parameter is one finding.
    expect(done.resultCount).toBe(3);
    expect(done.sentinel.children.map((child: { status: string }) => child.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(done.riskScore).toBeGreaterThan(0);

    const data = await get(`/api/v1/scans/${id}/results?limit=100`);
    expect(data).toMatchObject({ scanId: id, status: 'completed', partial: false });
    expect(data.riskScore).toBe(done.riskScore);
    expect(data.sentinel.riskFactors.length).toBeGreaterThan(0);
    expect(
      data.sentinel.children.map((child: Record<string, unknown>) => [
        child.engine,
        child.status,
        child.resultCount,
      ]),
    ).toEqual([
      ['nmap', 'completed', 1],
      ['zap', 'completed', 2],
      ['nuclei', 'completed', 1],
    ]);
    const sqli = data.findings.find((finding: { correlatedBy: string[] }) =>
      finding.correlatedBy.includes('weakness'),
    );
    expect(sqli).toBeDefined();
    expect(sqli.sources.map((source: { engine: string }) => source.engine).sort()).toEqual([
      'nuclei',
      'zap',
    ]);
    expect(sqli.sources.every((source: { finding: object }) => !('raw' in source.finding))).toBe(
      true,
    );
    expect(sqli.identifiers.cwe).toEqual(['CWE-89']);
    expect(sqli.risk.score).toBeGreaterThan(0);
    expect(sqli.risk.factors.map((factor: { factor: string }) => factor.factor)).toContain(
      'corroboration',
    );
    // Every child finding is a source of exactly one parent finding.
    const sourceIds = data.findings.flatMap((finding: { sources: Array<{ findingId: string }> }) =>
      finding.sources.map((source) => source.findingId),
    );
    expect(new Set(sourceIds).size).toBe(4);
    // Only the parent's own events reach the outbox (and so webhooks).
    expect(await eventsOf(id)).toEqual(['scan.started', 'scan.completed']);
    for (const child of [nmapId, nucleiId, zapId]) {
      expect(await eventsOf(child)).toEqual([]);
    }
  }, 30_000);

  it('plans by depth: quick picks nmap and nuclei, standard adds zap, and says what it skipped', async () => {
    const quick = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      options: { depth: 'quick' },
    });
    const standard = await createScan(ctx.app, key, { target: TARGET, scanType: 'sentinel' });
    const quickChildren = await children(quick.id);
    expect(quickChildren.map((child) => child.scanType).sort()).toEqual(['nmap', 'nuclei']);
    const detail = await getScan(ctx.app, key, standard.id);
    expect(detail.sentinel.children.map((child: { engine: string }) => child.engine)).toEqual([
      'nmap',
      'zap',
      'nuclei',
    ]);
    expect(detail.sentinel.skipped.map((skip: { engine: string }) => skip.engine)).toEqual([
      'harvester',
    ]);
    for (const scan of [quick, standard]) {
      const cancel = await ctx.app.request(`/api/v1/scans/${scan.id}/cancel`, {
        method: 'POST',
        headers: { 'x-api-key': key },
      });
      expect(cancel.status).toBe(200);
    }
  });

  it('cancelling the parent cancels its children and keeps their partial findings', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap', 'zap'] },
    });
    const nmapId = await runningChild(id, 'nmap');
    const zapId = await runningChild(id, 'zap');
    const cancel = await ctx.app.request(`/api/v1/scans/${id}/cancel`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.data.scan.status).toBe('cancelled');
    // The workers were told: both held runs were aborted.
    await until(
      async () => engines.nmap.held.has(nmapId) || engines.zap.held.has(zapId),
      (running) => !running,
    );
    const scan = await until(
      () => getScan(ctx.app, key, id),
      (current) => current.resultCount === 1,
    );
    expect(scan.status).toBe('cancelled');
    expect(scan.sentinel.children.map((child: { status: string }) => child.status)).toEqual([
      'cancelled',
      'cancelled',
    ]);
    const data = await get(`/api/v1/scans/${id}/results`);
    expect(data).toMatchObject({ status: 'cancelled', partial: true });
    expect(data.findings.map((finding: { ruleId: string }) => finding.ruleId)).toEqual(['10021']);
    expect(await eventsOf(id)).toEqual(['scan.started', 'scan.cancelled']);
    expect(await eventsOf(zapId)).toEqual([]);
  });

  it('a failed or cancelled child is reported; the parent fails only when every child failed', async () => {
    const partly = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap', 'zap'] },
    });
    const nmapId = await runningChild(partly.id, 'nmap');
    const zapId = await runningChild(partly.id, 'zap');
    release('nmap', nmapId, { ending: 'engine-error', message: 'nmap exited with code 1' });
    release('zap', zapId, { findings: [zapSqli] });
    const completed = await until(() => getScan(ctx.app, key, partly.id), ended);
    expect(completed).toMatchObject({ status: 'completed', resultCount: 1 });
    expect(completed.sentinel.children[0]).toMatchObject({
      engine: 'nmap',
      status: 'failed',
      error: { code: 'ENGINE_ERROR', message: 'nmap exited with code 1' },
    });

    const failing = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap', 'zap'] },
    });
    const nmap2 = await runningChild(failing.id, 'nmap');
    const zap2 = await runningChild(failing.id, 'zap');
    release('nmap', nmap2, { ending: 'timed-out', findings: [nmapPort] });
    release('zap', zap2, { ending: 'timed-out' });
    const failed = await until(() => getScan(ctx.app, key, failing.id), ended);
    expect(failed.status).toBe('failed');
    // Both children failed alike: the parent takes their code; their findings are kept.
    expect(failed.error.code).toBe('SCAN_TIMEOUT');
    expect(failed.error.message).toContain('nmap failed (SCAN_TIMEOUT');
    expect(failed.resultCount).toBe(1);
    expect(await eventsOf(failing.id)).toEqual(['scan.started', 'scan.failed']);

    // A child cancelled on its own: the rest go on, and the parent completes with them.
    const third = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap', 'zap'] },
    });
    const nmap3 = await runningChild(third.id, 'nmap');
    const zap3 = await runningChild(third.id, 'zap');
    const cancelChild = await ctx.app.request(`/api/v1/scans/${zap3}/cancel`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });
    expect(cancelChild.status).toBe(200);
    expect((await getScan(ctx.app, key, third.id)).status).toBe('running');
    release('nmap', nmap3, { findings: [nmapPort] });
    const thirdDone = await until(() => getScan(ctx.app, key, third.id), ended);
    expect(thirdDone.status).toBe('completed');
    expect(
      thirdDone.sentinel.children.map((child: Record<string, unknown>) => [
        child.engine,
        child.status,
      ]),
    ).toEqual([
      ['nmap', 'completed'],
      ['zap', 'cancelled'],
    ]);
    // zap's partial finding arrived after its cancel and is part of the parent's results.
    expect(thirdDone.resultCount).toBe(2);
  });

  it('refuses at creation what cannot run, and stores nothing', async () => {
    const before = (await get('/api/v1/usage')).quota.used;
    const unavailable = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { target: TARGET, scanType: 'sentinel', options: { engines: ['wapiti', 'sqlmap'] } },
    });
    expect(unavailable.status, unavailable.text).toBe(503);
    expect(unavailable.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(unavailable.body.error).toContain('wapiti');

    const notApplicable = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { target: 'example.com', scanType: 'sentinel', options: { engines: ['zap'] } },
    });
    expect(notApplicable.status, notApplicable.text).toBe(400);
    expect(notApplicable.body.code).toBe('INVALID_TARGET');
    expect((await get('/api/v1/usage')).quota.used).toBe(before);

    const limited = (
      await createKey(ctx.app, await tokenFor(tenantId), {
        allowedScanTypes: ['sentinel', 'nmap'],
        rateLimitPerMinute: 1000,
      })
    ).rawKey;
    const explicit = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': limited },
      json: { target: TARGET, scanType: 'sentinel', options: { engines: ['nmap', 'zap'] } },
    });
    expect(explicit.status).toBe(403);
    expect(explicit.body.code).toBe('SCAN_TYPE_NOT_ALLOWED');
    expect(explicit.body.error).toContain('zap');
    // Automatic selection skips what the key may not use.
    const automatic = await createScan(ctx.app, limited, {
      target: TARGET,
      scanType: 'sentinel',
      options: { depth: 'quick' },
    });
    const detail = await getScan(ctx.app, limited, automatic.id);
    expect(detail.sentinel.children.map((child: { engine: string }) => child.engine)).toEqual([
      'nmap',
    ]);
    expect(detail.sentinel.skipped).toEqual([
      { engine: 'nuclei', reason: expect.stringContaining('not allowed') },
    ]);
    await ctx.app.request(`/api/v1/scans/${automatic.id}/cancel`, {
      method: 'POST',
      headers: { 'x-api-key': limited },
    });
  });

  it('housekeeping collects a sentinel scan whose last child ended without collecting it', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap'] },
    });
    const nmapId = await runningChild(id, 'nmap');
    // As if the worker had ended the child and died before collecting the parent.
    await sql`update scans set status = 'completed', progress = 100, completed_at = now(),
      lease_owner = null, lease_expires_at = null where id = ${nmapId}`.execute(
      ctx.database.handle.db,
    );
    expect((await getScan(ctx.app, key, id)).status).toBe('running');
    expect(await sentinelLifecycle(ctx.app.composed.database).collectPending()).toBe(1);
    expect(await sentinelLifecycle(ctx.app.composed.database).collectPending()).toBe(0);
    const scan = await getScan(ctx.app, key, id);
    expect(scan).toMatchObject({ status: 'completed', progress: 100, resultCount: 0 });
    // The held run ends later; its worker no longer holds the scan and changes nothing.
    release('nmap', nmapId, { findings: [nmapPort] });
    await until(
      () => ctx.app.composed.workers.flatMap((worker) => worker.running()),
      (running) => !running.includes(nmapId),
    );
    expect((await getScan(ctx.app, key, id)).resultCount).toBe(0);
  });
});

describe("sentinel and the tenant's cap on running scans (issue 20)", () => {
  it('counts the children against the cap, not the engine-less parent', async () => {
    const capped = randomUUID();
    const cappedKey = (
      await createKey(ctx.app, await tokenFor(capped), {
        rateLimitPerMinute: 1000,
        rateLimitPerHour: 50_000,
      })
    ).rawKey;
    const admin = await tokenFor(randomUUID(), { admin: true, subject: 'root' });
    const cap = await ctx.app.request(`/api/v1/admin/tenants/${capped}/max-running-scans`, {
      method: 'PUT',
      headers: bearer(admin),
      json: { maxRunningScans: 2 },
    });
    expect(cap.status, cap.text).toBe(200);
    const heldOf = (tenant: string) =>
      Object.values(engines).flatMap((held) =>
        [...held.held.values()].filter((run) => run.request.scan.tenantId === tenant),
      );

    const { id } = await createScan(ctx.app, cappedKey, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap', 'nuclei', 'zap'] },
    });
    // Two children run (the parent, held by no worker, takes no slot); the third waits.
    await until(
      () => heldOf(capped).length,
      (running) => running === 2,
    );
    const listed = (await get(`/api/v1/scans?parentScanId=${id}`, cappedKey)).scans as ListedScan[];
    expect(listed).toHaveLength(3);
    const startedIds = heldOf(capped).map((run) => run.request.scan.id);
    const waiting = listed.find((child) => !startedIds.includes(child.id));
    expect(waiting?.status).toBe('queued');

    // The worker has free slots and the waiting child is older, yet another tenant's scan starts:
    // the claim that took it held the sentinel's tenant to its cap.
    const other = await createScan(ctx.app, key, { target: '10.0.0.7', scanType: 'nmap' });
    await engines.nmap.waitFor(other.id);
    expect(heldOf(capped)).toHaveLength(2);
    expect((await getScan(ctx.app, cappedKey, waiting?.id ?? '')).status).toBe('queued');

    // A child ends: its slot goes to the waiting child, and never more than 2 run at once.
    const [first] = heldOf(capped);
    first?.release({});
    const next = waiting?.scanType as keyof typeof engines;
    await engines[next].waitFor(waiting?.id ?? '');
    expect(heldOf(capped)).toHaveLength(2);

    for (const run of heldOf(capped)) {
      run.release({});
    }
    engines.nmap.release(other.id);
    const ended = await until(
      () => getScan(ctx.app, cappedKey, id),
      (scan) => scan.status === 'completed',
    );
    expect(ended.sentinel.children).toHaveLength(3);
  });

  it('the kill switch stops the running children within 2 s, and the parent ends with them', async () => {
    const suspended = randomUUID();
    const suspendedKey = (await createKey(ctx.app, await tokenFor(suspended))).rawKey;
    const admin = await tokenFor(randomUUID(), { admin: true, subject: 'root' });
    const { id } = await createScan(ctx.app, suspendedKey, {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['nmap', 'zap'] },
    });
    const listed = (await get(`/api/v1/scans?parentScanId=${id}`, suspendedKey))
      .scans as ListedScan[];
    const runs = await Promise.all(
      listed.map((child) => engines[child.scanType as keyof typeof engines].waitFor(child.id)),
    );
    const statusOf = async (scanId: string) =>
      (
        await sql<{ status: string; error_code: string | null }>`
          select status, error_code from scans where id = ${scanId}`.execute(ctx.database.handle.db)
      ).rows[0];

    const suspendedAt = Date.now();
    const suspend = await ctx.app.request(`/api/v1/admin/tenants/${suspended}/suspend`, {
      method: 'POST',
      headers: bearer(admin),
    });
    expect(suspend.status).toBe(200);
    for (const child of listed) {
      await until(
        () => statusOf(child.id),
        (row) => row?.status === 'failed',
        5_000,
      );
    }
    expect(Date.now() - suspendedAt).toBeLessThan(2_000);
    expect(runs.every((run) => run.signal.aborted)).toBe(true);
    for (const child of listed) {
      expect(await statusOf(child.id)).toEqual({
        status: 'failed',
        error_code: 'TENANT_SUSPENDED',
      });
    }
    // Every child failed alike: the parent, held by no worker, fails with their code.
    expect(
      await until(
        () => statusOf(id),
        (row) => row?.status !== 'running',
      ),
    ).toEqual({ status: 'failed', error_code: 'TENANT_SUSPENDED' });
  });
});
