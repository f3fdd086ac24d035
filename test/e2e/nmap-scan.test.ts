/**
 * The whole path with the real nmap: POST /api/v1/scans → worker → nmap (argument array, private
 * workspace, the scanner sandbox and its egress rules when the machine has them) → XML parsed →
 * findings over HTTP. Targets are ports this test opens on 127.0.0.2 (ALLOW_PRIVATE_TARGETS, as a
 * deployment scanning its own network would set it; 127.0.0.1 is the service's own address, which
 * the egress rules refuse), named by address or as `scanme.test`, which the worker's resolver
 * (a test lookup) answers with 127.0.0.2 and nmap scans at that address.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResolvedTarget } from '../../src/adapters/dns/resolve-target.js';
import { ourDescendants } from '../support/engine-runs.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { expectConsumerReady, expectSchemaValid, exportSarif } from '../support/sarif.js';
import { defectDojoFindings, gitHubSecuritySeverity } from '../support/sarif-consumers.js';
import { createScan, waitForStatus } from '../support/scans.js';

const LISTEN = '127.0.0.2';
const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '2',
    ALLOW_PRIVATE_TARGETS: 'true',
    WORKER_SHUTDOWN_GRACE_MS: '100',
  },
  {
    resolver: {
      check: (target, allow) =>
        checkResolvedTarget(target, allow, async (host) => {
          if (host === 'scanme.test') {
            return ['::2', LISTEN];
          }
          throw Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' });
        }),
    },
  },
);

let key = '';
let server: Server;
let port = 0;

beforeAll(async () => {
  // Every test of the file polls with this key while a real nmap runs: the largest budget.
  key = (
    await createKey(ctx.app, await tokenFor(randomUUID()), {
      rateLimitPerMinute: 1000,
      rateLimitPerHour: 50_000,
    })
  ).rawKey;
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, LISTEN, resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/**
 * nmap processes started by this test process (the in-process worker's runs): its descendants,
 * since inside the scanner sandbox nmap's parent is bwrap.
 */
function nmapChildren(): number[] {
  return ourDescendants((proc) => proc.comm === 'nmap').map((proc) => proc.pid);
}

describe('nmap, for real', () => {
  it('scans a port opened by the test and reports it as a finding', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: LISTEN,
      scanType: 'nmap',
      options: { ports: String(port), serviceDetection: false, timing: 'T4' },
    });
    const scan = await waitForStatus(ctx.app, key, id, ['completed', 'failed'], 60_000);
    expect(scan.error).toBeUndefined();
    expect(scan).toMatchObject({ status: 'completed', progress: 100, resultCount: 1 });
    const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
      headers: { 'x-api-key': key },
    });
    expect(response.body.data.findings).toHaveLength(1);
    expect(response.body.data.findings[0]).toMatchObject({
      engine: 'nmap',
      severity: 'info',
      category: 'open-port',
      location: { host: LISTEN, port, protocol: 'tcp' },
    });
    expect(response.body.data.findings[0].title).toContain(`${port}/tcp`);

    // The SARIF export of the same scan: the official schema, and what GitHub and DefectDojo read.
    const sarif = await exportSarif(ctx.app, key, id);
    expectConsumerReady(sarif);
    const [run] = sarif.log.runs;
    expect(run.results).toHaveLength(1);
    expect(run.results[0]).toMatchObject({
      ruleId: 'open-port',
      level: 'note',
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: `tcp://${LISTEN}:${port}` } },
          logicalLocations: [{ name: `${LISTEN}:${port}/tcp` }],
        },
      ],
      partialFingerprints: { 'rampart/v1': response.body.data.findings[0].fingerprint },
    });
    expect(run.tool.driver.rules[0]?.properties).toMatchObject({
      severity: 'info',
      'security-severity': '0.0',
      tags: ['security', 'open-port'],
    });
    expect(defectDojoFindings(sarif.log)).toMatchObject([
      { severity: 'Info', filePath: `tcp://${LISTEN}:${port}` },
    ]);
    expect(gitHubSecuritySeverity(run.tool.driver.rules[0])).toBe('low');
    await expectSchemaValid({ nmap: sarif.text });
  }, 90_000);

  it('scans a name at the address the worker resolved and checked (scanme.test: 127.0.0.2)', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: 'scanme.test',
      scanType: 'nmap',
      options: { ports: String(port), serviceDetection: false, timing: 'T4' },
    });
    const scan = await waitForStatus(ctx.app, key, id, ['completed', 'failed'], 60_000);
    expect(scan.error).toBeUndefined();
    expect(scan).toMatchObject({ status: 'completed', resultCount: 1 });
    const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
      headers: { 'x-api-key': key },
    });
    // IPv4 is preferred among the addresses the name resolves to; the listener is on 127.0.0.2.
    expect(response.body.data.findings.map((f: { location: unknown }) => f.location)).toEqual([
      expect.objectContaining({ host: LISTEN, port, protocol: 'tcp' }),
    ]);
  }, 90_000);

  it('stops a cancelled running nmap within 2 s', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: LISTEN,
      scanType: 'nmap',
      // Slow on purpose: every port, paranoid timing.
      options: { ports: '1-65535', timing: 'T0', serviceDetection: false },
    });
    await waitForStatus(ctx.app, key, id, ['running']);
    const deadline = Date.now() + 10_000;
    while (nmapChildren().length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pids = nmapChildren();
    expect(pids.length).toBeGreaterThan(0);
    const cancelledAt = Date.now();
    const response = await ctx.app.request(`/api/v1/scans/${id}/cancel`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });
    expect(response.status).toBe(200);
    while (nmapChildren().some((pid) => pids.includes(pid)) && Date.now() - cancelledAt < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(nmapChildren().filter((pid) => pids.includes(pid))).toEqual([]);
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    const results = await ctx.app.request(`/api/v1/scans/${id}/results`, {
      headers: { 'x-api-key': key },
    });
    expect(results.body.data).toMatchObject({ status: 'cancelled', partial: true });
  }, 30_000);

  it('fails a scan that runs past its timeout with SCAN_TIMEOUT', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: LISTEN,
      scanType: 'nmap',
      timeout: 1,
      options: { ports: '1-65535', timing: 'T0', serviceDetection: false },
    });
    const scan = await waitForStatus(ctx.app, key, id, ['failed', 'completed'], 15_000);
    expect(scan.status).toBe('failed');
    expect(scan.error.code).toBe('SCAN_TIMEOUT');
    expect(scan.durationMs).toBeLessThan(5_000);
  }, 30_000);

  it('fails with TARGET_UNRESOLVABLE when the name does not resolve at start', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: 'nonexistent.invalid',
      scanType: 'nmap',
    });
    const scan = await waitForStatus(ctx.app, key, id, ['failed', 'completed'], 15_000);
    expect(scan.error.code).toBe('TARGET_UNRESOLVABLE');
    expect(scan.error.message).toContain('nonexistent.invalid');
  }, 30_000);
});
