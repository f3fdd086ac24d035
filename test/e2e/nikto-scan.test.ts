/**
 * The whole path with the real nikto (Debian's 2.1.5 here and in CI): the service probes nikto on
 * PATH at start as it does in production (GET /api/v1/engines shows it available, with its
 * version), the worker runs it with the argv for that version (XML for 2.1.5), and POST
 * /api/v1/scans → worker → nikto (sandboxed when this machine can) → report streamed through the
 * parser → findings over HTTP. Targets: the deliberately vulnerable test app and a site with
 * several items of one nikto test (test/support/nikto-site.ts), both on 127.0.0.2
 * (ALLOW_PRIVATE_TARGETS, as a deployment scanning its own network would set it).
 */

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { probeEngines } from '../../src/main/compose.js';
import { realEngineRunners } from '../../src/main/workers.js';
import { TEST_JWT_SECRET, useTestApp } from '../support/harness.js';
import { NIKTO_SITE_COOKIES, NIKTO_SITE_HEADERS, useNiktoSite } from '../support/nikto-site.js';
import { TEST_SANDBOX } from '../support/sandbox.js';
import { expectConsumerReady, expectSchemaValid, exportSarif } from '../support/sarif.js';
import { defectDojoFindings } from '../support/sarif-consumers.js';
import { createScan, waitUntilEnded } from '../support/scans.js';
import { createPollingKey, useVulnerableApp } from '../support/web-scan.js';

/** The engines as a worker probes them at start; the worker here runs only nikto. */
const probed = await probeEngines();
const runners = realEngineRunners(
  loadConfig({ JWT_SECRET: TEST_JWT_SECRET, PATH: process.env.PATH ?? '' }),
  probed.map((engine) => ({ ...engine, available: engine.available && engine.name === 'nikto' })),
  TEST_SANDBOX,
);
const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '1',
    ALLOW_PRIVATE_TARGETS: 'true',
    WORKER_SHUTDOWN_GRACE_MS: '100',
  },
  { engineRunners: runners, probeEngines: true },
);
const vulnerable = useVulnerableApp();
const site = useNiktoSite();

interface ApiFinding {
  readonly engine: string;
  readonly ruleId: string;
  readonly fingerprint: string;
  readonly title: string;
  readonly category: string;
  readonly location: { host: string | null; port: number | null; url: string | null };
}

/** A nikto scan of `target` through the API, to its end; its findings as the API serves them. */
async function niktoScan(key: string, target: string): Promise<ApiFinding[] & { scanId: string }> {
  const { id } = await createScan(ctx.app, key, {
    target,
    scanType: 'nikto',
    options: { tuning: '123', maxTime: '60s' },
  });
  const scan = await waitUntilEnded(ctx.app, key, id, 60_000);
  expect(scan.error).toBeUndefined();
  expect(scan).toMatchObject({ status: 'completed', progress: 100 });
  const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
    headers: { 'x-api-key': key },
  });
  expect(response.status, response.text).toBe(200);
  return Object.assign(response.body.data.findings as ApiFinding[], { scanId: id });
}

describe('nikto, for real', { timeout: 120_000 }, () => {
  it('GET /api/v1/engines shows nikto available, with the version the service probed', async () => {
    const key = await createPollingKey(ctx.app);
    const nikto = probed.find((engine) => engine.name === 'nikto');
    expect(nikto).toMatchObject({ available: true, version: expect.stringMatching(/^\d+\.\d+/) });
    // The worker registers its engines as it starts; the list is cached for a second.
    const deadline = Date.now() + 10_000;
    type Listed = { name: string; available: boolean; version: string | null };
    let listed: Listed | undefined;
    while (Date.now() < deadline) {
      const response = await ctx.app.request('/api/v1/engines', {
        headers: { 'x-api-key': key },
      });
      expect(response.status, response.text).toBe(200);
      listed = (response.body.data.engines as Listed[]).find((engine) => engine.name === 'nikto');
      if (listed?.available === true) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(listed).toMatchObject({ available: true, version: nikto?.version });
    expect([...runners.keys()]).toEqual(['nikto']);
  });

  it('scans the vulnerable test app: its missing X-Frame-Options, at the app URL', async () => {
    const key = await createPollingKey(ctx.app);
    const findings = await niktoScan(key, vulnerable.url);
    const port = Number(new URL(vulnerable.url).port);
    expect(findings.find((finding) => /X-Frame-Options/i.test(finding.title))).toMatchObject({
      engine: 'nikto',
      category: 'security-header',
      location: { host: '127.0.0.2', port, url: vulnerable.url },
    });

    // The SARIF export of the same scan: the official schema, and what GitHub and DefectDojo read.
    const sarif = await exportSarif(ctx.app, key, findings.scanId);
    expectConsumerReady(sarif);
    const [run] = sarif.log.runs;
    expect(run.results).toHaveLength(findings.length);
    const fingerprints = new Map(findings.map((f) => [f.fingerprint, f.location.url]));
    for (const result of run.results) {
      const url = fingerprints.get(result.partialFingerprints['rampart/v1'] ?? '');
      expect(result.locations[0]?.physicalLocation.artifactLocation.uri).toBe(
        url ?? `tcp://127.0.0.2:${port}`,
      );
    }
    expect(
      defectDojoFindings(sarif.log)
        .map((f) => f.uniqueIdFromTool)
        .sort(),
    ).toEqual(findings.map((f) => `rampart:${f.fingerprint}`).sort());
    await expectSchemaValid({ nikto: sarif.text });
  });

  it('two scans: every item its own finding, the same fingerprints both times', async () => {
    const key = await createPollingKey(ctx.app);
    const first = await niktoScan(key, site.url);
    const ruleIds = first.map((finding) => finding.ruleId);
    for (const name of [...NIKTO_SITE_HEADERS, ...NIKTO_SITE_COOKIES]) {
      expect(ruleIds).toContainEqual(expect.stringMatching(new RegExp(`:${name}$`)));
    }
    expect(new Set(first.map((finding) => finding.fingerprint)).size).toBe(first.length);
    const second = await niktoScan(key, site.url);
    expect(second.map((finding) => finding.fingerprint).sort()).toEqual(
      first.map((finding) => finding.fingerprint).sort(),
    );
  });
});
