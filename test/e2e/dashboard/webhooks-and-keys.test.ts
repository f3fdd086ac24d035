/**
 * Webhooks and API keys in the dashboard, in a real browser against a listening app: a webhook
 * pointed at a real HTTPS receiver (its certificate signed by the test CA, which vitest.config.ts
 * makes the process trust), its secret shown once and verifying what the receiver got, the
 * delivery log of a test delivery, of a scan's delivery the receiver refused, and of its
 * redelivery after the receiver recovered; keys created, used, rotated and revoked through the
 * pages and checked over HTTP with the raw keys the pages showed once.
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../examples/verify-webhook-signature.js';
import { draftFinding, instantEngine } from '../../doubles/engines.js';
import { screenshot, signIn, useBrowser } from '../../support/browser.js';
import { bearer, SCAN_ADDRESS, tokenFor, useTestApp } from '../../support/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from '../../support/tls.js';

const ctx = useTestApp(
  {
    WORKERS: '1',
    ALLOW_PRIVATE_TARGETS: 'true',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    // Four quick attempts, so a refused delivery is over (and can be redelivered) within seconds.
    WEBHOOK_RETRY_DELAYS_MS: '0,100,200,300',
    WEBHOOK_TIMEOUT_MS: '2000',
  },
  { engineRunners: new Map([['nmap', instantEngine(() => [draftFinding()])]]) },
);
const browser = useBrowser();
/** Each test drives many pages, every step waiting on the service or the log's polling. */
const BROWSER_TEST_MS = 90_000;

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** The text of the `.secret` box a page shows once. */
async function shownSecret(page: Page): Promise<string> {
  const box = page.locator('.secret-once .secret');
  await box.waitFor();
  return (await box.textContent()) ?? '';
}

/** The delivery log's row of one attempt, found by its state, event and attempt number. */
const logRow = (page: Page, state: string, event: string, attempt?: number) =>
  page
    .locator(
      `table.deliveries tr[data-state="${state}"]${attempt === undefined ? '' : `[data-attempt="${attempt}"]`}`,
    )
    .filter({ hasText: event });

/** Waits until the delivery log shows `rows` rows (it reloads after a filter changes). */
const logLength = (page: Page, rows: number) =>
  expect.poll(() => page.locator('table.deliveries tbody tr').count()).toBe(rows);

