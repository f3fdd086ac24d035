/**
 * Every page of the dashboard passes axe-core's WCAG 2.1 A/AA rules in the real browser, in the
 * light and the dark scheme, and signing in works with the keyboard alone.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { draftFinding, instantEngine } from '../../doubles/engines.js';
import { accessibilityViolations } from '../../support/accessibility.js';
import { signIn, useBrowser } from '../../support/browser.js';
import { tokenFor, useTestApp } from '../../support/harness.js';
import { createScan, waitForStatus } from '../../support/scans.js';

const ctx = useTestApp(
  { ALLOW_PRIVATE_TARGETS: 'true', WORKERS: '1' },
  { engineRunners: new Map([['nmap', instantEngine(() => [draftFinding()])]]) },
);
const browser = useBrowser();

/** The list pages, each with the heading that shows it has rendered. */
const PAGES: readonly { path: string; heading: string }[] = [
  { path: '/app/scans', heading: 'Scans' },
  { path: '/app/scans/new', heading: 'New scan' },
  { path: '/app/issues', heading: 'Issues' },
  { path: '/app/assets', heading: 'Assets' },
  { path: '/app/schedules', heading: 'Schedules' },
  { path: '/app/webhooks', heading: 'Webhooks' },
  { path: '/app/keys', heading: 'API keys' },
  { path: '/app/usage', heading: 'Usage' },
];

describe('dashboard accessibility', () => {
  it('the sign-in page has no WCAG A/AA violations and signs in by keyboard', async () => {
    const page = await browser.open(ctx.app.url, undefined, { bypassCSP: true });
    await page.goto('/app/');
    await page.getByLabel('Dashboard token').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    // Keyboard only: the skip of focus lands in the token field, Enter in the form submits.
    await page.keyboard.press('Tab');
    await page.keyboard.type(await tokenFor(randomUUID()));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`every page has no WCAG A/AA violations (${scheme} scheme)`, async () => {
      const tenantId = randomUUID();
      const token = await tokenFor(tenantId);
      const call = async (method: string, path: string, json?: unknown) => {
        const response = await ctx.app.request(path, {
          method,
          headers: { authorization: `Bearer ${token}` },
          ...(json === undefined ? {} : { json }),
        });
        expect(response.status, response.text).toBeLessThan(300);
        return response.body.data;
      };
      // A scan with a finding (and so an issue), an asset and a key: the detail pages have content.
      const { rawKey } = await call('POST', '/api/v1/api-keys', { name: 'a11y' });
      const scan = await createScan(ctx.app, rawKey, { target: '127.0.0.2', scanType: 'nmap' });
      await waitForStatus(ctx.app, rawKey, scan.id, ['completed']);
      const { issues } = await call('GET', '/api/v1/issues');
      const { asset } = await call('POST', '/api/v1/assets', {
        name: 'Shop',
        kind: 'domain',
        value: 'shop.example',
      });
      // An asset's page is /app/assets/<id>: it must not be taken for one of the build's files.
      const details = [
        { path: `/app/scans/${scan.id}`, heading: 'Scan of 127.0.0.2' },
        { path: `/app/issues/${issues[0].id}`, heading: issues[0].title },
        { path: `/app/assets/${asset.id}`, heading: 'Shop' },
      ];
      const page = await browser.open(ctx.app.url, undefined, { bypassCSP: true });
      await page.emulateMedia({ colorScheme: scheme });
      await signIn(page, token);
      for (const { path, heading } of [...PAGES, ...details]) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
        await page.getByText('Loading…').waitFor({ state: 'detached' });
        const violations = await accessibilityViolations(page);
        expect({ path, violations }).toEqual({ path, violations: [] });
      }
    }, 120_000);
  }
});
