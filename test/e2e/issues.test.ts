/**
 * Issues across rescans (issue 23, its foundation): scans run through the API and the worker with
 * held engine doubles (each run waits until the test releases it with findings and an ending),
 * and the issues their ends store, read from the database (the issues API comes later): new →
 * fixed → reopened over rescans of one target, a failed scan that fixes nothing, a sentinel
 * finding of two engines as one issue that a later scan of one engine finds again, two scans of
 * one target ending at once, an accepted risk whose expiry passed, and each finding's link to its
 * issue (issueId, baselineState, the triage of now) as the findings API shows it, and that list
 * filtered by triage in effect and by engine (extensions).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { expireTriages } from '../../src/adapters/db/issues.repository.js';
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import { fingerprintFinding } from '../../src/domain/findings/fingerprint.js';
import type { EngineRunOutput } from '../../src/use-cases/ports/engine-runs.js';
import { draftFinding, heldEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';
import { until } from '../support/until.js';

const engines = { nmap: heldEngine(), nuclei: heldEngine(), zap: heldEngine() };

const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '8',
    ALLOW_PRIVATE_TARGETS: 'true',
    WORKER_SHUTDOWN_GRACE_MS: '100',
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

type Engine = keyof typeof engines;

const db = () => ctx.database.handle.db;

/** Creates a scan of one engine and waits until it runs in its held double. */
async function started(engine: Engine, target: string): Promise<string> {
  const { id } = await createScan(ctx.app, key, { target, scanType: engine });
  await engines[engine].waitFor(id);
  return id;
}

async function ended(id: string): Promise<string> {
  return (await waitForStatus(ctx.app, key, id, ['completed', 'failed', 'cancelled'])).status;
}

/** Runs a scan of one engine that ends with `output`; returns its id once it has ended. */
async function scan(engine: Engine, target: string, output: Partial<EngineRunOutput>) {
  const id = await started(engine, target);
  engines[engine].release(id, output);
  return { id, status: await ended(id) };
}

interface IssueRow {
  id: string;
  fingerprint: string;
  engine: string;
  status: string;
  occurrences: number;
  first_scan_id: string;
  last_scan_id: string;
  title: string;
  triage: string;
}

async function issuesOf(target: string): Promise<IssueRow[]> {
  const { rows } = await sql<IssueRow>`
    select id, fingerprint, engine, status, occurrences, first_scan_id, last_scan_id, title, triage
    from issues where tenant_id = ${tenantId} and target = ${target}
    order by first_seen_at, fingerprint`.execute(db());
  return rows;
}

async function historyOf(issueId: string) {
  const { rows } = await sql<{
    kind: string;
    from_state: string | null;
    to_state: string;
    scan_id: string | null;
  }>`
    select kind, from_state, to_state, scan_id from issue_events where issue_id = ${issueId}
    order by id`.execute(db());
  return rows.map((row) => [row.kind, row.from_state, row.to_state, row.scan_id]);
}

function port(host: string, portNumber: number, service = 'http'): DraftFinding {
  return draftFinding({
    title: `Open port ${portNumber}/tcp (${service})`,
    location: { host, port: portNumber, protocol: 'tcp', url: null },
    raw: { portid: String(portNumber), service: { name: service } },
  });
}

