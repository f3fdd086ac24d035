/** Helpers for scan tests: create a scan over HTTP and wait for it to reach a status. */
import { expect } from 'vitest';
import type { TestApp } from './harness.js';

/** The fields of the creation answer (specification, "Scan"), sorted. */
export const SCAN_CREATED_FIELDS = [
  'createdAt',
  'id',
  'name',
  'priority',
  'progress',
  'scanType',
  'status',
  'tags',
  'target',
] as const;

export async function createScan(
  app: TestApp,
  key: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: string }> {
  const response = await app.request('/api/v1/scans', {
    method: 'POST',
    headers: { 'x-api-key': key },
    json: body,
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data;
}

export async function getScan(app: TestApp, key: string, id: string) {
  const response = await app.request(`/api/v1/scans/${id}`, { headers: { 'x-api-key': key } });
  expect(response.status, response.text).toBe(200);
  return response.body.data.scan;
}

/**
 * Polls GET /api/v1/scans/:id until its status is one of `statuses`: every 25 ms at first, then
 * less often (up to every 250 ms), so a scan that runs for seconds does not spend the key's
 * per-minute request budget.
 */
export async function waitForStatus(
  app: TestApp,
  key: string,
  id: string,
  statuses: readonly string[],
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (let everyMs = 25; ; everyMs = Math.min(everyMs * 2, 250)) {
    const scan = await getScan(app, key, id);
    if (statuses.includes(scan.status)) {
      return scan;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `scan ${id} is ${scan.status}, not ${statuses.join('/')}, after ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Polls GET /api/v1/scans/:id every `everyMs` until the scan has ended (a real scanner runs for seconds). */
export async function waitUntilEnded(
  app: TestApp,
  key: string,
  id: string,
  timeoutMs: number,
  everyMs = 250,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const scan = await getScan(app, key, id);
    if (['completed', 'failed', 'cancelled'].includes(scan.status)) {
      return scan;
    }
    if (Date.now() > deadline) {
      throw new Error(`scan ${id} is still ${scan.status} after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
