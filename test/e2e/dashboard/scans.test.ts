/**
 * The dashboard's new-scan form and scan detail page in a real browser, with a real nmap: a scan
 * of a port this test opens on 127.0.0.2 (ALLOW_PRIVATE_TARGETS, as in nmap-scan.test.ts; the
 * service's own 127.0.0.1 is refused by the egress rules) is started from the form with options,
 * followed live to completed, its open-port finding triaged (checked through the API) and its
 * results exported; refusals show the contract's error at the field; a running scan is cancelled.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResolvedTarget } from '../../../src/adapters/dns/resolve-target.js';
import { screenshot, signIn, useBrowser } from '../../support/browser.js';
import { bearer, tokenFor, useTestApp } from '../../support/harness.js';

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
          throw Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' });
        }),
    },
  },
);
const browser = useBrowser();

let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, LISTEN, resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const SCAN_PATH = /\/app\/scans\/([0-9a-f-]{36})$/;

describe('scans in the dashboard', () => {
  it('starts an nmap scan with options, follows it live, triages and exports its finding', async () => {
    const token = await tokenFor(randomUUID(), { subject: 'ana' });
    const page = await browser.open(ctx.app.url);
    await signIn(page, token);
    await page.getByRole('link', { name: 'New scan' }).click();
    await page.getByRole('heading', { name: 'New scan' }).waitFor();

    // The engines as the API lists them: the available ones selectable, the others disabled.
    const engines = (await ctx.app.request('/api/v1/engines', { headers: bearer(token) })).body.data
      .engines as { name: string; available: boolean; unavailableReason: string | null }[];
    expect(engines.find((engine) => engine.name === 'nmap')?.available).toBe(true);
    const engineSelect = page.getByLabel('Engine');
    for (const engine of engines) {
      const option = engineSelect.locator(`option[value="${engine.name}"]`);
      expect(await option.isDisabled(), engine.name).toBe(!engine.available);
    }
    // Why the others are not available, as the API says it (ZAP, trivy, nuclei, theHarvester
    // cannot be installed here).
    const unavailable = engines.filter((engine) => !engine.available);
    expect(unavailable.length).toBeGreaterThan(0);
    const reasons = (await page.getByTestId('unavailable-engines').textContent()) ?? '';
    for (const engine of unavailable) {
      expect(reasons).toContain(engine.name);
      expect(reasons).toContain(`(${engine.unavailableReason})`);
    }

    await page.getByLabel('Target', { exact: true }).fill(LISTEN);
    await engineSelect.selectOption('nmap');
    await page.getByLabel('Name', { exact: true }).fill('dashboard nmap');
    await page.getByLabel('Tags').fill('dashboard, e2e');
    await page.getByLabel('Ports', { exact: true }).fill(String(port));
    await page.getByLabel('Timing', { exact: true }).selectOption('T4');
    await page.getByLabel('Service detection').uncheck();
    await screenshot(page, 'new-scan');
    // A mark in the page's window: still there at the end, so nothing below reloaded the page.
    await page.evaluate('window.rampartTestMark = 1');
    await page.getByRole('button', { name: 'Start scan' }).click();

    await page.waitForURL(SCAN_PATH);
    const scanId = SCAN_PATH.exec(page.url())?.[1] ?? '';
    await page
      .getByText('Scan completed, 100% done')
      .waitFor({ state: 'attached', timeout: 60_000 });
    expect(await page.getByRole('progressbar', { name: 'Scan progress' }).isVisible()).toBe(true);
    expect(await page.evaluate<number>('window.rampartTestMark')).toBe(1);

    // What the form sent: only the fields changed, with their JSON types.
    const stored = (await ctx.app.request(`/api/v1/scans/${scanId}`, { headers: bearer(token) }))
      .body.data.scan;
    expect(stored).toMatchObject({
      target: LISTEN,
      scanType: 'nmap',
      name: 'dashboard nmap',
      tags: ['dashboard', 'e2e'],
      status: 'completed',
      progress: 100,
      resultCount: 1,
      options: { ports: String(port), timing: 'T4', serviceDetection: false, osDetection: false },
    });

    // The open port, as a finding of the page.
    const row = page.getByRole('row').filter({ hasText: `${port}/tcp` });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('nmap');
    expect(await row.textContent()).toContain('Not triaged');

    // Accepting the risk needs a reason: the contract's error first, then the stored triage.
    await row.getByRole('button', { name: /^Triage / }).click();
    const triageForm = page.getByRole('form', { name: /^Triage of / });
    await triageForm.getByLabel('Triage').selectOption('accepted_risk');
    await triageForm.getByRole('button', { name: 'Save triage' }).click();
    const refusal = triageForm.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('INVALID_FIELD_VALUE');
    await triageForm.getByLabel('Reason').fill('Test listener, closed after the run');
    await triageForm.getByRole('button', { name: 'Save triage' }).click();
    await page.getByRole('status').filter({ hasText: 'Accepted risk, saved' }).waitFor();
    await row.filter({ hasText: 'Accepted risk' }).waitFor();

    const findings = (
      await ctx.app.request(`/api/v1/scans/${scanId}/findings`, { headers: bearer(token) })
    ).body.data.findings;
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ triage: 'accepted_risk', category: 'open-port' });
    const issue = (
      await ctx.app.request(`/api/v1/issues/${findings[0].issueId}`, { headers: bearer(token) })
    ).body.data.issue;
    expect(issue).toMatchObject({
      triage: 'accepted_risk',
      triageReason: 'Test listener, closed after the run',
      triagedBy: 'ana',
      triageExpiresAt: null,
    });

    // Filters, each a query of the API kept in the address: triage, engine, severity.
    await page.getByLabel('Triage', { exact: true }).selectOption('none');
    await page.getByText('No findings match these filters.').waitFor();
    await page.getByLabel('Triage', { exact: true }).selectOption('accepted_risk');
    await row.waitFor();
    const engineFilter = page.locator('#findings-engine');
    expect(await engineFilter.locator('option').allTextContents()).toEqual(['any', 'nmap']);
    await engineFilter.selectOption('nmap');
    await page.waitForURL(/engine=nmap/);
    await row.waitFor();
    await page.getByLabel('Severity', { exact: true }).selectOption('high');
    await page.getByText('No findings match these filters.').waitFor();
    expect(page.url()).toContain('severity=high');
    expect(page.url()).toContain('triage=accepted_risk');
    await page.getByLabel('Severity', { exact: true }).selectOption('');
    await row.waitFor();
    expect(await page.getByRole('navigation', { name: 'findings pages' }).textContent()).toContain(
      'Page 1 of 1 · 1 findings',
    );
    await screenshot(page, 'scan-detail');

    // An export, fetched with the token and saved from a Blob.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'SARIF' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`rampart-scan-${scanId}.sarif`);
    const sarif = JSON.parse(await readFile(await download.path(), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results).toHaveLength(1);
    expect(await page.evaluate<number>('window.rampartTestMark')).toBe(1);
  }, 120_000);

  it('shows a refused option or target with the contract’s error at its field', async () => {
    const page = await browser.open(ctx.app.url);
    await signIn(page, await tokenFor(randomUUID()), '/app/scans/new');
    await page.getByRole('heading', { name: 'New scan' }).waitFor();
    await page.getByLabel('Engine').selectOption('nmap');
    await page.getByLabel('Target', { exact: true }).fill(LISTEN);
    const ports = page.getByLabel('Ports', { exact: true });
    await ports.fill('70000');
    await page.getByRole('button', { name: 'Start scan' }).click();
    const portsError = page.locator('#option-ports-error');
    await portsError.waitFor();
    expect(await portsError.getAttribute('role')).toBe('alert');
    expect(await portsError.textContent()).toMatch(
      /^INVALID_FIELD_VALUE: Invalid value for field options\.ports: /,
    );
    expect(await ports.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('option-ports');

    await ports.fill('22');
    const target = page.getByLabel('Target', { exact: true });
    await target.fill('not a target!');
    await page.getByRole('button', { name: 'Start scan' }).click();
    const targetError = page.locator('#scan-target-error');
    await targetError.waitFor();
    expect(await targetError.textContent()).toMatch(/^INVALID_TARGET: Invalid target: /);
    expect(await target.getAttribute('aria-invalid')).toBe('true');
    expect(await ports.getAttribute('aria-invalid')).toBe('false');
    expect(page.url()).toMatch(/\/app\/scans\/new$/);
  });

  it('cancels a running scan from its page', async () => {
    const token = await tokenFor(randomUUID());
    // Slow on purpose: every port at paranoid timing keeps the real nmap running.
    const created = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: bearer(token),
      json: {
        target: LISTEN,
        scanType: 'nmap',
        options: { ports: '1-65535', timing: 'T0', serviceDetection: false },
      },
    });
    expect(created.status).toBe(201);
    const scanId = created.body.data.id as string;
    const page = await browser.open(ctx.app.url);
    await signIn(page, token, `/app/scans/${scanId}`);
    await page.getByText('Scan running').waitFor({ state: 'attached', timeout: 20_000 });
    await page.getByRole('button', { name: 'Cancel scan' }).click();
    await page.getByRole('status').filter({ hasText: 'Scan cancelled.' }).waitFor();
    await page.getByText('Scan cancelled,').waitFor({ state: 'attached' });
    expect(await page.getByRole('button', { name: 'Cancel scan' }).count()).toBe(0);
    const scan = (await ctx.app.request(`/api/v1/scans/${scanId}`, { headers: bearer(token) })).body
      .data.scan;
    expect(scan.status).toBe('cancelled');
  }, 60_000);
});
