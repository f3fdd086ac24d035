/**
 * ALLOW_PRIVATE_TARGETS as a list of CIDR ranges, over real HTTP and the real system resolver:
 * targets inside a listed range are accepted and run, every other refused address is still 403
 * `TARGET_NOT_ALLOWED` at creation, and a name (localhost: 127.0.0.1, perhaps ::1) is judged by
 * the addresses it resolves to, both when the scan is created and when the worker starts it.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';

const engine = instantEngine();
const ctx = useTestApp(
  {
    WORKERS: '1',
    ALLOW_PRIVATE_TARGETS: '127.0.0.0/30, ::1, 10.20.0.0/16',
    WORKER_SHUTDOWN_GRACE_MS: '100',
  },
  { engineRunners: new Map([['nmap', engine]]) },
);

let key = '';

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
});

describe('ALLOW_PRIVATE_TARGETS=127.0.0.0/30,::1,10.20.0.0/16', () => {
  it.each(['127.0.0.2', '10.20.0.0/24', 'localhost'])('runs a scan of %s', async (target) => {
    const scan = await createScan(ctx.app, key, { target, scanType: 'nmap' });
    await waitForStatus(ctx.app, key, scan.id, ['completed']);
  });

  it.each([
    ['127.0.0.5', '127.0.0.5 is a loopback address'],
    ['10.21.0.1', '10.21.0.1 is a private address'],
    ['10.21.0.0/16', '10.21.0.0/16 includes private addresses'],
    ['169.254.169.254', '169.254.169.254 is a cloud metadata address'],
  ])('refuses %s with TARGET_NOT_ALLOWED', async (target, reason) => {
    const response = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { target, scanType: 'nmap' },
    });
    expect(response.status, response.text).toBe(403);
    expect(response.body).toMatchObject({ success: false, code: 'TARGET_NOT_ALLOWED' });
    expect(response.body.error).toBe(`Target not allowed: ${reason}`);
  });
});
