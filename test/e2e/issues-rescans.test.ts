/**
 * Issues across rescans with the real scanners (issue 23, "Done when"): the deliberately vulnerable
 * test app is scanned by the real wapiti three times and by the real sqlmap twice, through the API
 * and the worker. Scan 1 finds its XSS and its SQL injection; both SQL injections are then triaged
 * false positives. Before scan 2 the app's XSS is fixed (its page escapes its input): the XSS issue
 * is `fixed` and the SQL injection `unchanged` (the issues list, the issue and the diff). Before
 * scan 3 the XSS is back: `reopened` (diff, status, history), and the false positive set after
 * scan 1 is still on the SQL injection's findings of scan 3, in the results, the findings, SARIF
 * (`suppressions`), CSV and the DefectDojo file; every finding's `baselineState` is checked, in
 * JSON and SARIF, and the SARIF of these real scans passes the SARIF Multitool's validation.
 * Another tenant gets 404 for these issues.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKey, tokenFor } from '../support/harness.js';
import { type ExportedSarif, expectSchemaValid, exportSarif } from '../support/sarif.js';
import { createScan } from '../support/scans.js';
import { useWebScanApp } from '../support/web-scan.js';

const ctx = useWebScanApp(['wapiti', 'sqlmap']);

const XSS_RULE = 'cross-site-scripting:GET:name';
const SQLI_RULE = 'sql-injection:GET:q';
const REASON = "the shop's test database, reachable only from the lab";

interface FindingView {
  id: string;
  ruleId: string;
  fingerprint: string;
  issueId: string | null;
  triage: string | null;
  baselineState: string | null;
}

interface IssueView {
  id: string;
  status: string;
  triage: string;
  triageReason: string | null;
}

interface SarifIssueResult {
  ruleId: string;
  baselineState?: string;
  suppressions?: Array<Record<string, unknown>>;
  properties: { findingId: string; issueId?: string };
}

const get = (path: string, key = ctx.key) =>
  ctx.app.request(path, { headers: { 'x-api-key': key } });

/** A real wapiti scan of the app (the two modules that find its flaws, a shallow crawl). */
async function wapiti(): Promise<string> {
  const { id } = await createScan(ctx.app, ctx.key, {
    target: ctx.vulnerable.url,
    scanType: 'wapiti',
    options: { modules: ['xss', 'sql'], maxDepth: 2 },
  });
  const scan = await ctx.waitUntilEnded(id, 120_000);
  expect(scan.error).toBeUndefined();
  expect(scan.status).toBe('completed');
  return id;
}

/** The search page's URL: sqlmap's target (an issue target of its own). */
const searchUrl = () => `${ctx.vulnerable.url}search?q=apple`;

/** A real sqlmap scan of the search page (three fast techniques). */
async function sqlmap(): Promise<string> {
  const { id } = await createScan(ctx.app, ctx.key, {
    target: searchUrl(),
    scanType: 'sqlmap',
    options: { technique: 'BEU' },
  });
  const scan = await ctx.waitUntilEnded(id, 120_000);
  expect(scan.error).toBeUndefined();
  expect(scan.status).toBe('completed');
  return id;
}

async function findingsOf(scanId: string): Promise<FindingView[]> {
  const response = await get(`/api/v1/scans/${scanId}/findings?limit=100`);
  expect(response.status, response.text).toBe(200);
  return response.body.data.findings;
}

function byRule(findings: FindingView[], ruleId: string): FindingView {
  const found = findings.filter((finding) => finding.ruleId === ruleId);
  expect(found, ruleId).toHaveLength(1);
  return found[0] as FindingView;
}

