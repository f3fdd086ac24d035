/**
 * `sandboxed` in the worker registry and in GET /api/v1/engines: an engine is sandboxed when every
 * live worker that runs it runs it in the scanner sandbox, since a scan may land on any of them;
 * sentinel is as sandboxed as the engines it would run now.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { registerWorker, unregisterWorker } from '../../src/adapters/db/workers.repository.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';

const ctx = useTestApp();

async function sandboxedByEngine(key: string): Promise<Record<string, boolean>> {
  // The worker directory caches its answer for a second.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const response = await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key } });
  expect(response.status, response.text).toBe(200);
  const list = response.body.data.engines as Array<{ name: string; sandboxed: boolean }>;
  return Object.fromEntries(list.map((engine) => [engine.name, engine.sandboxed]));
}

describe('sandboxed engines in the worker registry', () => {
  it('is sandboxed only while every live worker running the engine sandboxes it', async () => {
    const key = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    const db = ctx.database.handle.db;
    await registerWorker(db, {
      id: 'sandboxed-worker',
      engines: ['nmap', 'sqlmap'],
      sandboxedEngines: ['nmap', 'sqlmap'],
      hostname: 'test',
      pid: 1,
    });
    await registerWorker(db, {
      id: 'laptop-worker',
      engines: ['sqlmap'],
      hostname: 'test',
      pid: 2,
    });
    expect(await sandboxedByEngine(key)).toMatchObject({
      nmap: true,
      sqlmap: false,
      // Not registered at all: nothing runs it, so nothing runs it sandboxed.
      zap: false,
      // It would run nmap (sandboxed) and sqlmap (maybe not).
      sentinel: false,
    });
    await unregisterWorker(db, 'laptop-worker');
    expect(await sandboxedByEngine(key)).toMatchObject({
      nmap: true,
      sqlmap: true,
      zap: false,
      sentinel: true,
    });
    await unregisterWorker(db, 'sandboxed-worker');
  });
});
