/**
 * A sentinel scan's page in a real browser: its child scans (engine, status, progress, findings,
 * each linking to its own page), the engines left out and why, the risk factors behind its score,
 * and its correlated findings filtered by the child engine that produced them. nuclei and ZAP
 * cannot be installed here: their runs are instant test doubles (test/doubles/engines.ts) that
 * report the same SQL injection, which the sentinel correlates into one finding.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { draftFinding, instantEngine } from '../../doubles/engines.js';
import { signIn, useBrowser } from '../../support/browser.js';
import { createKey, tokenFor, useTestApp } from '../../support/harness.js';
import { createScan, waitForStatus } from '../../support/scans.js';

const TARGET = 'http://10.0.0.5:8080/search?q=1';
const sqlInjection = {
  severity: 'high' as const,
  category: 'vulnerability',
  location: { host: '10.0.0.5', port: 8080, protocol: 'tcp', url: TARGET },
  identifiers: { cve: [], cwe: ['CWE-89'] },
};
const doubles = {
  zap: instantEngine(() => [
    draftFinding({
      ...sqlInjection,
      ruleId: '40018',
      title: 'SQL Injection',
      toolSeverity: 'High',
      raw: { pluginid: '40018', confidence: '2', instances: [{ uri: TARGET, param: 'q' }] },
    }),
  ]),
  nuclei: instantEngine(() => [
    draftFinding({
      ...sqlInjection,
      severity: 'critical',
      ruleId: 'generic-sqli',
      title: 'SQL injection (error based)',
      toolSeverity: 'critical',
      raw: { templateId: 'generic-sqli', matchedAt: [TARGET] },
    }),
  ]),
};

const ctx = useTestApp(
  { WORKERS: '1', WORKER_CONCURRENCY: '4', ALLOW_PRIVATE_TARGETS: 'true' },
  {
    engineRunners: new Map(Object.entries(doubles)),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
  },
);
const browser = useBrowser();

describe('a sentinel scan in the dashboard', () => {
  it('shows its child scans, what it left out, its risk factors and its correlated finding', async () => {
    const token = await tokenFor(randomUUID());
    const key = (await createKey(ctx.app, token)).rawKey;
    const { id } = await createScan(ctx.app, key, {
      target: TARGET,
      scanType: 'sentinel',
      // deep: every applicable engine a worker runs (here the two doubles); the others are
      // left out, each with why.
      options: { depth: 'deep' },
    });
    const scan = await waitForStatus(ctx.app, key, id, ['completed']);
    const { children, skipped, riskFactors } = scan.sentinel as {
      children: { scanId: string; engine: string; status: string }[];
      skipped: { engine: string; reason: string }[];
      riskFactors: { factor: string; points: number }[];
    };
    expect(children.map((child) => [child.engine, child.status]).sort()).toEqual([
      ['nuclei', 'completed'],
      ['zap', 'completed'],
    ]);
    expect(skipped.length).toBeGreaterThan(0);
    expect(riskFactors.length).toBeGreaterThan(0);

    const page = await browser.open(ctx.app.url);
    await signIn(page, token, `/app/scans/${id}`);
    await page.getByRole('heading', { name: 'Engines of this sentinel scan' }).waitFor();
    const childTable = page.getByRole('table', { name: 'Child scans' });
    for (const child of children) {
      const row = childTable.getByRole('row').filter({ hasText: child.engine });
      await row.getByText('completed').waitFor();
      expect(await row.getByRole('progressbar').getAttribute('value')).toBe('100');
      expect(await row.getByRole('link', { name: child.engine }).getAttribute('href')).toBe(
        `/app/scans/${child.scanId}`,
      );
    }
    const leftOut = page.getByText(/^Left out: /);
    for (const skip of skipped) {
      expect(await leftOut.textContent()).toContain(`${skip.engine} (${skip.reason})`);
    }
    const factors = page.getByRole('table', { name: 'Risk factors, heaviest first' });
    expect(await factors.getByRole('row').count()).toBe(riskFactors.length + 1);

    // One correlated finding, named by the child engine that produced it; the engine filter
    // offers the children's engines.
    const listed = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
      headers: { 'x-api-key': key },
    });
    const [finding] = listed.body.data.findings as { engine: string; title: string }[];
    expect(listed.body.data.pagination.total).toBe(1);
    const engineFilter = page.locator('#findings-engine');
    expect(await engineFilter.locator('option').allTextContents()).toEqual([
      'any',
      'nuclei',
      'zap',
    ]);
    const shown = page.locator('tr[data-finding-id]').filter({ hasText: String(finding?.title) });
    await shown.waitFor();
    const other = finding?.engine === 'zap' ? 'nuclei' : 'zap';
    await engineFilter.selectOption(other);
    await page.getByText('No findings match these filters.').waitFor();
    await engineFilter.selectOption(String(finding?.engine));
    await shown.waitFor();

    // A child's link opens its own scan page, which names the sentinel scan it belongs to.
    await childTable.getByRole('link', { name: 'zap' }).click();
    await page.getByRole('link', { name: 'the sentinel scan' }).click();
    await page.getByRole('heading', { name: 'Engines of this sentinel scan' }).waitFor();
    expect(page.url()).toContain(`/app/scans/${id}`);
  });
});
