import { describe, expect, it } from 'vitest';
import { checkWebhookUrlSyntax } from './webhook-url.js';

describe('checkWebhookUrlSyntax', () => {
  it.each([
    'http://hooks.example/x',
    'ftp://hooks.example/x',
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://%31%32%37.0.0.1/',
    'https://169.254.169.254/',
    'https://[fd00:ec2::254]/',
    'https://100.64.0.1/',
    'https://[64:ff9b::7f00:1]/',
    'https://[2002:7f00:1::]/',
    'https://10.1.2.3/',
    'https://localhost/',
    'https://localhost./',
    'https://user:pass@hooks.example/',
    `https://hooks.example/${'a'.repeat(2030)}`,
    'not a url',
  ])('refuses %s', (url) => {
    expect(checkWebhookUrlSyntax(url, false).ok).toBe(false);
  });

  it.each([
    'https://hooks.example/rampart',
    'https://203.0.113.7:8443/x?y=1',
    'https://[2001:db8::1]/',
  ])('accepts %s', (url) => {
    expect(checkWebhookUrlSyntax(url, false).ok).toBe(true);
  });

  it('allows private addresses with ALLOW_PRIVATE_WEBHOOKS, never plain HTTP', () => {
    expect(checkWebhookUrlSyntax('https://127.0.0.1:8443/', true)).toMatchObject({
      ok: true,
      host: '127.0.0.1',
      hostIsAddress: true,
    });
    expect(checkWebhookUrlSyntax('http://127.0.0.1/', true).ok).toBe(false);
  });

  it('names the refused range', () => {
    expect(checkWebhookUrlSyntax('https://127.0.0.1/', false)).toEqual({
      ok: false,
      reason: '127.0.0.1 is a loopback address',
    });
  });
});
