/**
 * The dashboard's issues, assets, schedules and usage pages in a real browser (Debian chromium,
 * playwright-core) against a listening app whose test double nmap completes each scan at once
 * with three open ports: the issues those scans make are triaged one by one and in bulk (checked
 * through the API), an asset shows how to prove ownership and is verified against a local DNS
 * server, a schedule is refused a bad cron expression, then created, paused and resumed, and the
 * usage page shows the quota and the charts with GET /api/v1/usage's and /usage/daily's numbers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { draftFinding, instantEngine } from '../../doubles/engines.js';
import { screenshot, signIn, useBrowser } from '../../support/browser.js';
import { startDnsServer } from '../../support/dns-server.js';
import { bearer, tokenFor, useTestApp } from '../../support/harness.js';

const PORTS = [22, 80, 443] as const;
const dns = await startDnsServer();
afterAll(() => dns.close());

const ctx = useTestApp(
  {
    ALLOW_PRIVATE_TARGETS: 'true',
    WORKERS: '1',
    VERIFICATION_DNS_SERVERS: dns.address,
    VERIFICATION_TIMEOUT_MS: '2000',
  },
  {
    engineRunners: new Map([
      [
        'nmap',
        instantEngine(() =>
          PORTS.map((port) =>
            draftFinding({
              title: `Open port ${port}/tcp`,
              location: { host: '127.0.0.2', port, protocol: 'tcp', url: null },
              raw: { portid: String(port) },
            }),
          ),
        ),
      ],
    ]),
  },
);
const browser = useBrowser();

/** A tenant with one completed nmap scan of 127.0.0.2 (three open ports: three issues). */
async function tenantWithIssues(): Promise<{ token: string; call: typeof callAs }> {
  const token = await tokenFor(randomUUID(), { subject: 'dana' });
  const created = await callAs(token, 'POST', '/api/v1/scans', {
    target: '127.0.0.2',
    scanType: 'nmap',
  });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  await expect
    .poll(async () => (await callAs(token, 'GET', `/api/v1/scans/${id}`)).body.data.scan.status, {
      timeout: 15_000,
    })
    .toBe('completed');
  return { token, call: callAs };
}

function callAs(token: string, method: string, path: string, json?: unknown) {
  return ctx.app.request(path, { method, headers: bearer(token), json });
}

