/**
 * What `GET /api/v1/engines` and the 503 check say on this machine, with the scanners probed on
 * PATH exactly as the service does at start (no TEST_ENGINES): nmap, nikto, sqlmap, wapiti and
 * sublist3r are installed here and by `.ci/run` (Debian packages; nikto from `non-free`), so a
 * live worker registers them; ZAP, trivy, nuclei and theHarvester cannot be installed here, so
 * they are unavailable and a
 * scan of theirs is refused with 503 SERVICE_UNAVAILABLE, not stored, and uses no quota.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKey, INSTALLED_ENGINES, tokenFor, useTestApp } from '../support/harness.js';
import { TEST_SANDBOX } from '../support/sandbox.js';

const ctx = useTestApp({ WORKERS: '1', ALLOW_PRIVATE_TARGETS: 'true' }, { probeEngines: true });

/** A valid target for each engine that cannot be installed here. */
const MISSING: ReadonlyArray<{ readonly engine: string; readonly target: string }> = [
  { engine: 'zap', target: 'https://app.example.com/' },
  { engine: 'trivy', target: 'alpine:3.19' },
  { engine: 'nuclei', target: 'https://app.example.com/' },
  { engine: 'harvester', target: 'example.com' },
];

async function engines(key: string): Promise<
  Array<{
    name: string;
    available: boolean;
    unavailableReason: string | null;
    sandboxed: boolean;
    version: string | null;
  }>
> {
  // The worker registers its engines as it starts; the list is cached for a second.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key } });
    expect(response.status, response.text).toBe(200);
    const list = response.body.data.engines as Array<{
      name: string;
      available: boolean;
      unavailableReason: string | null;
      sandboxed: boolean;
      version: string | null;
    }>;
    if (list.some((engine) => engine.available) || Date.now() > deadline) {
      return list;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('engine availability, probed on PATH', () => {
  it('shows the five Debian-installed scanners available and the four others not', async () => {
    const key = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    const list = await engines(key);
    const available = list.filter((engine) => engine.available).map((engine) => engine.name);
    // sentinel, which runs the others, is available because they are.
    expect(available.sort()).toEqual([...INSTALLED_ENGINES, 'sentinel'].sort());
    // nikto with the version the worker probed, which decides its report format (XML for 2.1.5).
    expect(list.find((entry) => entry.name === 'nikto')).toMatchObject({
      available: true,
      version: expect.stringMatching(/^\d+\.\d+/),
    });
    for (const { engine } of MISSING) {
      expect(list.find((entry) => entry.name === engine)).toMatchObject({
        available: false,
        unavailableReason:
          'no live worker runs it: its scanner is not installed where the workers run, or their WORKER_ENGINES leave it out',
      });
    }
    for (const name of available) {
      expect(list.find((entry) => entry.name === name)?.unavailableReason, name).toBeNull();
    }
  });

  it('reports each engine sandboxed when its worker runs it in the scanner sandbox', async () => {
    const key = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    const list = await engines(key);
    const sandboxed = list.filter((engine) => engine.sandboxed).map((engine) => engine.name);
    // As root with the scanner user (CI) the worker sandboxes every scanner it found (and the
    // sentinel's members with them); elsewhere SCANNER_SANDBOX=auto starts it without.
    expect(sandboxed.sort()).toEqual(
      TEST_SANDBOX === null ? [] : [...INSTALLED_ENGINES, 'sentinel'].sort(),
    );
  });

  it.each(MISSING)(
    'refuses a $engine scan with 503 naming the engine, storing nothing',
    async ({ engine, target }) => {
      const tenant = randomUUID();
      const key = (await createKey(ctx.app, await tokenFor(tenant))).rawKey;
      await engines(key);
      const response = await ctx.app.request('/api/v1/scans', {
        method: 'POST',
        headers: { 'x-api-key': key },
        json: { target, scanType: engine },
      });
      expect(response.status, response.text).toBe(503);
      expect(response.body).toEqual({
        success: false,
        code: 'SERVICE_UNAVAILABLE',
        error: `Service temporarily unavailable: no worker can run ${engine} scans right now`,
      });
      const listed = await ctx.app.request(`/api/v1/scans?scanType=${engine}`, {
        headers: { 'x-api-key': key },
      });
      expect(listed.body.data.pagination.total).toBe(0);
      const usage = await ctx.app.request('/api/v1/usage', { headers: { 'x-api-key': key } });
      expect(usage.body.data.quota.used).toBe(0);
    },
  );
});
