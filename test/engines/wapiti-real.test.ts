/**
 * The wapiti contract against the real binary (wapiti 3.0.4 from Debian here and in CI): the
 * engine's command runs through the one process runner (argv array, private workspace as HOME,
 * allowlisted environment) against the deliberately vulnerable test app, and the JSON report
 * wapiti writes is streamed through the engine's parser. Never skipped for a missing wapiti: a
 * worker without it could not scan either.
 */

import { describe, expect, it } from 'vitest';
import { finalizeFindings } from '../../src/domain/findings/fingerprint.js';
import { wapitiEngine } from '../../src/engines/wapiti/engine.js';
import { type EngineRun, engineTarget, ourChildren, runEngine } from '../support/engine-runs.js';
import { useElsewhereSite, useSilentServer, useVulnerableApp } from '../support/web-scan.js';

const WAPITI_TIMEOUT_MS = 60_000;

/**
 * One scan through the runner, with options validated (and defaulted) as the API would. With
 * `cancelWhenRunning`, the scan is aborted once its wapiti process has been up for 500 ms.
 */
async function scan(
  url: string,
  options: Record<string, unknown>,
  cancelWhenRunning = false,
): Promise<EngineRun & { readonly durationMs: number }> {
  const before = wapitiChildren();
  const run = await runEngine({
    engine: wapitiEngine,
    binary: 'wapiti',
    target: engineTarget(wapitiEngine, url, 'url'),
    options,
    validate: true,
    timeoutMs: WAPITI_TIMEOUT_MS,
    ...(cancelWhenRunning
      ? {
          abortOnceTrue: () => wapitiChildren().some((pid) => !before.includes(pid)),
          abortAfterMs: 500,
        }
      : {}),
  });
  return { ...run, durationMs: run.elapsedMs };
}

/** wapiti processes (python3 running /usr/bin/wapiti) that are children of this test process. */
function wapitiChildren(): number[] {
  return ourChildren('wapiti', '--no-bugreport');
}

const app = useVulnerableApp();
/** Accepts connections and never answers: wapiti's crawler waits on its first request. */
const silent = useSilentServer();
/** A site whose pages link, redirect and refresh to another host that counts connections. */
const site = useElsewhereSite();

describe('wapiti (real binary) through the process runner', { timeout: 90_000 }, () => {
  it('finds the reflected XSS in /hello?name and the SQL injection in /search?q', async () => {
    // Two modules, a shallow crawl, and maxTime so the real wapiti also takes the time flags.
    const run = await scan(app.url, { modules: ['xss', 'sql'], maxDepth: 2, maxTime: '60s' });
    expect(run.output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    const port = Number(new URL(app.url).port);
    // One category and severity per weakness (domain/findings/weakness-severity.ts).
    const vulnerabilities = finalizeFindings('wapiti', run.output.findings).filter((finding) =>
      ['sql-injection', 'xss'].includes(finding.category),
    );
    expect(vulnerabilities.map((finding) => finding.ruleId).sort()).toEqual([
      'cross-site-scripting:GET:name',
      'sql-injection:GET:q',
    ]);
    const sqli = vulnerabilities.find((finding) => finding.ruleId === 'sql-injection:GET:q');
    expect(sqli).toMatchObject({
      title: 'SQL Injection in /search (parameter q)',
      severity: 'critical',
      toolSeverity: '4',
      location: { host: '127.0.0.2', port, protocol: 'tcp', url: `${app.url}search` },
      identifiers: { cve: [], cwe: ['CWE-89'] },
      raw: { section: 'vulnerabilities', category: 'SQL Injection', parameter: 'q', level: 4 },
    });
    expect(sqli?.evidence).toContain('curl: curl "http://127.0.0.2:');
    const xss = vulnerabilities.find(
      (finding) => finding.ruleId === 'cross-site-scripting:GET:name',
    );
    expect(xss).toMatchObject({
      title: 'Cross Site Scripting in /hello (parameter name)',
      severity: 'high',
      toolSeverity: '2',
      location: { host: '127.0.0.2', port, protocol: 'tcp', url: `${app.url}hello` },
      identifiers: { cve: [], cwe: ['CWE-79'] },
    });
    expect(xss?.remediation).toMatch(/\S/);
    // Progress: the crawl, both modules (sql 54, xss 60) and the report line, in that order.
    expect(run.progress).toEqual(expect.arrayContaining([2, 11, 20, 54, 60, 98]));
    expect(run.progress.every((p) => Number.isInteger(p) && p >= 0 && p <= 99)).toBe(true);
    expect(run.progress.indexOf(54)).toBeLessThan(run.progress.indexOf(60));
    expect(run.durationMs).toBeLessThan(30_000);
  });

  it('a rescan finds the same two flaws with the same fingerprints', async () => {
    const options = { modules: ['xss', 'sql'], maxDepth: 2 };
    const fingerprints = async () =>
      finalizeFindings('wapiti', (await scan(app.url, options)).output.findings)
        .filter((finding) => ['sql-injection', 'xss'].includes(finding.category))
        .map((finding) => finding.fingerprint)
        .sort();
    const first = await fingerprints();
    expect(first).toHaveLength(2);
    expect(await fingerprints()).toEqual(first);
  });

  it('keeps to the target with the default scope: links, redirects and refreshes elsewhere are not followed', async () => {
    const run = await scan(site.url, { modules: ['xss'], maxDepth: 2, maxTime: '60s' });
    expect(run.output.ending).toBe('completed');
    expect(site.visits).toBe(0);
  });

  it('stops a cancelled running wapiti within 2 s', async () => {
    // The silent server keeps wapiti's crawler waiting on its first request (for seconds).
    const port = silent.port;
    const before = wapitiChildren();
    const run = await scan(`http://127.0.0.2:${port}/`, { modules: ['xss'] }, true);
    expect(run.output.ending).toBe('cancelled');
    expect(run.output.findings).toEqual([]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    expect(run.durationMs).toBeLessThan(5_000);
    expect(wapitiChildren().filter((pid) => !before.includes(pid))).toEqual([]);
  });
});