describe('webhooks in the dashboard', () => {
  it(
    'creates a webhook, shows its secret once, and logs a test, a refusal and a redelivery',
    async () => {
      const tenantId = randomUUID();
      const token = await tokenFor(tenantId);
      const page = await browser.open(ctx.app.url);
      await signIn(page, token);
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await page.getByText('No webhooks yet.').waitFor();

      await page.getByRole('button', { name: 'New webhook' }).click();
      await page.getByLabel('Name').fill('ops receiver');
      await page.getByLabel('URL').fill(`${receiver.url}hooks`);
      // The events the API accepts, ticked as a webhook gets them by default.
      expect(
        await page.getByRole('checkbox', { name: 'scan.completed', exact: true }).isChecked(),
      ).toBe(true);
      expect(
        await page.getByRole('checkbox', { name: 'scan.failed', exact: true }).isChecked(),
      ).toBe(true);
      expect(
        await page.getByRole('checkbox', { name: 'scan.started', exact: true }).isChecked(),
      ).toBe(false);
      await page.getByRole('checkbox', { name: 'scan.cancelled', exact: true }).check();
      await page.getByRole('button', { name: 'Create webhook' }).click();

      const secret = await shownSecret(page);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
      expect(await page.locator('.secret-once').textContent()).toContain('shown once');
      expect(page.url()).not.toContain(secret);
      const row = page.locator('tr[data-webhook-id]').filter({ hasText: 'ops receiver' });
      await row.waitFor();
      expect(await row.textContent()).toContain('scan.completed, scan.failed, scan.cancelled');
      await page.getByRole('link', { name: 'Open the webhook' }).click();
      await page.getByRole('heading', { name: 'ops receiver' }).waitFor();
      await page.getByText('No deliveries yet.').waitFor();
      // The secret is gone once the page changed: it was only ever in that page's memory.
      expect(await page.locator('.secret-once').count()).toBe(0);
      expect(
        await page.evaluate<string>(
          'JSON.stringify([sessionStorage, localStorage, location.href])',
        ),
      ).not.toContain(secret);

      // Send test: delivered now, 200, signed with the secret the page showed.
      await page.getByRole('button', { name: 'Send test' }).click();
      await page.getByText('Test delivered: the receiver answered 200').waitFor();
      const [test] = await receiver.waitForRequests(1);
      expect(test?.url).toBe('/hooks');
      expect(JSON.parse(String(test?.body)).event).toBe('webhook.test');
      const signature = test?.headers['x-webhook-signature'];
      expect(verifyWebhookSignature(test?.body ?? Buffer.alloc(0), String(signature), secret)).toBe(
        true,
      );
      const tested = logRow(page, 'delivered', 'webhook.test', 1);
      await tested.waitFor();
      expect(await tested.locator('[data-column="response"]').textContent()).toBe('200');
      // A test delivery is never sent again.
      expect(await tested.getByRole('button', { name: /Redeliver/ }).count()).toBe(0);

      // A scan's completion while the receiver answers 500: four attempts, then the delivery is over.
      receiver.setStatus(500);
      const scan = await ctx.app.request('/api/v1/scans', {
        method: 'POST',
        headers: bearer(token),
        json: { target: SCAN_ADDRESS, scanType: 'nmap' },
      });
      expect(scan.status, scan.text).toBe(201);
      const refused = logRow(page, 'failed', 'scan.completed', 4);
      await refused.waitFor();
      expect(await refused.locator('[data-column="response"]').textContent()).toBe('500');
      // The earlier attempts were retried: failed, with no next attempt left to show.
      expect(await logRow(page, 'failed', 'scan.completed').count()).toBe(4);
      const received = receiver.requests.length;
      expect(received).toBe(5);
      const deliveryId = await refused.getAttribute('data-delivery-id');
      expect(deliveryId).toMatch(/^del-/);
      await page.locator('dl.facts').getByText('failing', { exact: true }).waitFor();

      // The receiver recovers; Redeliver sends the same body again as a new delivery, logged.
      receiver.setStatus(200);
      await refused.getByRole('button', { name: /^Redeliver scan\.completed/ }).click();
      await page.getByText(/^Redelivery \w+ of scan\.completed queued/).waitFor();
      const redelivered = logRow(page, 'delivered', 'scan.completed', 1).filter({
        hasText: `redelivery of ${String(deliveryId).slice(4, 12)}`,
      });
      await redelivered.waitFor();
      expect(await redelivered.locator('[data-column="response"]').textContent()).toBe('200');
      const requests = await receiver.waitForRequests(received + 1);
      const last = requests[received];
      expect(String(last?.body)).toBe(String(requests[received - 1]?.body));
      expect(
        verifyWebhookSignature(
          last?.body ?? Buffer.alloc(0),
          String(last?.headers['x-webhook-signature']),
          secret,
        ),
      ).toBe(true);
      // The redelivery ended the failure streak: the webhook is healthy again.
      await page.locator('dl.facts').getByText('active', { exact: true }).waitFor();
      await screenshot(page, 'webhook-deliveries');

      // Recover over the last day finds nothing more to send: the event's newest delivery worked.
      await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
      await page.getByText('No failed delivery in that window to send again.').waitFor();
      expect(receiver.requests.length).toBe(received + 1);

      // The log's filters, on the service: failed attempts only, then one event, then one delivery.
      const rows = page.locator('table.deliveries tbody tr');
      expect(await rows.count()).toBe(6);
      const filters = page.getByRole('form', { name: 'Filter deliveries' });
      await filters.getByLabel('Outcome').selectOption('failed');
      await page.waitForURL(/outcome=failed/);
      await logLength(page, 4);
      expect(await logRow(page, 'failed', 'scan.completed').count()).toBe(4);
      // The last attempt of the refused delivery is over: it still offers Redeliver.
      expect(await refused.getByRole('button', { name: /^Redeliver/ }).count()).toBe(1);
      await filters.getByLabel('Outcome').selectOption('');
      await filters.getByLabel('Event').selectOption('webhook.test');
      await logLength(page, 1);
      await tested.waitFor();
      await filters.getByLabel('Event').selectOption('');
      await refused
        .getByRole('button', {
          name: `Show every attempt of delivery ${String(deliveryId).slice(4, 12)}`,
        })
        .click();
      await page.waitForURL(new RegExp(`delivery=${deliveryId}`));
      await logLength(page, 4);
      expect(
        await rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-attempt'))),
      ).toEqual(['4', '3', '2', '1']);
      await filters.getByRole('button', { name: 'Show every delivery' }).click();
      await logLength(page, 6);
    },
    BROWSER_TEST_MS,
  );

  it(
    'edits, disables, enables and deletes a webhook, asking before the delete',
    async () => {
      const token = await tokenFor(randomUUID());
      const created = await ctx.app.request('/api/v1/webhooks', {
        method: 'POST',
        headers: bearer(token),
        json: { name: 'to change', url: `${receiver.url}other` },
      });
      expect(created.status, created.text).toBe(201);
      const id: string = created.body.data.webhook.id;
      const page = await browser.open(ctx.app.url);
      await signIn(page, token, `/app/webhooks/${id}`);
      await page.getByRole('heading', { name: 'to change' }).waitFor();

      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Name').fill('changed');
      await page.getByRole('checkbox', { name: 'scan.failed', exact: true }).uncheck();
      await page.getByRole('checkbox', { name: /^Send scan\.completed only/ }).check();
      await page.getByLabel('At or above').selectOption('high');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'changed' }).waitFor();
      const got = await ctx.app.request(`/api/v1/webhooks/${id}`, { headers: bearer(token) });
      expect(got.body.data.webhook).toMatchObject({
        name: 'changed',
        events: ['scan.completed'],
        filters: { minSeverity: 'high', onlyNew: true },
      });

      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('Webhook disabled').waitFor();
      // Once the page has reloaded the webhook: shown disabled, and no test can be sent.
      await page.locator('dl.facts').getByText('disabled', { exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByText('Webhook enabled').waitFor();
      await page.locator('dl.facts').getByText('active', { exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Send test' }).isDisabled()).toBe(false);

      await page.getByRole('button', { name: 'Delete' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete changed?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect(
        (await ctx.app.request(`/api/v1/webhooks/${id}`, { headers: bearer(token) })).status,
      ).toBe(200);
      await page.getByRole('button', { name: 'Delete' }).click();
      await dialog.getByRole('button', { name: 'Delete webhook' }).click();
      await page.getByText('No webhooks yet.').waitFor();
      const gone = await ctx.app.request(`/api/v1/webhooks/${id}`, { headers: bearer(token) });
      expect(gone.body.code).toBe('WEBHOOK_NOT_FOUND');
    },
    BROWSER_TEST_MS,
  );
});

describe('API keys in the dashboard', () => {
  /** Calls the API with a raw key, as a client of the service would. */
  const withKey = (rawKey: string) =>
    ctx.app.request('/api/v1/scans', { headers: { 'x-api-key': rawKey } });

  it(
    'creates keys shown once, rotates one with a grace period and revokes another',
    async () => {
      const token = await tokenFor(randomUUID());
      const page = await browser.open(ctx.app.url);
      await signIn(page, token);
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'API keys' })
        .click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await page.getByText('No API keys yet.').waitFor();

      const create = async (name: string, scopes?: readonly string[]) => {
        await page.getByRole('button', { name: 'New API key' }).click();
        await page.getByLabel('Name', { exact: true }).fill(name);
        if (scopes !== undefined) {
          await page.getByRole('button', { name: 'None', exact: true }).click();
          for (const scope of scopes) {
            await page.getByRole('checkbox', { name: scope, exact: true }).check();
          }
        }
        await page.getByLabel('IP allow-list (optional)').fill('127.0.0.0/8, ::1');
        await page.getByRole('button', { name: 'Create key' }).click();
        const rawKey = await shownSecret(page);
        expect(await page.locator('.secret-once').textContent()).toContain('shown once');
        await page.getByRole('button', { name: 'Done, hide it' }).click();
        await page.locator('.secret-once').waitFor({ state: 'hidden' });
        return rawKey;
      };
      const ci = await create('ci', ['scans:list', 'scans:read']);
      const old = await create('old');
      expect(ci).toMatch(/_sk_[A-Za-z0-9]{40}$/);
      expect(old).not.toBe(ci);
      expect((await withKey(ci)).status).toBe(200);
      expect((await withKey(old)).status).toBe(200);

      const listed = async () =>
        (await ctx.app.request('/api/v1/api-keys', { headers: bearer(token) })).body.data
          .apiKeys as {
          id: string;
          keyPrefix: string;
          status: string;
          scopes: string[];
          allowedIpAddresses: string[];
          rotatedToKeyId: string | null;
          expiresAt: string | null;
        }[];
      const ofRaw = async (rawKey: string) => {
        const found = (await listed()).find((key) => rawKey.startsWith(key.keyPrefix));
        if (found === undefined) {
          throw new Error('no key with that prefix');
        }
        return found;
      };
      const ciKey = await ofRaw(ci);
      expect(ciKey.scopes).toEqual(['scans:read', 'scans:list']);
      expect(ciKey.allowedIpAddresses).toEqual(['127.0.0.0/8', '::1']);
      const ciRow = page.locator(`tr[data-key-id="${ciKey.id}"]`);
      expect(await ciRow.textContent()).toContain(ciKey.keyPrefix);
      expect(await ciRow.textContent()).toContain('scans:read, scans:list');

      // Rotate ci with the default grace period: a new key now, the old one until it ends.
      await page.getByRole('button', { name: 'Rotate ci' }).click();
      const rotating = page.getByRole('dialog', { name: 'Rotate ci?' });
      expect(await rotating.getByLabel('Grace period (hours)').inputValue()).toBe('24');
      const before = Date.now();
      await rotating.getByRole('button', { name: 'Rotate key' }).click();
      const rotated = await shownSecret(page);
      expect(rotated).not.toBe(ci);
      expect(await page.locator('.secret-once').textContent()).toContain('keeps working until');
      expect((await withKey(rotated)).status).toBe(200);
      expect((await withKey(ci)).status).toBe(200);
      const oldCi = await ofRaw(ci);
      expect(oldCi.status).toBe('active');
      expect(oldCi.rotatedToKeyId).toBe((await ofRaw(rotated)).id);
      const graceEnds = Date.parse(String(oldCi.expiresAt)) - before;
      expect(graceEnds).toBeGreaterThan(24 * 3_600_000 - 60_000);
      expect(graceEnds).toBeLessThanOrEqual(24 * 3_600_000 + 60_000);
      await ciRow.getByText('rotated: grace period').waitFor();
      expect(await ciRow.getByRole('button', { name: 'Rotate ci' }).count()).toBe(0);

      // Revoke old, after the confirmation: refused from then on.
      const oldKey = await ofRaw(old);
      await page.getByRole('button', { name: 'Revoke old' }).click();
      const revoking = page.getByRole('dialog', { name: 'Revoke old?' });
      await revoking.getByLabel('Reason (optional)').fill('leaked in a log');
      await revoking.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText('Key old revoked').waitFor();
      const oldRow = page.locator(`tr[data-key-id="${oldKey.id}"]`);
      await oldRow.getByText('revoked', { exact: true }).waitFor();
      expect(await oldRow.textContent()).toContain('leaked in a log');
      const refused = await withKey(old);
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('KEY_REVOKED');
      await page.getByText('Done, hide it').waitFor();
      await screenshot(page, 'api-keys');
    },
    BROWSER_TEST_MS,
  );
});