describe('issues across rescans of one target', () => {
  it('opens, fixes and reopens issues; a failed scan fixes nothing', async () => {
    const target = '10.0.0.7';
    const ssh = port(target, 22, 'ssh');
    const web = port(target, 80);
    const [sshFp, webFp] = [fingerprintFinding('nmap', ssh), fingerprintFinding('nmap', web)];

    const first = await scan('nmap', target, { findings: [ssh, web] });
    expect(first.status).toBe('completed');
    let issues = await issuesOf(target);
    expect(issues.map((i) => [i.fingerprint, i.status, i.occurrences])).toEqual(
      [
        [sshFp, 'open', 1],
        [webFp, 'open', 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const byFp = (fp: string) => issues.find((issue) => issue.fingerprint === fp) as IssueRow;

    // Second scan: port 80 is gone.
    const second = await scan('nmap', target, { findings: [ssh] });
    issues = await issuesOf(target);
    expect(byFp(sshFp)).toMatchObject({ status: 'open', occurrences: 2, last_scan_id: second.id });
    expect(byFp(webFp)).toMatchObject({ status: 'fixed', occurrences: 1, last_scan_id: first.id });

    // A failed scan that saw nothing fixes nothing, and what it saw opens an issue.
    const telnet = port(target, 23, 'telnet');
    const failed = await scan('nmap', target, {
      findings: [telnet],
      ending: 'engine-error',
      message: 'nmap stopped',
    });
    expect(failed.status).toBe('failed');
    issues = await issuesOf(target);
    expect(byFp(sshFp)).toMatchObject({ status: 'open', occurrences: 2 });
    expect(byFp(fingerprintFinding('nmap', telnet))).toMatchObject({
      status: 'open',
      occurrences: 1,
      first_scan_id: failed.id,
    });

    // A completed scan without findings (the batched fast finish) fixes everything of nmap here.
    const empty = await scan('nmap', target, { findings: [] });
    issues = await issuesOf(target);
    expect(issues.map((issue) => issue.status)).toEqual(['fixed', 'fixed', 'fixed']);

    // Port 80 is back, with a new title: reopened, the latest finding's fields.
    const fourth = await scan('nmap', target, {
      findings: [{ ...web, title: 'Open port 80/tcp (http, nginx)' }],
    });
    issues = await issuesOf(target);
    expect(byFp(webFp)).toMatchObject({
      status: 'reopened',
      occurrences: 2,
      first_scan_id: first.id,
      last_scan_id: fourth.id,
      title: 'Open port 80/tcp (http, nginx)',
    });
    expect(await historyOf(byFp(webFp).id)).toEqual([
      ['status', null, 'open', first.id],
      ['status', 'open', 'fixed', second.id],
      ['status', 'fixed', 'reopened', fourth.id],
    ]);
    expect(await historyOf(byFp(sshFp).id)).toEqual([
      ['status', null, 'open', first.id],
      ['status', 'open', 'fixed', empty.id],
    ]);
  });

  it('leaves the issues of another engine and another target alone', async () => {
    const target = '10.0.0.8';
    await scan('nmap', target, { findings: [port(target, 443)] });
    await scan('nmap', '10.0.0.18', { findings: [] });
    await scan('nuclei', target, { findings: [] });
    expect((await issuesOf(target)).map((issue) => issue.status)).toEqual(['open']);
  });

  it('never makes two issues of one fingerprint when two scans of a target end at once', async () => {
    const target = '10.0.0.9';
    for (let round = 0; round < 3; round++) {
      const findings = [1, 2, 3, 4, 5].map((n) => port(target, 1000 * (round + 1) + n));
      const ids = await Promise.all([started('nmap', target), started('nmap', target)]);
      for (const id of ids) {
        engines.nmap.release(id, { findings });
      }
      expect(await Promise.all(ids.map(ended))).toEqual(['completed', 'completed']);
      const { rows } = await sql<{ fingerprint: string; n: number; occurrences: number }>`
        select fingerprint, count(*)::int as n, max(occurrences) as occurrences from issues
        where tenant_id = ${tenantId} and target = ${target} and port > ${1000 * (round + 1)}
          and port < ${1000 * (round + 2)}
        group by fingerprint`.execute(db());
      expect(rows).toHaveLength(5);
      expect(rows.every((row) => row.n === 1 && row.occurrences === 2)).toBe(true);
    }
  });
});

interface FindingLink {
  fingerprint: string;
  issueId: string | null;
  triage: string | null;
  baselineState: string | null;
}

/** A scan's findings through GET /api/v1/scans/:scanId/findings, by fingerprint. */
async function linksOf(scanId: string): Promise<Record<string, FindingLink>> {
  const response = await ctx.app.request(`/api/v1/scans/${scanId}/findings?limit=100`, {
    headers: { 'x-api-key': key },
  });
  expect(response.status, response.text).toBe(200);
  const findings = response.body.data.findings as FindingLink[];
  return Object.fromEntries(
    findings.map((finding) => [
      finding.fingerprint,
      {
        fingerprint: finding.fingerprint,
        issueId: finding.issueId,
        triage: finding.triage,
        baselineState: finding.baselineState,
      },
    ]),
  );
}

/** The fingerprints (sorted) and total of a scan's findings list filtered by `query`. */
async function filtered(scanId: string, query: string) {
  const response = await ctx.app.request(`/api/v1/scans/${scanId}/findings?limit=100&${query}`, {
    headers: { 'x-api-key': key },
  });
  expect(response.status, response.text).toBe(200);
  const findings = response.body.data.findings as FindingLink[];
  return {
    fingerprints: findings.map((finding) => finding.fingerprint).sort(),
    total: response.body.data.pagination.total as number,
  };
}

describe('findings with their issues', () => {
  it('links each finding to its issue with its baseline state and the triage of now', async () => {
    const target = '10.0.0.11';
    const ssh = port(target, 22, 'ssh');
    const web = port(target, 80);
    const [sshFp, webFp] = [fingerprintFinding('nmap', ssh), fingerprintFinding('nmap', web)];

    const first = await scan('nmap', target, { findings: [ssh, web] });
    const issueIds = Object.fromEntries(
      (await issuesOf(target)).map((issue) => [issue.fingerprint, issue.id]),
    );
    expect(await linksOf(first.id)).toEqual({
      [sshFp]: {
        fingerprint: sshFp,
        issueId: issueIds[sshFp],
        triage: 'none',
        baselineState: 'new',
      },
      [webFp]: {
        fingerprint: webFp,
        issueId: issueIds[webFp],
        triage: 'none',
        baselineState: 'new',
      },
    });

    // Same ssh; web rated differently: updated. Only the rated and named fields count.
    const second = await scan('nmap', target, {
      findings: [
        { ...ssh, description: 'another wording' },
        { ...web, severity: 'medium' },
      ],
    });
    let links = await linksOf(second.id);
    expect([links[sshFp]?.baselineState, links[webFp]?.baselineState]).toEqual([
      'unchanged',
      'updated',
    ]);

    // web gone (fixed), then back: new again (reopened); ssh still unchanged.
    await scan('nmap', target, { findings: [ssh] });
    const fourth = await scan('nmap', target, { findings: [ssh, web] });
    links = await linksOf(fourth.id);
    expect([links[sshFp]?.baselineState, links[webFp]?.baselineState]).toEqual([
      'unchanged',
      'new',
    ]);
    expect(links[webFp]?.issueId).toBe(issueIds[webFp]);

    // A triage set now shows on the findings of every scan that found the issue.
    const patched = await ctx.app.request(`/api/v1/issues/${issueIds[sshFp]}`, {
      method: 'PATCH',
      headers: { 'x-api-key': key },
      json: { triage: 'out_of_scope', reason: 'lab' },
    });
    expect(patched.status, patched.text).toBe(200);
    for (const id of [first.id, second.id, fourth.id]) {
      expect((await linksOf(id))[sshFp]?.triage).toBe('out_of_scope');
      expect((await linksOf(id))[webFp]?.triage).toBe('none');
    }
    // The list filters on it (an extension), with its totals, combined with the other filters.
    expect(await filtered(first.id, 'triage=out_of_scope')).toEqual({
      fingerprints: [sshFp],
      total: 1,
    });
    expect(await filtered(first.id, 'triage=none')).toEqual({ fingerprints: [webFp], total: 1 });
    expect(await filtered(first.id, 'triage=none&engine=nmap&severity=info')).toEqual({
      fingerprints: [webFp],
      total: 1,
    });
    expect(await filtered(first.id, 'triage=none&engine=zap')).toEqual({
      fingerprints: [],
      total: 0,
    });
    expect(await filtered(first.id, 'triage=false_positive')).toEqual({
      fingerprints: [],
      total: 0,
    });
    // An accepted risk not yet expired is one.
    await sql`update issues set triage = 'accepted_risk', triage_reason = 'lab',
      triage_expires_at = now() + interval '1 day' where id = ${issueIds[sshFp]}`.execute(db());
    expect(await filtered(first.id, 'triage=accepted_risk')).toEqual({
      fingerprints: [sshFp],
      total: 1,
    });
    // An accepted risk past its expiry reads none on the findings too, before it is stored so,
    // and the triage filter counts it as none.
    await sql`update issues set triage_expires_at = now() - interval '1 second'
      where id = ${issueIds[sshFp]}`.execute(db());
    expect((await linksOf(first.id))[sshFp]?.triage).toBe('none');
    expect(await filtered(first.id, 'triage=none')).toEqual({
      fingerprints: [sshFp, webFp].sort(),
      total: 2,
    });
    expect(await filtered(first.id, 'triage=accepted_risk')).toEqual({
      fingerprints: [],
      total: 0,
    });
  });
});

describe('issues of sentinel scans', () => {
  const target = 'http://10.0.0.5:8080/search?q=1';

  const zapSqli = draftFinding({
    ruleId: '40018',
    title: 'SQL Injection',
    severity: 'high',
    toolSeverity: 'High',
    category: 'vulnerability',
    location: { host: '10.0.0.5', port: 8080, protocol: 'tcp', url: target },
    identifiers: { cve: [], cwe: ['CWE-89'] },
    raw: {
      pluginid: '40018',
      confidence: '2',
      instances: [{ uri: target, method: 'GET', param: 'q' }],
    },
  });
  const nucleiSqli = draftFinding({
    ruleId: 'generic-sqli',
    title: 'SQL injection (error based)',
    severity: 'critical',
    toolSeverity: 'critical',
    category: 'vulnerability',
    location: { host: '10.0.0.5', port: 8080, protocol: 'tcp', url: 'http://10.0.0.5:8080/search' },
    identifiers: { cve: [], cwe: ['CWE-89'] },
    raw: { templateId: 'generic-sqli', matchedAt: [target] },
  });

  async function sentinel(outputs: Record<'nuclei' | 'zap', Partial<EngineRunOutput>>) {
    const { id } = await createScan(ctx.app, key, {
      target,
      scanType: 'sentinel',
      options: { engines: ['nuclei', 'zap'] },
    });
    const children = await until(
      async () =>
        (
          await sql<{ id: string; scan_type: 'nuclei' | 'zap' }>`
            select id, scan_type from scans where parent_scan_id = ${id}`.execute(db())
        ).rows,
      (rows) => rows.length === 2,
    );
    for (const child of children) {
      await engines[child.scan_type].waitFor(child.id);
    }
    for (const child of children) {
      engines[child.scan_type].release(child.id, outputs[child.scan_type]);
    }
    return { id, status: await ended(id) };
  }

  it('makes one issue of a finding two engines report, found again by one engine alone', async () => {
    const first = await sentinel({
      nuclei: { findings: [nucleiSqli] },
      zap: { findings: [zapSqli] },
    });
    expect(first.status).toBe('completed');
    const fingerprints = [
      fingerprintFinding('nuclei', nucleiSqli),
      fingerprintFinding('zap', zapSqli),
    ];
    let issues = await issuesOf(target);
    expect(issues).toHaveLength(1);
    const [issue] = issues as [IssueRow];
    expect(fingerprints).toContain(issue.fingerprint);
    expect(issue).toMatchObject({ status: 'open', occurrences: 1, first_scan_id: first.id });
    const { rows: keys } = await sql<{ fingerprint: string }>`
      select fingerprint from issue_keys where issue_id = ${issue.id} order by fingerprint`.execute(
      db(),
    );
    expect(keys.map((row) => row.fingerprint)).toEqual([...fingerprints].sort());
    // No issue for the children's own findings: the parent's correlated finding is the issue.
    const { rows: all } = await sql<{ n: number }>`
      select count(*)::int as n from issues where tenant_id = ${tenantId} and target like 'http://10.0.0.5%'`.execute(
      db(),
    );
    expect(all[0]?.n).toBe(1);
    // The parent's finding is that issue; the children's findings feed none.
    expect(Object.values(await linksOf(first.id))).toEqual([
      expect.objectContaining({ issueId: issue.id, baselineState: 'new', triage: 'none' }),
    ]);
    const { rows: childIds } = await sql<{ id: string }>`
      select id from scans where parent_scan_id = ${first.id}`.execute(db());
    for (const child of childIds) {
      const links = Object.values(await linksOf(child.id));
      expect(links).toHaveLength(1);
      for (const link of links) {
        expect(link).toMatchObject({ issueId: null, triage: null, baselineState: null });
      }
      // Without an issue (triage null), a finding matches no triage state.
      for (const state of ['none', 'false_positive', 'accepted_risk', 'out_of_scope']) {
        expect(await filtered(child.id, `triage=${state}`)).toEqual({ fingerprints: [], total: 0 });
      }
    }
    // The parent's finding names the child engine it came from, which the engine filter matches.
    const listed = await ctx.app.request(`/api/v1/scans/${first.id}/findings`, {
      headers: { 'x-api-key': key },
    });
    const [parentFinding] = listed.body.data.findings as { engine: string; fingerprint: string }[];
    const primary = parentFinding?.engine ?? '';
    expect(['nuclei', 'zap']).toContain(primary);
    expect(await filtered(first.id, `engine=${primary}`)).toEqual({
      fingerprints: [parentFinding?.fingerprint],
      total: 1,
    });
    for (const other of ['nuclei', 'zap', 'nmap'].filter((name) => name !== primary)) {
      expect(await filtered(first.id, `engine=${other}`)).toEqual({ fingerprints: [], total: 0 });
    }

    // zap alone, later, on the same target: the same issue.
    const alone = await scan('zap', target, { findings: [zapSqli] });
    issues = await issuesOf(target);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      id: issue.id,
      occurrences: 2,
      last_scan_id: alone.id,
      engine: 'zap',
    });

    // A sentinel scan whose engines both completed without it: fixed; found again: reopened.
    const clean = await sentinel({ nuclei: { findings: [] }, zap: { findings: [] } });
    expect((await issuesOf(target))[0]).toMatchObject({ status: 'fixed', last_scan_id: alone.id });
    const back = await sentinel({
      nuclei: { findings: [nucleiSqli] },
      zap: { findings: [zapSqli] },
    });
    expect((await issuesOf(target))[0]).toMatchObject({ status: 'reopened', occurrences: 3 });
    expect((await historyOf(issue.id)).map((row) => row.slice(1))).toEqual([
      [null, 'open', first.id],
      ['open', 'fixed', clean.id],
      ['fixed', 'reopened', back.id],
    ]);
  });

  it('fixes nothing of an engine whose child did not complete', async () => {
    const before = (await issuesOf(target))[0] as IssueRow;
    expect(before.status).toBe('reopened');
    // zap reported it; nuclei failed: nuclei could not have seen it, so the issue (zap's or
    // nuclei's) only moves if its engine's child completed without it.
    const partial = await sentinel({
      nuclei: { findings: [], ending: 'engine-error', message: 'nuclei stopped' },
      zap: { findings: [] },
    });
    expect(partial.status).toBe('completed');
    const after = (await issuesOf(target))[0] as IssueRow;
    expect(after.status).toBe(before.engine === 'zap' ? 'fixed' : 'reopened');
  });
});

describe('triage expiry', () => {
  it('returns an accepted risk whose expiry passed to none, with a history row', async () => {
    const target = '10.0.0.10';
    await scan('nmap', target, { findings: [port(target, 8443)] });
    const [issue] = (await issuesOf(target)) as [IssueRow];
    await sql`update issues set triage = 'accepted_risk', triage_reason = 'lab host',
      triaged_by = 'key', triaged_at = now() - interval '2 days',
      triage_expires_at = now() - interval '1 day' where id = ${issue.id}`.execute(db());
    // The next scan of the tenant expires it before it updates the issues.
    await scan('nmap', target, { findings: [port(target, 8443)] });
    const { rows } = await sql<{
      triage: string;
      triaged_by: string;
      triage_expires_at: Date | null;
    }>`
      select triage, triaged_by, triage_expires_at from issues where id = ${issue.id}`.execute(
      db(),
    );
    expect(rows[0]).toEqual({ triage: 'none', triaged_by: 'expiry', triage_expires_at: null });
    expect((await historyOf(issue.id)).filter((row) => row[0] === 'triage')).toEqual([
      ['triage', 'accepted_risk', 'none', null],
    ]);
    // Housekeeping's sweep over every tenant: one not yet expired stays.
    await sql`update issues set triage = 'accepted_risk', triage_reason = 'lab host',
      triage_expires_at = now() + interval '1 day' where id = ${issue.id}`.execute(db());
    expect(await expireTriages(db())).toBe(0);
    await sql`update issues set triage_expires_at = now() - interval '1 second' where id = ${issue.id}`.execute(
      db(),
    );
    expect(await expireTriages(db())).toBe(1);
  });
});
