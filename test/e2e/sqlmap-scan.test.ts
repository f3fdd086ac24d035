/**
 * The whole path with the real sqlmap: POST /api/v1/scans → worker → sqlmap (argument array,
 * private workspace) → `out/<host>/log` streamed through the parser → findings over HTTP. The
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
 * `command` whose binary was found), here with only sqlmap reported as installed.
 */
const runners = realEngineRunners(
  loadConfig({ JWT_SECRET: TEST_JWT_SECRET, PATH: process.env.PATH ?? '' }),
  TEST_ENGINES.map((engine) => ({ ...engine, available: engine.name === 'sqlmap' })),
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
  // sqlmap runs for seconds: polled every 250 ms, well inside a generous per-minute limit.
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

/** Polls the scan until it has ended (the shared helper polls every 25 ms, too often here). */
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

async function scanAndGetFindings(target: string) {
  const { id } = await createScan(ctx.app, key, {
    target,
    scanType: 'sqlmap',
    // Fast and gentle: the specification's level and risk defaults, three techniques.
    options: { technique: 'BEU' },
  });
  const scan = await waitUntilEnded(id, 90_000);
  const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
    headers: { 'x-api-key': key },
  });
  expect(response.status, response.text).toBe(200);
  return { scan, findings: response.body.data.findings };
}

describe('sqlmap, for real', () => {
  it('the worker registers sqlmap from its engine command', () => {
    expect([...runners.keys()]).toEqual(['sqlmap']);
  });

  it('finds the planted SQL injection and serves it as a high CWE-89 finding at the URL', async () => {
    const target = `${vulnerable.url}search?q=apple`;
    const first = await scanAndGetFindings(target);
    expect(first.scan.error).toBeUndefined();
    expect(first.scan).toMatchObject({ status: 'completed', progress: 100, resultCount: 1 });
    expect(first.findings).toHaveLength(1);
    expect(first.findings[0]).toMatchObject({
      engine: 'sqlmap',
      ruleId: 'sql-injection:GET:q',
      title: 'SQL injection in GET parameter `q`',
      severity: 'high',
      category: 'sql-injection',
      location: { host: '127.0.0.1', port: Number(new URL(vulnerable.url).port), url: target },
      identifiers: { cve: [], cwe: ['CWE-89'] },
    });
    expect(first.findings[0].evidence).toContain('back-end DBMS: PostgreSQL');

    // A rescan sends other random payloads; the finding keeps its fingerprint.
    const second = await scanAndGetFindings(target);
    expect(second.scan.status).toBe('completed');
    expect(second.findings.map((f: { fingerprint: string }) => f.fingerprint)).toEqual([
      first.findings[0].fingerprint,
    ]);
  }, 180_000);
});
