/**
 * The issues API (issue 23, a Rampart extension) over real HTTP: scans run through the API and the
 * worker with held engine doubles, then GET /api/v1/issues (filters, paging, the triage in
 * effect), GET /api/v1/issues/:issueId (with its history) and PATCH (triage with who and why, the
 * rules' refusals, the scope), another tenant's issue as 404.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import { fingerprintFinding } from '../../src/domain/findings/fingerprint.js';
import type { EngineRunOutput } from '../../src/use-cases/ports/engine-runs.js';
import { draftFinding, heldEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';

const engines = { nmap: heldEngine(), nuclei: heldEngine() };

const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '4',
    ALLOW_PRIVATE_TARGETS: 'true',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    WORKER_LEASE_MS: '600000',
  },
  {
    engineRunners: new Map(Object.entries(engines).map(([name, held]) => [name, held.engine])),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);

const limits = { rateLimitPerMinute: 1000, rateLimitPerHour: 50_000 };
let key = '';
let keyId = '';
let otherKey = '';
let tenantId = '';

beforeAll(async () => {
  tenantId = randomUUID();
  const created = await createKey(ctx.app, await tokenFor(tenantId), limits);
  key = created.rawKey;
  keyId = created.id;
  otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()), limits)).rawKey;
});

type Engine = keyof typeof engines;

async function scan(engine: Engine, target: string, output: Partial<EngineRunOutput>) {
  const { id } = await createScan(ctx.app, key, { target, scanType: engine });
  await engines[engine].waitFor(id);
  engines[engine].release(id, output);
  await waitForStatus(ctx.app, key, id, ['completed', 'failed', 'cancelled']);
  return id;
}

function port(host: string, portNumber: number, severity: DraftFinding['severity'] = 'info') {
  return draftFinding({
    title: `Open port ${portNumber}/tcp`,
    severity,
    location: { host, port: portNumber, protocol: 'tcp', url: null },
    raw: { portid: String(portNumber) },
  });
}

const get = (path: string, apiKey = key) =>
  ctx.app.request(path, { headers: { 'x-api-key': apiKey } });

async function issues(query: string) {
  const response = await get(`/api/v1/issues?${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data as {
    issues: Array<Record<string, unknown> & { id: string; fingerprint: string }>;
    pagination: Record<string, number>;
  };
}

describe('GET /api/v1/issues and /api/v1/issues/:issueId', () => {
  const target = '10.1.0.7';
  const ssh = port(target, 22, 'medium');
  const web = port(target, 80, 'low');
  const sshFp = fingerprintFinding('nmap', ssh);
  const webFp = fingerprintFinding('nmap', web);
  let first = '';
  let second = '';
  let beforeSecond = '';

  beforeAll(async () => {
    first = await scan('nmap', target, { findings: [ssh, web] });
    beforeSecond = new Date().toISOString();
    second = await scan('nmap', target, { findings: [ssh] });
    await scan('nuclei', '10.1.0.8', {
      findings: [{ ...port('10.1.0.8', 443, 'high'), ruleId: 'tls-weak', title: 'Weak TLS' }],
    });
  });

  it('lists the tenant issues, most severe first, with their life over rescans', async () => {
    const data = await issues(`target=${target}`);
    expect(data.pagination).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(data.issues.map((issue) => [issue.fingerprint, issue.status])).toEqual([
      [sshFp, 'open'],
      [webFp, 'fixed'],
    ]);
    expect(data.issues[0]).toMatchObject({
      target,
      engine: 'nmap',
      ruleId: ssh.ruleId,
      title: 'Open port 22/tcp',
      severity: 'medium',
      location: { host: target, port: 22, protocol: 'tcp', url: null },
      firstScanId: first,
      lastScanId: second,
      occurrences: 2,
      triage: 'none',
      triageReason: null,
      triagedBy: null,
      triagedAt: null,
      triageExpiresAt: null,
    });
    expect(data.issues[0]).not.toHaveProperty('raw');
    expect((await issues('')).issues.map((issue) => issue.severity)).toEqual([
      'high',
      'medium',
      'low',
    ]);
  });

  it('filters by target, engine, severity, status, triage and since, and pages', async () => {
    const fps = async (query: string) =>
      (await issues(query)).issues.map((issue) => issue.fingerprint);
    expect(await fps(`target=${target}&status=fixed`)).toEqual([webFp]);
    expect(await fps(`target=${target}&severity=medium`)).toEqual([sshFp]);
    expect(await fps('engine=nuclei')).toHaveLength(1);
    expect(await fps('engine=nmap&status=open')).toEqual([sshFp]);
    expect(await fps(`target=${target}&since=${encodeURIComponent(beforeSecond)}`)).toEqual([
      sshFp,
    ]);
    expect(await fps('triage=false_positive')).toEqual([]);
    expect(await fps(`target=${target}&triage=none`)).toEqual([sshFp, webFp]);
    const paged = await issues('limit=2&page=2');
    expect(paged.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(paged.issues).toHaveLength(1);
  });

  it('answers 400 INVALID_FIELD_VALUE to filter values it does not know', async () => {
    for (const query of [
      'status=closed',
      'triage=ignored',
      'severity=urgent',
      'engine=burp',
      'since=yesterday',
    ]) {
      const response = await get(`/api/v1/issues?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe('INVALID_FIELD_VALUE');
    }
    expect((await get('/api/v1/issues?limit=101')).body.code).toBe('INVALID_LIMIT');
  });

  it('reads one issue with its history; another tenant gets 404 ISSUE_NOT_FOUND', async () => {
    const [, fixed] = (await issues(`target=${target}`)).issues;
    const response = await get(`/api/v1/issues/${fixed?.id}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.issue).toMatchObject({ id: fixed?.id, status: 'fixed' });
    expect(
      response.body.data.issue.history.map((event: Record<string, unknown>) => [
        event.kind,
        event.from,
        event.to,
        event.scanId,
        event.actor,
      ]),
    ).toEqual([
      ['status', null, 'open', first, null],
      ['status', 'open', 'fixed', second, null],
    ]);
    for (const path of [`/api/v1/issues/${fixed?.id}`, `/api/v1/issues/${randomUUID()}`]) {
      const other = await get(path, otherKey);
      expect(other.status).toBe(404);
      expect(other.body).toEqual({
        success: false,
        error: 'Issue not found',
        code: 'ISSUE_NOT_FOUND',
      });
    }
    expect((await get('/api/v1/issues/not-an-id')).body.code).toBe('ISSUE_NOT_FOUND');
    expect((await get(`/api/v1/issues?target=${target}`, otherKey)).body.data.issues).toEqual([]);
  });

  it('shows an accepted risk past its expiry as none before housekeeping stores it', async () => {
    const [open] = (await issues(`target=${target}&status=open`)).issues;
    await sql`update issues set triage = 'accepted_risk', triage_reason = 'lab',
      triaged_by = ${keyId}, triaged_at = now() - interval '2 days',
      triage_expires_at = now() - interval '1 day' where id = ${open?.id}`.execute(
      ctx.database.handle.db,
    );
    const read = (await get(`/api/v1/issues/${open?.id}`)).body.data.issue;
    expect(read).toMatchObject({ triage: 'none', triagedBy: 'expiry', triageReason: null });
    const ids = async (query: string) => (await issues(query)).issues.map((issue) => issue.id);
    expect(await ids(`target=${target}&triage=none`)).toContain(open?.id);
    expect(await ids(`target=${target}&triage=accepted_risk`)).toEqual([]);
    await sql`update issues set triage_expires_at = now() + interval '1 day' where id = ${open?.id}`.execute(
      ctx.database.handle.db,
    );
    expect(await ids(`target=${target}&triage=accepted_risk`)).toEqual([open?.id]);
    expect((await get(`/api/v1/issues/${open?.id}`)).body.data.issue).toMatchObject({
      triage: 'accepted_risk',
      triageReason: 'lab',
      triagedBy: keyId,
    });
  });
});

const patch = (id: string, json: unknown, headers: Record<string, string> = { 'x-api-key': key }) =>
  ctx.app.request(`/api/v1/issues/${id}`, { method: 'PATCH', headers, json });

describe('PATCH /api/v1/issues/:issueId', () => {
  const target = '10.1.0.9';
  const telnet = port(target, 23, 'high');
  let issueId = '';

  beforeAll(async () => {
    await scan('nmap', target, { findings: [telnet] });
    issueId = (await issues(`target=${target}`)).issues[0]?.id ?? '';
  });

  const triageEvents = async () =>
    (await get(`/api/v1/issues/${issueId}`)).body.data.issue.history
      .filter((event: { kind: string }) => event.kind === 'triage')
      .map((event: Record<string, unknown>) => [event.from, event.to, event.actor, event.reason]);

  it('sets a triage with who and why, kept when the finding comes back', async () => {
    const response = await patch(issueId, { triage: 'false_positive', reason: ' test host ' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.issue).toMatchObject({
      id: issueId,
      triage: 'false_positive',
      triageReason: 'test host',
      triagedBy: keyId,
      triageExpiresAt: null,
    });
    expect(response.body.data.issue.history.at(-1)).toMatchObject({
      kind: 'triage',
      from: 'none',
      to: 'false_positive',
      actor: keyId,
      reason: 'test host',
      scanId: null,
    });
    // The same again records nothing.
    expect((await patch(issueId, { triage: 'false_positive', reason: 'test host' })).status).toBe(
      200,
    );
    expect(await triageEvents()).toEqual([['none', 'false_positive', keyId, 'test host']]);
    // A rescan that sees it again keeps the triage.
    await scan('nmap', target, { findings: [telnet] });
    expect((await get(`/api/v1/issues/${issueId}`)).body.data.issue).toMatchObject({
      triage: 'false_positive',
      occurrences: 2,
    });
    expect((await issues('triage=false_positive')).issues.map((issue) => issue.id)).toEqual([
      issueId,
    ]);
  });

  it('takes an accepted risk with a reason and a future expiry; a JWT caller is its subject', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const token = await tokenFor(tenantId, { subject: 'alice@example.test' });
    const response = await patch(
      issueId,
      { triage: 'accepted_risk', reason: 'compensating control', expiresAt },
      { authorization: `Bearer ${token}` },
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.issue).toMatchObject({
      triage: 'accepted_risk',
      triageReason: 'compensating control',
      triagedBy: 'alice@example.test',
      triageExpiresAt: expiresAt,
    });
    expect((await triageEvents()).at(-1)).toEqual([
      'false_positive',
      'accepted_risk',
      'alice@example.test',
      'compensating control',
    ]);
  });

  it('records an expiry that passed before the change it precedes', async () => {
    await sql`update issues set triage_expires_at = now() - interval '1 minute'
      where id = ${issueId}`.execute(ctx.database.handle.db);
    const response = await patch(issueId, { triage: 'out_of_scope', reason: 'not ours' });
    expect(response.status, response.text).toBe(200);
    expect((await triageEvents()).slice(-2)).toEqual([
      ['accepted_risk', 'none', 'expiry', 'expired'],
      ['none', 'out_of_scope', keyId, 'not ours'],
    ]);
    const cleared = await patch(issueId, { triage: 'none' });
    expect(cleared.body.data.issue).toMatchObject({
      triage: 'none',
      triageReason: null,
      triagedBy: keyId,
    });
  });

  it('refuses what the rules refuse with 400, changing nothing', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 60_000).toISOString();
    const before = await triageEvents();
    for (const [body, code, error] of [
      [
        { triage: 'accepted_risk' },
        'INVALID_FIELD_VALUE',
        'Invalid value for field reason: accepted_risk needs a reason',
      ],
      [
        { triage: 'accepted_risk', reason: 'r', expiresAt: past },
        'INVALID_FIELD_VALUE',
        'Invalid value for field expiresAt: expiresAt must be in the future',
      ],
      [
        { triage: 'false_positive', expiresAt: future },
        'INVALID_FIELD_VALUE',
        'Invalid value for field expiresAt: expiresAt is only for accepted_risk',
      ],
      [{ triage: 'fixed' }, 'INVALID_FIELD_VALUE', null],
      [
        { triage: 'accepted_risk', reason: 'r', expiresAt: 'tomorrow' },
        'INVALID_FIELD_VALUE',
        null,
      ],
      [{ triage: 'none', reason: 'x'.repeat(2001) }, 'INVALID_FIELD_VALUE', null],
      [{ reason: 'r' }, 'MISSING_REQUIRED_FIELD', 'Missing required field: triage'],
      [{ triage: 1 }, 'INVALID_FIELD_TYPE', null],
    ] as const) {
      const response = await patch(issueId, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code, JSON.stringify(body)).toBe(code);
      if (error !== null) {
        expect(response.body.error).toBe(error);
      }
    }
    expect(await triageEvents()).toEqual(before);
  });

  it("answers 404 ISSUE_NOT_FOUND for another tenant's issue, and leaves it alone", async () => {
    const other = await patch(issueId, { triage: 'false_positive' }, { 'x-api-key': otherKey });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('ISSUE_NOT_FOUND');
    expect((await patch(randomUUID(), { triage: 'none' })).body.code).toBe('ISSUE_NOT_FOUND');
    expect((await get(`/api/v1/issues/${issueId}`)).body.data.issue.triage).toBe('none');
  });

  it('needs results:triage: a key with results:read only is 403', async () => {
    const reader = await createKey(ctx.app, await tokenFor(tenantId), {
      ...limits,
      scopes: ['results:read'],
    });
    const response = await patch(issueId, { triage: 'none' }, { 'x-api-key': reader.rawKey });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('POST /api/v1/issues/triage (bulk)', () => {
  const target = '10.1.0.11';
  const bulk = (json: unknown, apiKey = key) =>
    ctx.app.request('/api/v1/issues/triage', {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
      json,
    });

  beforeAll(async () => {
    await scan('nmap', target, {
      findings: [port(target, 21, 'high'), port(target, 25, 'low'), port(target, 110, 'low')],
    });
  });

  it('triages every issue a filter matches, each in its history, and counts the changes', async () => {
    const low = await issues(`target=${target}&severity=low`);
    expect(low.issues).toHaveLength(2);
    // One of them is already out_of_scope: not changed, not counted.
    await patch(low.issues[0]?.id ?? '', { triage: 'out_of_scope', reason: 'legacy mail' });
    const response = await bulk({
      filter: { target, severity: 'low' },
      triage: 'out_of_scope',
      reason: 'legacy mail',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ updated: 1 });
    const after = await issues(`target=${target}`);
    expect(after.issues.map((issue) => [issue.severity, issue.triage, issue.triagedBy])).toEqual([
      ['high', 'none', null],
      ['low', 'out_of_scope', keyId],
      ['low', 'out_of_scope', keyId],
    ]);
    const history = (await get(`/api/v1/issues/${low.issues[1]?.id}`)).body.data.issue.history;
    expect(history.at(-1)).toMatchObject({
      kind: 'triage',
      from: 'none',
      to: 'out_of_scope',
      actor: keyId,
      reason: 'legacy mail',
    });
    // Another tenant's bulk triage reaches none of them.
    expect(
      (await bulk({ filter: { target }, triage: 'false_positive' }, otherKey)).body.data,
    ).toEqual({ updated: 0 });
    expect((await issues(`target=${target}&triage=false_positive`)).issues).toEqual([]);
  });

  it('starts from the triage in effect and records an expiry that passed', async () => {
    const [high] = (await issues(`target=${target}&severity=high`)).issues;
    await sql`update issues set triage = 'accepted_risk', triage_reason = 'r',
      triage_expires_at = now() - interval '1 minute' where id = ${high?.id}`.execute(
      ctx.database.handle.db,
    );
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const response = await bulk({
      filter: { target, triage: 'none' },
      triage: 'accepted_risk',
      reason: 'maintenance window',
      expiresAt,
    });
    expect(response.body.data).toEqual({ updated: 1 });
    const read = (await get(`/api/v1/issues/${high?.id}`)).body.data.issue;
    expect(read).toMatchObject({ triage: 'accepted_risk', triageExpiresAt: expiresAt });
    expect(
      read.history
        .filter((event: { kind: string }) => event.kind === 'triage')
        .map((event: Record<string, unknown>) => [event.from, event.to, event.actor]),
    ).toEqual([
      ['accepted_risk', 'none', 'expiry'],
      ['none', 'accepted_risk', keyId],
    ]);
  });

  it('triages the issues it names by id (extension), with the other filters, of its tenant only', async () => {
    const listed = (await issues(`target=${target}`)).issues;
    const [high, lowOne, lowTwo] = listed;
    const before = listed.map((issue) => issue.triage);
    // Another tenant naming these ids changes nothing.
    expect(
      (await bulk({ filter: { ids: [high?.id] }, triage: 'false_positive' }, otherKey)).body.data,
    ).toEqual({ updated: 0 });
    // The ids and a filter together: only the named issues the filter also matches.
    const response = await bulk({
      filter: { ids: [high?.id, lowOne?.id?.toUpperCase(), randomUUID()], severity: 'low' },
      triage: 'false_positive',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toEqual({ updated: 1 });
    const after = await issues(`target=${target}`);
    expect(after.issues.map((issue) => [issue.id, issue.triage])).toEqual([
      [high?.id, before[0]],
      [lowOne?.id, 'false_positive'],
      [lowTwo?.id, before[2]],
    ]);
    for (const ids of [[], ['not-a-uuid'], Array.from({ length: 101 }, () => randomUUID())]) {
      const refused = await bulk({ filter: { ids }, triage: 'none' });
      expect(refused.status, JSON.stringify(ids).slice(0, 40)).toBe(400);
      expect(refused.body.code).toBe('INVALID_FIELD_VALUE');
      expect(refused.body.error).toContain('field filter.ids');
    }
    // Put back as it was, for the tests after this one.
    await patch(lowOne?.id ?? '', { triage: before[1] ?? 'none', reason: 'legacy mail' });
  });

  it('refuses an empty filter and what PATCH refuses, changing nothing', async () => {
    for (const [body, field] of [
      [{ filter: {}, triage: 'false_positive' }, 'filter'],
      [{ filter: { target }, triage: 'accepted_risk' }, 'reason'],
      [{ filter: { target }, triage: 'none', expiresAt: new Date().toISOString() }, 'expiresAt'],
      [{ filter: { status: 'closed' }, triage: 'none' }, 'filter.status'],
    ] as const) {
      const response = await bulk(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('INVALID_FIELD_VALUE');
      expect(response.body.error).toContain(`field ${field}`);
    }
    expect((await bulk({ triage: 'none' })).body.code).toBe('MISSING_REQUIRED_FIELD');
    expect((await issues(`target=${target}&triage=out_of_scope`)).issues).toHaveLength(2);
  });
});

describe('GET /api/v1/scans/:scanId/diff', () => {
  const target = '10.1.0.12';
  const [a, b, c] = [22, 80, 443].map((n) => port(target, n));
  const fp = (finding: DraftFinding | undefined) =>
    fingerprintFinding('nmap', finding as DraftFinding);
  const scans: string[] = [];

  beforeAll(async () => {
    scans.push(await scan('nmap', target, { findings: [a, b] as DraftFinding[] }));
    scans.push(await scan('nmap', target, { findings: [a] as DraftFinding[] }));
    scans.push(await scan('nmap', target, { findings: [a, b, c] as DraftFinding[] }));
  });

  async function diff(scanId: string | undefined, query = '') {
    const response = await get(`/api/v1/scans/${scanId}/diff${query}`);
    expect(response.status, response.text).toBe(200);
    const data = response.body.data;
    const fps = (list: Array<{ fingerprint: string }>) =>
      list.map((issue) => issue.fingerprint).sort();
    return {
      baseScanId: data.baseScanId,
      new: fps(data.new),
      fixed: fps(data.fixed),
      reopened: fps(data.reopened),
      unchanged: fps(data.unchanged),
    };
  }

  it('compares with the previous completed scan of the target and engine', async () => {
    expect(await diff(scans[0])).toEqual({
      baseScanId: null,
      new: [fp(a), fp(b)].sort(),
      fixed: [],
      reopened: [],
      unchanged: [],
    });
    expect(await diff(scans[1])).toEqual({
      baseScanId: scans[0],
      new: [],
      fixed: [fp(b)],
      reopened: [],
      unchanged: [fp(a)],
    });
    expect(await diff(scans[2])).toEqual({
      baseScanId: scans[1],
      new: [fp(c)],
      fixed: [],
      reopened: [fp(b)],
      unchanged: [fp(a)],
    });
    const full = (await get(`/api/v1/scans/${scans[2]}/diff`)).body.data;
    expect(full.reopened[0]).toMatchObject({ status: 'reopened', target, engine: 'nmap' });
  });

  it('takes another base with ?base=, and refuses one of another target', async () => {
    expect(await diff(scans[2], `?base=${scans[0]}`)).toEqual({
      baseScanId: scans[0],
      new: [fp(c)],
      fixed: [],
      reopened: [],
      unchanged: [fp(a), fp(b)].sort(),
    });
    const elsewhere = await scan('nmap', '10.1.0.13', { findings: [] });
    for (const base of [elsewhere, randomUUID(), 'not-a-uuid']) {
      const response = await get(`/api/v1/scans/${scans[2]}/diff?base=${base}`);
      expect(response.status, base).toBe(400);
      expect(response.body.code).toBe('INVALID_FIELD_VALUE');
    }
  });

  it("answers 404 for another tenant's scan and 409 while the scan runs", async () => {
    const other = await get(`/api/v1/scans/${scans[2]}/diff`, otherKey);
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('SCAN_NOT_FOUND');
    const { id } = await createScan(ctx.app, key, { target, scanType: 'nmap' });
    await engines.nmap.waitFor(id);
    const running = await get(`/api/v1/scans/${id}/diff`);
    expect(running.status).toBe(409);
    expect(running.body.code).toBe('RESULTS_NOT_READY');
    engines.nmap.release(id, { findings: [a] as DraftFinding[] });
    await waitForStatus(ctx.app, key, id, ['completed']);
  });
});

describe('the results:triage scope', () => {
  it('is on a key created without scopes (the default is every scope)', async () => {
    const created = await createKey(ctx.app, await tokenFor(tenantId));
    expect(created.apiKey.scopes).toContain('results:triage');
  });
});
