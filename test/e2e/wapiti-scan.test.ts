/**
 * The whole path with the real wapiti: POST /api/v1/scans → worker → wapiti (argument array,
 * private workspace as HOME) → JSON report streamed through the parser → findings over HTTP. The
 * target is the deliberately vulnerable test app on 127.0.0.2 (ALLOW_PRIVATE_TARGETS, as a
 * deployment scanning its own network would set it).
 */

import { describe, expect, it } from 'vitest';
import { watchCommandLines } from '../support/engine-runs.js';
import { expectConsumerReady, expectSchemaValid, exportSarif } from '../support/sarif.js';
import { defectDojoFindings, gitHubSecuritySeverity } from '../support/sarif-consumers.js';
import { createScan } from '../support/scans.js';
import { useWebScanApp } from '../support/web-scan.js';

/**
 * A worker running only wapiti, through the runners a worker builds at start; the vulnerable app;
 * a key polled every 250 ms (wapiti runs for seconds), well inside its generous per-minute limit.
 */
const ctx = useWebScanApp('wapiti');
const { runners } = ctx;

describe('wapiti, for real', () => {
  it('the worker registers wapiti from its engine command', () => {
    expect([...runners.keys()]).toEqual(['wapiti']);
  });

  it('finds the planted XSS and SQL injection and serves them as findings at their URLs', async () => {
    const started = Date.now();
    const { id } = await createScan(ctx.app, ctx.key, {
      target: ctx.vulnerable.url,
      scanType: 'wapiti',
      // Only the two modules that matter here, and a shallow crawl: a few seconds.
      options: { modules: ['xss', 'sql'], maxDepth: 2 },
    });
    const scan = await ctx.waitUntilEnded(id, 90_000);
    expect(scan.error).toBeUndefined();
    expect(scan).toMatchObject({
      status: 'completed',
      progress: 100,
      options: { modules: ['xss', 'sql'], maxDepth: 2, scope: 'domain' },
    });
    expect(Date.now() - started).toBeLessThan(60_000);

    const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
      headers: { 'x-api-key': ctx.key },
    });
    expect(response.status, response.text).toBe(200);
    const findings: Array<Record<string, unknown>> = response.body.data.findings;
    const port = Number(new URL(ctx.vulnerable.url).port);
    // Categories and severities of the weakness table (weakness-severity.ts), as sqlmap's.
    const vulnerabilities = findings.filter((finding) =>
      ['sql-injection', 'xss'].includes(String(finding.category)),
    );
    expect(vulnerabilities.map((finding) => finding.ruleId).sort()).toEqual([
      'cross-site-scripting:GET:name',
      'sql-injection:GET:q',
    ]);
    expect(findings.find((finding) => finding.ruleId === 'sql-injection:GET:q')).toMatchObject({
      engine: 'wapiti',
      title: 'SQL Injection in /search (parameter q)',
      severity: 'critical',
      category: 'sql-injection',
      location: { host: '127.0.0.2', port, protocol: 'tcp', url: `${ctx.vulnerable.url}search` },
      identifiers: { cve: [], cwe: ['CWE-89'] },
    });
    expect(findings.find((f) => f.ruleId === 'cross-site-scripting:GET:name')).toMatchObject({
      engine: 'wapiti',
      title: 'Cross Site Scripting in /hello (parameter name)',
      severity: 'high',
      toolSeverity: '2',
      category: 'xss',
      location: { host: '127.0.0.2', port, protocol: 'tcp', url: `${ctx.vulnerable.url}hello` },
      identifiers: { cve: [], cwe: ['CWE-79'] },
    });
    expect(scan.findingsSummary).toMatchObject({ critical: 1, high: 1 });

    // The SARIF export of the same scan: the official schema, and what GitHub and DefectDojo read.
    const sarif = await exportSarif(ctx.app, ctx.key, id);
    expectConsumerReady(sarif);
    const [run] = sarif.log.runs;
    expect(run.results).toHaveLength(findings.length);
    const imported = defectDojoFindings(sarif.log);
    const rules = new Map(run.tool.driver.rules.map((rule) => [rule.id, rule]));
    for (const [ruleId, url, severity, score, label] of [
      ['sql-injection:GET:q', `${ctx.vulnerable.url}search`, 'Critical', '9.5', 'critical'],
      ['cross-site-scripting:GET:name', `${ctx.vulnerable.url}hello`, 'High', '8.0', 'high'],
    ] as const) {
      const index = run.results.findIndex((result) => result.ruleId === ruleId);
      expect(run.results[index]?.locations[0]?.physicalLocation.artifactLocation.uri).toBe(url);
      expect(imported[index]).toMatchObject({ severity, filePath: url, vulnIdFromTool: ruleId });
      expect(rules.get(ruleId)?.properties['security-severity']).toBe(score);
      expect(gitHubSecuritySeverity(rules.get(ruleId))).toBe(label);
    }
    await expectSchemaValid({ wapiti: sarif.text });
  }, 120_000);

  /** A scan of `target` with the xss and sql modules; answers the scan and its vulnerabilities. */
  async function vulnerabilitiesFound(target: string, config?: Record<string, unknown>) {
    const { id } = await createScan(ctx.app, ctx.key, {
      target,
      scanType: 'wapiti',
      options: { modules: ['xss', 'sql'], maxDepth: 3 },
      ...(config === undefined ? {} : { config }),
    });
    const scan = await ctx.waitUntilEnded(id, 90_000);
    expect(scan.error).toBeUndefined();
    expect(scan.status).toBe('completed');
    const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
      headers: { 'x-api-key': ctx.key },
    });
    expect(response.status, response.text).toBe(200);
    const findings: Array<{ category: string; ruleId: string; location: { url: string } }> =
      response.body.data.findings;
    return {
      scan,
      findings,
      found: findings
        .filter((finding) => ['sql-injection', 'xss'].includes(finding.category))
        .map((finding) => `${finding.ruleId} ${finding.location.url}`)
        .sort(),
    };
  }

  it('finds nothing behind the login without the session cookie', async () => {
    // wapiti crawls the whole origin (the default scope): only the pages outside the login.
    const { found } = await vulnerabilitiesFound(`${ctx.vulnerable.url}auth/`);
    expect(found.filter((finding) => finding.includes('/auth/'))).toEqual([]);
    expect(found).toHaveLength(2);
  }, 120_000);

  it('a whole-site scan with the session cookie and the reset page excluded finds the flaws behind the login and never visits the reset page', async () => {
    const cookie = await ctx.vulnerable.login();
    const started = Date.now();
    // A header too: wapiti takes header values only on its argv (README), never logged here.
    const header = `h-${cookie.value.slice(0, 8)}-${Date.now()}`;
    const argv = watchCommandLines(['wapiti']);
    const { scan, findings, found } = await vulnerabilitiesFound(ctx.vulnerable.url, {
      cookies: { [cookie.name]: cookie.value },
      headers: { 'X-Rampart-Test': header },
      exclude: ['/auth/reset*'],
    });
    const commandLines = argv.stop();
    const url = ctx.vulnerable.url;
    expect(found).toEqual([
      `cross-site-scripting:GET:name ${url}auth/hello`,
      `cross-site-scripting:GET:name ${url}hello`,
      `sql-injection:GET:q ${url}auth/search`,
      `sql-injection:GET:q ${url}search`,
    ]);
    expect(ctx.vulnerable.resetVisits).toBe(0);
    expect(scan.config).toEqual({
      cookies: { session: '********' },
      headers: { 'X-Rampart-Test': '********' },
      exclude: ['/auth/reset*'],
    });
    for (const secret of [cookie.value, header]) {
      expect(ctx.app.logs.join('')).not.toContain(secret);
      expect(JSON.stringify({ scan, findings })).not.toContain(secret);
    }
    // The argv wapiti ran with (as the kernel showed it while it ran): the cookie went through
    // the cookie file; a header value can only be an argument (README.md, "Credentials on the
    // argv").
    expect(commandLines.some((line) => /--cookie=\S*\/cookies\.json\b/.test(line))).toBe(true);
    for (const line of commandLines) {
      expect(line).not.toContain(cookie.value);
    }
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  // Last: this one resets the app (its flaws behind the login are gone afterwards).
  it('the control: without the exclusion the same scan visits the reset page', async () => {
    const cookie = await ctx.vulnerable.login();
    await vulnerabilitiesFound(ctx.vulnerable.url, { cookies: { [cookie.name]: cookie.value } });
    expect(ctx.vulnerable.resetVisits).toBeGreaterThan(0);
  }, 120_000);
});
