/**
 * With ALLOW_PRIVATE_WEBHOOKS off (the default): webhook and callback URLs that are, or resolve
 * to, loopback/private/link-local/metadata addresses are refused at creation, and a name that
 * pointed to a public address at creation but to loopback at delivery is never contacted.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from '../support/tls.js';

let rebindLookups = 0;
const lookup = async (host: string): Promise<string[]> => {
  switch (host) {
    case 'public.example':
      return ['203.0.113.60'];
    case 'loopback.example':
      return ['127.0.0.1'];
    case 'mixed.example':
      return ['203.0.113.61', '10.0.0.7'];
    case 'rebind.example':
      // Public while the webhook is created, loopback when a delivery connects.
      rebindLookups += 1;
      return rebindLookups === 1 ? ['203.0.113.62'] : ['127.0.0.1'];
    default:
      throw new Error(`${host} does not resolve`);
  }
};
const ctx = useTestApp({ WEBHOOK_TIMEOUT_MS: '1000' }, { webhookLookup: lookup });
let key = '';
let receiver: HttpsReceiver;

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
  receiver = await startHttpsReceiver();
  return () => receiver.close();
});

const create = (url: string) =>
  ctx.app.request('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'x-api-key': key },
    json: { name: 'ssrf', url },
  });

describe('webhook URLs with ALLOW_PRIVATE_WEBHOOKS off', () => {
  it.each([
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::ffff:127.0.0.1]/',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://10.0.0.1/',
    'https://[fd00:ec2::254]/',
    'https://[fe80::1%25eth0]/',
    'https://localhost/',
    'https://loopback.example/',
    'https://mixed.example/',
    'https://user:secret@public.example/',
  ])('refuses %s with INVALID_WEBHOOK_URL', async (url) => {
    const response = await create(url);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_WEBHOOK_URL');
  });

  it('names the address a name resolves to', async () => {
    const response = await create('https://loopback.example/hook');
    expect(response.body.error).toBe(
      'Invalid webhook URL: loopback.example resolves to 127.0.0.1, a loopback address',
    );
  });

  it('refuses the same URLs as a scan callbackUrl', async () => {
    const response = await ctx.app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { target: '203.0.113.5', scanType: 'nmap', callbackUrl: 'https://127.0.0.1/cb' },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_WEBHOOK_URL');
  });

  it('refuses a PATCH to a private URL', async () => {
    const created = await create('https://public.example/hook');
    expect(created.status).toBe(201);
    const response = await ctx.app.request(`/api/v1/webhooks/${created.body.data.webhook.id}`, {
      method: 'PATCH',
      headers: { 'x-api-key': key },
      json: { url: 'https://[::1]/' },
    });
    expect(response.body.code).toBe('INVALID_WEBHOOK_URL');
  });

  it('does not contact a name that rebinds to loopback after creation', async () => {
    const created = await create(`https://rebind.example:${receiver.port}/hook`);
    expect(created.status).toBe(201);
    const response = await ctx.app.request(
      `/api/v1/webhooks/${created.body.data.webhook.id}/test`,
      { method: 'POST', headers: { 'x-api-key': key } },
    );
    expect(response.body.data).toMatchObject({ delivered: false, statusCode: 0 });
    expect(receiver.connections).toBe(0);
    const log = await ctx.app.request(
      `/api/v1/webhooks/${created.body.data.webhook.id}/deliveries`,
      { headers: { 'x-api-key': key } },
    );
    expect(log.body.data.deliveries[0].error).toContain('blocked address 127.0.0.1');
  });
});