// Each test signs in and drives several pages on a machine shared with other test files.
describe('the dashboard resource pages', { timeout: 90_000 }, () => {
  it('lists the issues of completed scans, triages one, and two in bulk', async () => {
    const { token } = await tenantWithIssues();
    const page = await browser.open(ctx.app.url);
    await signIn(page, token);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Issues' })
      .click();
    await page.getByRole('heading', { name: 'Issues', exact: true }).waitFor();
    const rows = page.locator('tr[data-issue-id]');
    await expect.poll(() => rows.count()).toBe(3);
    await screenshot(page, 'issues');

    // Filters live in the address and are sent to the API.
    const filters = page.getByRole('form', { name: 'Filter issues' });
    await filters.getByLabel('Triage').selectOption('none');
    await expect.poll(() => page.url()).toMatch(/\/app\/issues\?triage=none$/);
    await expect.poll(() => rows.count()).toBe(3);

    // One issue from its page: an accepted risk with a reason and an expiry.
    await page.getByRole('link', { name: 'Open port 22/tcp' }).click();
    await page.getByRole('heading', { name: 'Open port 22/tcp' }).waitFor();
    const issueId = page.url().split('/').pop() ?? '';
    await page.getByLabel('Triage', { exact: true }).selectOption('accepted_risk');
    // Without a reason the API refuses it: its code and message are shown.
    await page.getByRole('button', { name: 'Save triage' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/^INVALID_FIELD_VALUE: /);
    await page.getByLabel('Reason').fill('behind the VPN');
    await page.getByLabel('Expires').fill('2099-01-02T03:04');
    await page.getByRole('button', { name: 'Save triage' }).click();
    await page.getByText('Triage saved: Accepted risk.').waitFor();
    const stuck = await callAs(token, 'GET', `/api/v1/issues/${issueId}`);
    expect(stuck.body.data.issue).toMatchObject({
      triage: 'accepted_risk',
      triageReason: 'behind the VPN',
      triagedBy: 'dana',
      triageExpiresAt: new Date('2099-01-02T03:04').toISOString(),
    });
    // The page reloads the issue after the save: its triage in effect follows.
    await expect
      .poll(() => page.getByTestId('triage-in-effect').textContent())
      .toContain('behind the VPN');
    await page.getByRole('row', { name: /triage none → accepted_risk/ }).waitFor();

    // Back to the list still filtered on triage none: two left, both selected and triaged.
    await page.goBack();
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Select Open port 80/tcp on 127.0.0.2').check();
    await page.getByLabel('Select Open port 443/tcp on 127.0.0.2').check();
    const bulk = page.getByRole('group', { name: 'Triage the selected issues (2)' });
    await bulk.getByLabel('Triage', { exact: true }).selectOption('false_positive');
    await bulk.getByLabel('Reason').fill('lab host');
    await bulk.getByRole('button', { name: 'Triage 2 selected' }).click();
    await page.getByText('2 issues changed to False positive.').waitFor();
    await expect.poll(() => rows.count()).toBe(0);
    const falsePositives = await callAs(token, 'GET', '/api/v1/issues?triage=false_positive');
    expect(
      falsePositives.body.data.issues.map((issue: { title: string }) => issue.title).sort(),
    ).toEqual(['Open port 443/tcp', 'Open port 80/tcp']);
  });

  it('registers an asset, shows how to prove ownership, and verifies it', async () => {
    const token = await tokenFor(randomUUID());
    const page = await browser.open(ctx.app.url);
    await signIn(page, token, '/app/assets');
    await page.getByRole('heading', { name: 'Assets', exact: true }).waitFor();
    await page.getByLabel('Name').fill('Shop');
    await page.getByLabel('Kind').selectOption('domain');
    await page.getByLabel('Value').fill('shop.example');
    await page.getByLabel('Tags').fill('prod, web');
    await page.getByRole('button', { name: 'Add asset' }).click();
    await page.getByRole('heading', { name: 'Prove ownership' }).waitFor();

    const assetId = page.url().split('/').pop() ?? '';
    const asset = (await callAs(token, 'GET', `/api/v1/assets/${assetId}`)).body.data.asset;
    const { verification } = asset;
    expect(await page.getByTestId('verification-token').textContent()).toBe(verification.token);
    const proof = page.getByRole('region', { name: 'Prove ownership' });
    for (const name of verification.dns.names as string[]) {
      await proof.getByRole('listitem').getByText(name, { exact: true }).waitFor();
    }
    await proof.getByText(verification.dns.value, { exact: true }).waitFor();
    await proof.getByText(verification.http.url, { exact: true }).waitFor();

    // Nothing published yet: the outcome says why; then the TXT record, and it is verified.
    const verify = page.getByRole('button', { name: 'Verify now' });
    await verify.click();
    await page.getByText(/^Not verified: /).waitFor();
    dns.setTxt(verification.dns.names[0], [verification.dns.value]);
    await verify.click();
    await page.getByText('Verified (dns).').waitFor();
    await screenshot(page, 'asset-verification');
    const after = await callAs(token, 'GET', `/api/v1/assets/${assetId}`);
    expect(after.body.data.asset.verification).toMatchObject({ status: 'verified', method: 'dns' });

    // Rename it; the list shows the new name verified.
    await page.getByLabel('Name').fill('Shop front');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('link', { name: '← Assets' }).click();
    const row = page.locator(`tr[data-asset-id="${assetId}"]`);
    await row.getByRole('link', { name: 'Shop front' }).waitFor();
    expect(await row.textContent()).toContain('verified');
    await screenshot(page, 'assets');

    // Delete it.
    await row.getByRole('link', { name: 'Shop front' }).click();
    await page.getByRole('button', { name: 'Delete asset' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete asset' }).click();
    await page.getByText('No assets yet.').waitFor();
    expect((await callAs(token, 'GET', `/api/v1/assets/${assetId}`)).status).toBe(404);
  });

  it('creates a schedule (the API checks the cron expression), pauses and resumes it', async () => {
    const token = await tokenFor(randomUUID());
    const page = await browser.open(ctx.app.url);
    await signIn(page, token, '/app/schedules');
    await page.getByText('No schedules yet.').waitFor();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Name').fill('nightly');
    await form.getByRole('textbox', { name: 'Targets' }).fill('127.0.0.2');
    await form.getByLabel('Engine').selectOption('nmap');
    await form.getByRole('textbox', { name: 'Cron' }).fill('61 * * * *');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    expect(await form.getByRole('alert').textContent()).toMatch(/^INVALID_FIELD_VALUE: .*cron/);

    await form.getByRole('textbox', { name: 'Cron' }).fill('30 2 * * *');
    await form.getByLabel('Time zone').fill('Europe/Paris');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByText('Schedule nightly created.').waitFor();
    const row = page.locator('tr[data-schedule-id]');
    await row.waitFor();
    expect(await row.textContent()).toContain('cron 30 2 * * * (Europe/Paris)');
    const scheduleId = (await row.getAttribute('data-schedule-id')) ?? '';
    const read = async () =>
      (await callAs(token, 'GET', `/api/v1/schedules/${scheduleId}`)).body.data.schedule;
    expect(await read()).toMatchObject({ targets: ['127.0.0.2'], paused: false });

    await row.getByRole('button', { name: 'Pause nightly' }).click();
    await row.getByRole('button', { name: 'Resume nightly' }).waitFor();
    expect(await row.getByRole('status').textContent()).toBe('paused');
    expect((await read()).paused).toBe(true);
    await row.getByRole('button', { name: 'Resume nightly' }).click();
    await row.getByRole('button', { name: 'Pause nightly' }).waitFor();
    expect((await read()).paused).toBe(false);

    // Edit it into an interval on its page.
    await row.getByRole('link', { name: 'nightly' }).click();
    const edit = page.getByRole('form', { name: 'Edit schedule' });
    await edit.getByLabel('Every so many minutes').check();
    await edit.getByLabel('Interval in minutes').fill('120');
    await edit.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('every 2 hours').first().waitFor();
    expect(await read()).toMatchObject({ intervalSeconds: 7200, cron: null });

    // Delete it: the page asks first; cancelling keeps it.
    await page.getByRole('button', { name: 'Delete schedule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete nightly?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await callAs(token, 'GET', `/api/v1/schedules/${scheduleId}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete schedule' }).click();
    await dialog.getByRole('button', { name: 'Delete schedule' }).click();
    await page.getByText('No schedules yet.').waitFor();
    expect((await callAs(token, 'GET', `/api/v1/schedules/${scheduleId}`)).status).toBe(404);
  });

  it('shows the quota and the charts with the numbers of GET /api/v1/usage', async () => {
    const { token } = await tenantWithIssues();
    const usage = (await callAs(token, 'GET', '/api/v1/usage')).body.data;
    expect(usage.scans.byScanType).toEqual({ nmap: 1 });
    const page = await browser.open(ctx.app.url);
    await signIn(page, token, '/app/usage');
    await page.getByRole('heading', { name: 'Usage', exact: true }).waitFor();
    const text = async (id: string) => (await page.getByTestId(id).textContent()) ?? '';
    expect(await text('quota-used')).toBe(usage.quota.used.toLocaleString('en'));
    expect(await text('quota-remaining')).toBe(usage.quota.remaining.toLocaleString('en'));
    expect(await text('quota-limit')).toBe(usage.quota.limit.toLocaleString('en'));
    const meter = page.getByRole('meter', { name: 'Scans used of the monthly quota' });
    expect(Number(await meter.getAttribute('value'))).toBe(usage.quota.used);

    // The charts are images with a text alternative, and their numbers stand in tables.
    const byEngine = page.getByRole('img', { name: /^Scans this month by engine: / });
    expect(await byEngine.getAttribute('aria-label')).toBe('Scans this month by engine: nmap 1.');
    const engines = page.getByRole('table', { name: /by engine/ });
    expect(await engines.getByRole('row', { name: 'nmap 1' }).count()).toBe(1);
    const severities = page.getByRole('table', { name: /Open issues by severity/ });
    expect(await severities.getByRole('row', { name: 'info 3' }).count()).toBe(1);
    expect(usage.issues.openBySeverity.info).toBe(3);
    // Scans per day: the one scan on today's column (GET /api/v1/usage/daily).
    const daily = (await callAs(token, 'GET', '/api/v1/usage/daily')).body.data.days;
    expect(daily).toHaveLength(30);
    const today = new Intl.DateTimeFormat('en', {
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(`${daily.at(-1).date}T00:00:00Z`));
    const perDay = page.getByRole('img', { name: /^Scans per day, the last 30 days/ });
    expect(await perDay.getAttribute('aria-label')).toBe(
      `Scans per day, the last 30 days (UTC): 1 in all, most on ${today} (1).`,
    );
    await page.getByText('The numbers').click();
    const days = page.getByRole('table', { name: /Scans per day/ });
    expect(await days.getByRole('row').count()).toBe(31);
    expect(await days.getByRole('row', { name: `${today} 1` }).count()).toBe(1);
    await page.getByText('The numbers').click();
    await screenshot(page, 'usage');
  });
});