async function issue(issueId: string) {
  const response = await get(`/api/v1/issues/${issueId}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data.issue as IssueView & {
    history: Array<{ kind: string; from: string | null; to: string; scanId: string | null }>;
  };
}

async function diff(scanId: string) {
  const response = await get(`/api/v1/scans/${scanId}/diff`);
  expect(response.status, response.text).toBe(200);
  const data = response.body.data;
  const ids = (list: IssueView[]) => list.map((one) => one.id);
  return {
    baseScanId: data.baseScanId as string | null,
    new: ids(data.new),
    fixed: ids(data.fixed),
    reopened: ids(data.reopened),
    unchanged: ids(data.unchanged),
  };
}

async function triage(issueId: string, body: Record<string, unknown>) {
  const response = await ctx.app.request(`/api/v1/issues/${issueId}`, {
    method: 'PATCH',
    headers: { 'x-api-key': ctx.key },
    json: body,
  });
  expect(response.status, response.text).toBe(200);
}

/**
 * Every result of a scan's SARIF carries its finding's baseline state and suppressions (SARIF:
 * on all results of a run or none), as the findings API shows them; answers the results by rule.
 */
async function sarifOf(scanId: string, findings: FindingView[]) {
  const sarif = await exportSarif(ctx.app, ctx.key, scanId);
  const results = sarif.log.runs[0].results as unknown as SarifIssueResult[];
  expect(results).toHaveLength(findings.length);
  for (const result of results) {
    const finding = findings.find((one) => one.id === result.properties.findingId);
    expect(result.baselineState, result.ruleId).toBe(finding?.baselineState);
    expect(result.properties.issueId, result.ruleId).toBe(finding?.issueId);
    expect(Array.isArray(result.suppressions), result.ruleId).toBe(true);
    expect(result.suppressions?.length, result.ruleId).toBe(finding?.triage === 'none' ? 0 : 1);
  }
  const rule = (ruleId: string) => results.find((result) => result.ruleId === ruleId);
  return { sarif, rule };
}

const FALSE_POSITIVE_SUPPRESSION = {
  kind: 'external',
  status: 'accepted',
  justification: REASON,
  properties: { triage: 'false_positive' },
};

describe('issues across real rescans of the vulnerable app', () => {
  const scans = { w1: '', w2: '', w3: '', s1: '', s3: '' };
  const issues = { xss: '', sqli: '', sqlmap: '' };
  const logs: Record<string, ExportedSarif> = {};

  it('scan 1 (wapiti, sqlmap): every finding new, each with its issue', async () => {
    scans.w1 = await wapiti();
    scans.s1 = await sqlmap();
    const found = await findingsOf(scans.w1);
    for (const finding of found) {
      expect(finding, finding.ruleId).toMatchObject({ triage: 'none', baselineState: 'new' });
      expect(finding.issueId, finding.ruleId).toMatch(/^[0-9a-f-]{36}$/);
    }
    issues.xss = byRule(found, XSS_RULE).issueId as string;
    issues.sqli = byRule(found, SQLI_RULE).issueId as string;
    const [sqlmapFinding] = await findingsOf(scans.s1);
    expect(sqlmapFinding).toMatchObject({
      ruleId: SQLI_RULE,
      triage: 'none',
      baselineState: 'new',
    });
    issues.sqlmap = sqlmapFinding?.issueId as string;
    // Different targets (the app, its search page): three issues.
    expect(new Set(Object.values(issues)).size).toBe(3);

    const first = await diff(scans.w1);
    expect(first.baseScanId).toBeNull();
    expect(first.new).toEqual(expect.arrayContaining([issues.xss, issues.sqli]));
    expect(first.fixed).toEqual([]);
    logs.w1 = (await sarifOf(scans.w1, found)).sarif;
    logs.s1 = (await sarifOf(scans.s1, await findingsOf(scans.s1))).sarif;

    // Both SQL injections are declared false positives after the first scan.
    await triage(issues.sqli, { triage: 'false_positive', reason: REASON });
    await triage(issues.sqlmap, { triage: 'false_positive', reason: REASON });
    // The triage of now shows on the findings of the scan before it.
    expect(byRule(await findingsOf(scans.w1), SQLI_RULE).triage).toBe('false_positive');
    expect(byRule(await findingsOf(scans.w1), XSS_RULE).triage).toBe('none');
  });

  it('scan 2 with the XSS fixed: its issue fixed, the SQL injection unchanged', async () => {
    ctx.vulnerable.setFixed('xss', true);
    scans.w2 = await wapiti();
    const found = await findingsOf(scans.w2);
    expect(found.filter((finding) => finding.ruleId === XSS_RULE)).toEqual([]);
    expect(byRule(found, SQLI_RULE)).toMatchObject({
      issueId: issues.sqli,
      triage: 'false_positive',
      baselineState: 'unchanged',
    });

    const second = await diff(scans.w2);
    expect(second.baseScanId).toBe(scans.w1);
    expect(second.fixed).toContain(issues.xss);
    expect(second.unchanged).toContain(issues.sqli);
    expect([...second.new, ...second.reopened]).not.toContain(issues.xss);

    const target = encodeURIComponent(ctx.vulnerable.url);
    const listed = await get(`/api/v1/issues?target=${target}&limit=100`);
    expect(listed.status, listed.text).toBe(200);
    const statusOf = (id: string) =>
      (listed.body.data.issues as IssueView[]).find((one) => one.id === id)?.status;
    expect(statusOf(issues.xss)).toBe('fixed');
    expect(statusOf(issues.sqli)).toBe('open');
    expect(await issue(issues.sqli)).toMatchObject({
      status: 'open',
      triage: 'false_positive',
      triageReason: REASON,
    });
    logs.w2 = (await sarifOf(scans.w2, found)).sarif;
  });

  it('scan 3 with the XSS back: reopened; the false positive still on the SQL injection', async () => {
    ctx.vulnerable.setFixed('xss', false);
    scans.w3 = await wapiti();
    scans.s3 = await sqlmap();

    const third = await diff(scans.w3);
    expect(third.baseScanId).toBe(scans.w2);
    expect(third.reopened).toContain(issues.xss);
    expect(third.unchanged).toContain(issues.sqli);
    expect(third.new).not.toContain(issues.xss);
    const xss = await issue(issues.xss);
    expect(xss.status).toBe('reopened');
    expect(
      xss.history
        .filter((event) => event.kind === 'status')
        .map((event) => [event.from, event.to, event.scanId]),
    ).toEqual([
      [null, 'open', scans.w1],
      ['open', 'fixed', scans.w2],
      ['fixed', 'reopened', scans.w3],
    ]);

    // The findings of scan 3: the XSS new again (its issue was fixed), the SQL injection unchanged
    // and still a false positive; the same in the results envelope.
    const found = await findingsOf(scans.w3);
    expect(byRule(found, XSS_RULE)).toMatchObject({
      issueId: issues.xss,
      triage: 'none',
      baselineState: 'new',
    });
    expect(byRule(found, SQLI_RULE)).toMatchObject({
      issueId: issues.sqli,
      triage: 'false_positive',
      baselineState: 'unchanged',
    });
    const results = await get(`/api/v1/scans/${scans.w3}/results?limit=100`);
    expect(results.status, results.text).toBe(200);
    expect(byRule(results.body.data.findings, SQLI_RULE)).toMatchObject({
      issueId: issues.sqli,
      triage: 'false_positive',
      baselineState: 'unchanged',
    });
    const [sqlmapFinding] = await findingsOf(scans.s3);
    expect(sqlmapFinding).toMatchObject({
      issueId: issues.sqlmap,
      triage: 'false_positive',
      baselineState: 'unchanged',
    });

    // SARIF: the baseline states, and the false positive as an accepted external suppression.
    const w3 = await sarifOf(scans.w3, found);
    expect(w3.rule(SQLI_RULE)).toMatchObject({
      baselineState: 'unchanged',
      suppressions: [FALSE_POSITIVE_SUPPRESSION],
    });
    expect(w3.rule(XSS_RULE)).toMatchObject({ baselineState: 'new', suppressions: [] });
    const s3 = await sarifOf(scans.s3, await findingsOf(scans.s3));
    expect(s3.rule(SQLI_RULE)).toMatchObject({
      baselineState: 'unchanged',
      suppressions: [FALSE_POSITIVE_SUPPRESSION],
    });
    logs.w3 = w3.sarif;
    logs.s3 = s3.sarif;

    // CSV and DefectDojo say the same of the SQL injection.
    const csv = await get(`/api/v1/scans/${scans.w3}/results?format=csv`);
    expect(csv.status).toBe(200);
    const sqliFinding = byRule(found, SQLI_RULE);
    const row = csv.text.split('\r\n').find((line) => line.startsWith(`${sqliFinding.id},`));
    expect(row?.endsWith(`,${issues.sqli},false_positive,unchanged`)).toBe(true);
    const dojo = await get(`/api/v1/scans/${scans.w3}/results?format=defectdojo`);
    expect(dojo.status).toBe(200);
    const dojoFindings = JSON.parse(dojo.text).findings as Array<Record<string, unknown>>;
    expect(
      dojoFindings.find((one) => one.unique_id_from_tool === sqliFinding.fingerprint),
    ).toMatchObject({ active: false, false_p: true });
    const dojoXss = dojoFindings.find(
      (one) => one.unique_id_from_tool === byRule(found, XSS_RULE).fingerprint,
    );
    expect(dojoXss).toBeDefined();
    expect(dojoXss).not.toHaveProperty('false_p');
    expect(dojoXss).not.toHaveProperty('active');
  });

  it('the SARIF of these real scans passes the SARIF Multitool', async () => {
    expect(Object.keys(logs).sort()).toEqual(['s1', 's3', 'w1', 'w2', 'w3']);
    await expectSchemaValid(Object.fromEntries(Object.entries(logs).map(([n, l]) => [n, l.text])));
  });

  it('gives another tenant 404 ISSUE_NOT_FOUND for these issues and changes nothing', async () => {
    const other = (
      await createKey(ctx.app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 })
    ).rawKey;
    for (const id of Object.values(issues)) {
      const read = await get(`/api/v1/issues/${id}`, other);
      expect(read.status).toBe(404);
      expect(read.body.code).toBe('ISSUE_NOT_FOUND');
      const changed = await ctx.app.request(`/api/v1/issues/${id}`, {
        method: 'PATCH',
        headers: { 'x-api-key': other },
        json: { triage: 'none' },
      });
      expect(changed.status).toBe(404);
      expect(changed.body.code).toBe('ISSUE_NOT_FOUND');
    }
    expect((await issue(issues.sqli)).triage).toBe('false_positive');
  });
});
