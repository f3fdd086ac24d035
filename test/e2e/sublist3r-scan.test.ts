/**
 * The whole path with the real sublist3r: POST /api/v1/scans → worker → sublist3r (argument array,
 * private workspace) → report read → scan over HTTP.
 *
 * Name resolution: a domain target is resolved by the worker just before the scan starts, and this
 * machine has no DNS, so `example.com` would fail with TARGET_UNRESOLVABLE before sublist3r ran.
 * The app is given the real resolution check (`checkResolvedTarget`, with its private-range rules)
 * over a lookup table instead of the system resolver: names under `example.com` and `.example`
 * resolve to 203.0.113.10 (a documentation address, which the range check allows), `.invalid`
 * names do not resolve. ALLOW_PRIVATE_TARGETS allows only 127.0.0.2, where the other test files
 * point their scanners: this app's workers load the scanner egress rules, which judge every
 * scanner process on the machine (test/support/harness.ts). sublist3r itself then runs for real and
 * reaches none of its search engines (no internet here), which it reports by exiting 0 with no
 * output file: a completed scan with no findings.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { checkResolvedTarget } from '../../src/adapters/dns/resolve-target.js';
import type { TargetResolver } from '../../src/use-cases/ports/scans.js';
import { type LiveProcess, liveProcesses, ourDescendants } from '../support/engine-runs.js';
import { SCAN_ADDRESS, useTestApp } from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';
import { createPollingKey } from '../support/web-scan.js';

/** The documentation address every test name resolves to. */
const PUBLIC_ADDRESS = '203.0.113.10';

const resolver: TargetResolver = {
  check: (target, allowPrivate) =>
    checkResolvedTarget(target, allowPrivate, async (host) => {
      if (host === 'example.com' || host.endsWith('.example.com') || host.endsWith('.example')) {
        return [PUBLIC_ADDRESS];
      }
      throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    }),
};

const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_CONCURRENCY: '2',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    ALLOW_PRIVATE_TARGETS: SCAN_ADDRESS,
  },
  { resolver },
);

let key = '';

beforeAll(async () => {
  // waitForStatus polls every 25 ms: the default 60 requests a minute would run out mid-test.
  key = await createPollingKey(ctx.app);
});

/** Live (not zombie) sublist3r processes on this machine. */
function sublist3rProcesses(): LiveProcess[] {
  return liveProcesses((proc) => proc.comm === 'sublist3r');
}

/**
 * Process groups of the sublist3r processes this test process (its in-process worker) started:
 * its descendants, since inside the scanner sandbox the group's leader is bwrap.
 */
function ourGroups(): number[] {
  return [...new Set(ourDescendants((proc) => proc.comm === 'sublist3r').map((proc) => proc.pgid))];
}

async function findings(id: string) {
  const response = await ctx.app.request(`/api/v1/scans/${id}/results`, {
    headers: { 'x-api-key': key },
  });
  expect(response.status).toBe(200);
  return response.body.data;
}

describe('sublist3r, for real', () => {
  it('runs sublist3r on example.com and completes with no findings (no search engine reachable)', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: 'example.com',
      scanType: 'sublist3r',
      options: { engines: ['ssl', 'passivedns'] },
    });
    const scan = await waitForStatus(ctx.app, key, id, ['completed', 'failed'], 60_000);
    expect(scan.error).toBeUndefined();
    expect(scan).toMatchObject({
      status: 'completed',
      progress: 100,
      resultCount: 0,
      targetType: 'domain',
      // The effective options: the request's, with the specification's defaults filled in.
      options: { engines: ['ssl', 'passivedns'], bruteforce: false, threads: 10 },
      timeout: 1800,
    });
    expect(await findings(id)).toMatchObject({ status: 'completed', partial: false, findings: [] });
  }, 90_000);

  it('stops a cancelled running sublist3r (brute force, endless without DNS) within 2 s', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: 'example.com',
      scanType: 'sublist3r',
      options: { engines: ['ssl'], bruteforce: true, threads: 2 },
    });
    await waitForStatus(ctx.app, key, id, ['running']);
    const deadline = Date.now() + 15_000;
    while (ourGroups().length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const groups = ourGroups();
    expect(groups.length).toBeGreaterThan(0);
    // Wait until the leader has started its helpers (the multiprocessing manager, the search
    // engine and brute-force processes): all of them must go with the cancel.
    const inGroups = () => sublist3rProcesses().filter((proc) => groups.includes(proc.pgid));
    while (inGroups().length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(inGroups().length).toBeGreaterThan(1);
    const cancelledAt = Date.now();
    const response = await ctx.app.request(`/api/v1/scans/${id}/cancel`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });
    expect(response.status).toBe(200);
    while (inGroups().length > 0 && Date.now() - cancelledAt < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(inGroups()).toEqual([]);
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    expect(await findings(id)).toMatchObject({ status: 'cancelled', partial: true, findings: [] });
  }, 60_000);

  it('fails a scan that runs past its timeout with SCAN_TIMEOUT', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: 'dev.example.com',
      scanType: 'sublist3r',
      timeout: 2,
      options: { engines: ['ssl'], bruteforce: true, threads: 2 },
    });
    const scan = await waitForStatus(ctx.app, key, id, ['failed', 'completed'], 20_000);
    expect(scan.status).toBe('failed');
    expect(scan.error.code).toBe('SCAN_TIMEOUT');
    expect(scan.durationMs).toBeLessThan(6_000);
  }, 30_000);

  it('fails with TARGET_UNRESOLVABLE, before sublist3r runs, when the name does not resolve', async () => {
    const { id } = await createScan(ctx.app, key, {
      target: 'nonexistent.invalid',
      scanType: 'sublist3r',
    });
    const scan = await waitForStatus(ctx.app, key, id, ['failed', 'completed'], 15_000);
    expect(scan.error.code).toBe('TARGET_UNRESOLVABLE');
    expect(scan.error.message).toContain('nonexistent.invalid');
  }, 30_000);

  it('refuses a punycode domain, which sublist3r would silently skip, when the scan is created', async () => {
    const response = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: {
        target: 'xn--bcher-kva.example',
        scanType: 'sublist3r',
        options: { engines: ['ssl'] },
      },
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual({
      success: false,
      code: 'INVALID_TARGET',
      error:
        'Invalid target: sublist3r takes only letters, digits, single hyphens and dots, ending in a letters-only label (no punycode labels)',
    });
  });

  it('refuses options sublist3r cannot honour when the scan is created', async () => {
    for (const options of [
      { engines: ['duckduckgo'] },
      { ports: '1-1024' },
      { engines: [] },
      { threads: 51 },
    ]) {
      const response = await ctx.app.request('/api/v1/scans', {
        method: 'POST',
        headers: { 'x-api-key': key },
        json: { target: 'example.com', scanType: 'sublist3r', options },
      });
      expect(response.status, JSON.stringify(options)).toBe(400);
      expect(response.body.code).toBe('INVALID_FIELD_VALUE');
    }
  });
});
