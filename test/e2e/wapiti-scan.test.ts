/**
 * The whole path with the real wapiti: POST /api/v1/scans → worker → wapiti (argument array,
 * private workspace as HOME) → JSON report streamed through the parser → findings over HTTP. The
 * target is the deliberately vulnerable test app on 127.0.0.1 (ALLOW_PRIVATE_TARGETS, as a
 * deployment scanning its own network would set it).
 */

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { realEngineRunners } from '../../src/main/workers.js';
import {
  createKey,
  TEST_ENGINES,
  TEST_JWT_SECRET,
  tokenFor,
  useTestApp,
} from '../support/harness.js';
import { createScan, getScan } from '../support/scans.js';
import { startVulnerableApp, type VulnerableApp } from '../support/vulnerable-app.js';

/**
 * The runners a worker builds at start (`realEngineRunners`, which takes every engine with a
 * `command` whose binary was found), here with only wapiti reported as installed.
 */
const runners = realEngineRunners(
  loadConfig({ JWT_SECRET: TEST_JWT_SECRET, PATH: process.env.PATH ?? '' }),
  TEST_ENGINES.map((engine) => ({ ...engine, available: engine.name === 'wapiti' })),
);

const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '1',
    ALLOW_PRIVATE_TARGETS: 'true',
    WORKER_SHUTDOWN_GRACE_MS: '100',
  },
  { engineRunners: runners },
);

let key = '';
let vulnerable: VulnerableApp;

beforeAll(async () => {
  key = (
    await createKey(ctx.app, await tokenFor(randomUUID()), {
      rateLimitPerMinute: 1000,
      rateLimitPerHour: 50_000,
    })
  ).rawKey;
  vulnerable = await startVulnerableApp();
});

afterAll(async () => {
  await vulnerable?.close();
});

/** Polls the scan until it has ended (every 250 ms: wapiti runs for seconds). */
async function waitUntilEnded(id: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const scan = await getScan(ctx.app, key, id);
    if (['completed', 'failed', 'cancelled'].includes(scan.status)) {
      return scan;
    }
    if (Date.now() > deadline) {
      throw new Error(`scan ${id} is still ${scan.status} after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('wapiti, for real', () => {
  it('the worker registers wapiti from its engine command', () => {
    expect([...runners.keys()]).toEqual(['wapiti']);
  });

  it('finds the planted XSS and SQL injection and serves them as findings at their URLs', async () => {
    const started = Date.now();
    const { id } = await createScan(ctx.app, key, {
      target: vulnerable.url,
      scanType: 'wapiti',
      // Only the two modules that matter here, and a shallow crawl: a few seconds.
      options: { modules: ['xss', 'sql'], maxDepth: 2 },
    });
    const scan = await waitUntilEnded(id, 90_000);
    expect(scan.error).toBeUndefined();
    expect(scan).toMatchObject({
      status: 'completed',
      progress: 100,
      options: { modules: ['xss', 'sql'], maxDepth: 2, scope: 'domain' },
    });
    expect(Date.now() - started).toBeLessThan(60_000);

    const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
      headers: { 'x-api-key': key },
    });
    expect(response.status, response.text).toBe(200);
    const findings: Array<Record<string, unknown>> = response.body.data.findings;
    const port = Number(new URL(vulnerable.url).port);
    const vulnerabilities = findings.filter((finding) => finding.category === 'vulnerability');
    expect(vulnerabilities.map((finding) => finding.ruleId).sort()).toEqual([
      'cross-site-scripting:GET:name',
      'sql-injection:GET:q',
    ]);
    expect(findings.find((finding) => finding.ruleId === 'sql-injection:GET:q')).toMatchObject({
      engine: 'wapiti',
      title: 'SQL Injection in /search (parameter q)',
      severity: 'critical',
      location: { host: '127.0.0.1', port, protocol: 'tcp', url: `${vulnerable.url}search` },
      identifiers: { cve: [], cwe: ['CWE-89'] },
    });
    expect(findings.find((f) => f.ruleId === 'cross-site-scripting:GET:name')).toMatchObject({
      engine: 'wapiti',
      title: 'Cross Site Scripting in /hello (parameter name)',
      severity: 'medium',
      location: { host: '127.0.0.1', port, protocol: 'tcp', url: `${vulnerable.url}hello` },
      identifiers: { cve: [], cwe: ['CWE-79'] },
    });
    expect(scan.findingsSummary).toMatchObject({ critical: 1, medium: 1 });
  }, 120_000);
});
