/**
 * The sqlmap contract against the real binary (sqlmap 1.7.2 from Debian here and in CI): the
 * engine's command runs through the one process runner (argv array, private workspace, allowlisted
 * environment) against the deliberately vulnerable test app, and the `out/<host>/log` sqlmap
 * writes is streamed through the engine's parser. Never skipped for a missing sqlmap: a worker
 * without it could not scan either.
 */

import { describe, expect, it } from 'vitest';
import { sqlmapEngine } from '../../src/engines/sqlmap/engine.js';
import { type EngineRun, engineTarget, ourChildren, runEngine } from '../support/engine-runs.js';
import { useElsewhereSite, useSilentServer, useVulnerableApp } from '../support/web-scan.js';

const SQLMAP_TIMEOUT_MS = 60_000;

/** One scan through the runner, with options validated as the API would. */
async function scan(
  url: string,
  options: Record<string, unknown>,
  cancelOnProgress = false,
): Promise<EngineRun & { readonly durationMs: number }> {
  const run = await runEngine({
    engine: sqlmapEngine,
    binary: 'sqlmap',
    target: engineTarget(sqlmapEngine, url, 'url'),
    options,
    validate: true,
    timeoutMs: SQLMAP_TIMEOUT_MS,
    abortAtProgress: cancelOnProgress ? 0 : undefined,
  });
  return { ...run, durationMs: run.elapsedMs };
}

/** sqlmap processes (python3 running /usr/bin/sqlmap) that are children of this test process. */
function sqlmapChildren(): number[] {
  return ourChildren('sqlmap', '--ignore-stdin');
}

const app = useVulnerableApp();
/** Accepts connections and never answers: sqlmap waits on "testing connection to the target URL". */
const silent = useSilentServer();
/** A site whose pages redirect to, and refresh to, another host that counts connections. */
const site = useElsewhereSite();

describe('sqlmap (real binary) through the process runner', { timeout: 90_000 }, () => {
  it('finds the planted injection in GET parameter q, with the DBMS and --dbs output', async () => {
    const url = `${app.url}search?q=apple`;
    const run = await scan(url, { level: 1, risk: 1, technique: 'BEU', dbs: true });
    expect(run.output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    expect(run.output.findings).toHaveLength(1);
    const [finding] = run.output.findings;
    const port = Number(new URL(app.url).port);
    expect(finding).toMatchObject({
      ruleId: 'sql-injection:GET:q',
      title: 'SQL injection in GET parameter `q`',
      severity: 'high',
      toolSeverity: null,
      category: 'sql-injection',
      location: { host: '127.0.0.2', port, protocol: null, url },
      identifiers: { cve: [], cwe: ['CWE-89'] },
      raw: { source: 'log', place: 'GET', parameter: 'q', dbms: 'PostgreSQL' },
    });
    // BEU asked, and all three work against the app (error-based thanks to its 500 page).
    expect(finding?.evidence?.match(/^Type: .*$/gm)).toEqual([
      'Type: boolean-based blind',
      'Type: error-based',
      'Type: UNION query',
    ]);
    expect(finding?.evidence).toContain('back-end DBMS: PostgreSQL');
    expect(finding?.evidence).toContain('databases: information_schema, pg_catalog, public');
    // Progress comes from stdout (the engine ignores stderr), stays below 100 and gets far.
    expect(run.progress.length).toBeGreaterThan(5);
    expect(run.progress.every((p) => Number.isInteger(p) && p >= 0 && p <= 99)).toBe(true);
    expect(Math.max(...run.progress)).toBeGreaterThanOrEqual(90);
    expect(run.durationMs).toBeLessThan(30_000);
  });

  it('reports no SQL injection for a page that only reflects its parameter', async () => {
    const run = await scan(`${app.url}hello?name=x`, { technique: 'BEU' });
    expect(run.output).toMatchObject({ ending: 'completed', findings: [], warnings: [] });
    // The run went through the tests and told us so on stdout.
    expect(run.progress).toContain(95);
    expect(run.durationMs).toBeLessThan(30_000);
  });

  it.each([
    ['an HTTP redirect', 'jump'],
    ['a meta refresh', 'meta'],
  ])('never follows %s to another host', async (_name, path) => {
    const run = await scan(`${site.url}${path}?id=1`, { technique: 'B' });
    expect(run.output.findings).toEqual([]);
    expect(site.visits).toBe(0);
  });

  it('stops a cancelled running sqlmap within 2 s', async () => {
    // The silent server keeps sqlmap waiting on its first request (its own timeout is 30 s).
    const port = silent.port;
    const before = sqlmapChildren();
    const run = await scan(`http://127.0.0.2:${port}/item?id=1`, { technique: 'B' }, true);
    expect(run.progress[0]).toBe(2);
    expect(run.output.ending).toBe('cancelled');
    expect(run.output.findings).toEqual([]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    expect(sqlmapChildren().filter((pid) => !before.includes(pid))).toEqual([]);
  });
});
