/**
 * The whole path with the real sqlmap: POST /api/v1/scans → worker → sqlmap (argument array,
 * private workspace) → `out/<host>/log` streamed through the parser → findings over HTTP. The
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
 * A worker running only sqlmap, through the runners a worker builds at start; the vulnerable app;
 * a key polled every 250 ms (sqlmap runs for seconds), well inside its generous per-minute limit.
 */
const ctx = useWebScanApp('sqlmap');
const { runners } = ctx;

async function scanAndGetFindings(target: string, config?: Record<string, unknown>) {
  const { id } = await createScan(ctx.app, ctx.key, {
    target,
    scanType: 'sqlmap',
    // Fast and gentle: the specification's level and risk defaults, three techniques.
    options: { technique: 'BEU' },
    ...(config === undefined ? {} : { config }),
  });
  const scan = await ctx.waitUntilEnded(id, 90_000);
  const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
    headers: { 'x-api-key': ctx.key },
  });
  expect(response.status, response.text).toBe(200);
  return { id, scan, findings: response.body.data.findings };
}

describe('sqlmap, for real', () => {
  it('the worker registers sqlmap from its engine command', () => {
    expect([...runners.keys()]).toEqual(['sqlmap']);
  });

  it('finds the planted SQL injection and serves it as a critical CWE-89 finding at the URL', async () => {
    const target = `${ctx.vulnerable.url}search?q=apple`;
    const first = await scanAndGetFindings(target);
    expect(first.scan.error).toBeUndefined();
    expect(first.scan).toMatchObject({ status: 'completed', progress: 100, resultCount: 1 });
    expect(first.findings).toHaveLength(1);
    expect(first.findings[0]).toMatchObject({
      engine: 'sqlmap',
      ruleId: 'sql-injection:GET:q',
      title: 'SQL injection in GET parameter `q`',
      // One severity per weakness (weakness-severity.ts): SQL injection is critical, as wapiti's.
      severity: 'critical',
      category: 'sql-injection',
      location: {
        host: '127.0.0.2',
        port: Number(new URL(ctx.vulnerable.url).port),
        protocol: 'tcp',
        url: target,
      },
      identifiers: { cve: [], cwe: ['CWE-89'] },
    });
    expect(first.findings[0].evidence).toContain('back-end DBMS: PostgreSQL');

    // The SARIF export of the same scan: the official schema, and what GitHub and DefectDojo read.
    const sarif = await exportSarif(ctx.app, ctx.key, first.id);
    expectConsumerReady(sarif);
    const [run] = sarif.log.runs;
    expect(run.results).toMatchObject([
      {
        ruleId: 'sql-injection:GET:q',
        level: 'error',
        locations: [{ physicalLocation: { artifactLocation: { uri: target } } }],
        partialFingerprints: { 'rampart/v1': first.findings[0].fingerprint },
      },
    ]);
    expect(run.tool.driver.rules[0]?.properties).toMatchObject({
      'security-severity': '9.5',
      precision: 'high',
      tags: ['security', 'sql-injection', 'CWE-89'],
    });
    expect(defectDojoFindings(sarif.log)).toMatchObject([
      {
        severity: 'Critical',
        cwe: 89,
        uniqueIdFromTool: `rampart:${first.findings[0].fingerprint}`,
      },
    ]);
    expect(gitHubSecuritySeverity(run.tool.driver.rules[0])).toBe('critical');
    await expectSchemaValid({ sqlmap: sarif.text });

    // A rescan sends other random payloads; the finding keeps its fingerprint.
    const second = await scanAndGetFindings(target);
    expect(second.scan.status).toBe('completed');
    expect(second.findings.map((f: { fingerprint: string }) => f.fingerprint)).toEqual([
      first.findings[0].fingerprint,
    ]);
  }, 180_000);

  it('behind the login: finds the injection with the session cookie in config, nothing without it', async () => {
    const target = `${ctx.vulnerable.url}auth/search?q=apple`;
    const cookie = await ctx.vulnerable.login();
    const without = await scanAndGetFindings(target);
    expect(without.scan).toMatchObject({ status: 'completed', resultCount: 0 });
    expect(without.findings).toEqual([]);

    const argv = watchCommandLines(['sqlmap']);
    const withCookie = await scanAndGetFindings(target, {
      cookies: { [cookie.name]: cookie.value },
      userAgent: 'Rampart sqlmap test',
    });
    const commandLines = argv.stop();
    expect(withCookie.scan.error).toBeUndefined();
    expect(withCookie.scan).toMatchObject({
      status: 'completed',
      resultCount: 1,
      config: { cookies: { session: '********' }, userAgent: 'Rampart sqlmap test' },
    });
    expect(withCookie.findings[0]).toMatchObject({
      engine: 'sqlmap',
      ruleId: 'sql-injection:GET:q',
      location: { url: target },
    });
    // The session never reaches a log line, an answer, nor the argv sqlmap ran with (as the
    // kernel showed it while it ran): sqlmap took it from the -c file in its workspace.
    expect(ctx.app.logs.join('')).not.toContain(cookie.value);
    expect(JSON.stringify(withCookie)).not.toContain(cookie.value);
    expect(commandLines.some((line) => /-c \S*\/sqlmap\.conf\b/.test(line))).toBe(true);
    for (const line of commandLines) {
      expect(line).not.toContain(cookie.value);
    }
  }, 180_000);
});
