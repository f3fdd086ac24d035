import { describe, expect, it } from 'vitest';
import { type ScanRequestContext, validateScanRequest } from './validate-scan-request.js';

const open: ScanRequestContext = { allowedScanTypes: null, allowPrivateTargets: false };
const check = (body: unknown, context = open) => validateScanRequest(body, context);
const codeOf = (body: unknown, context = open) => {
  const result = check(body, context);
  return result.ok ? 'ok' : result.error.code;
};

describe('validateScanRequest', () => {
  it('fills in name, priority, options, tags and the engine timeout', () => {
    const result = check({ target: '203.0.113.5', scanType: 'nmap' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.request).toMatchObject({
        name: 'nmap 203.0.113.5',
        priority: 'normal',
        tags: [],
        config: {},
        timeoutSeconds: 3600,
        assetId: null,
        callbackUrl: null,
        target: { value: '203.0.113.5', type: 'ip', hostIsAddress: true },
        options: { ports: '1-1024', timing: 'T3' },
      });
    }
  });

  it('refuses a target its engine would expand (nuclei reads AS15169 as a whole network)', () => {
    const result = check({ target: 'AS15169', scanType: 'nuclei' });
    expect(result.ok ? 'ok' : [result.error.code, result.error.message]).toEqual([
      'INVALID_TARGET',
      expect.stringContaining('autonomous system number'),
    ]);
    expect(codeOf({ target: 'AS15169', scanType: 'nmap' })).toBe('ok');
  });

  it("refuses engine options that do not fit the target (ZAP's login page on another origin)", () => {
    const authentication = {
      type: 'form',
      loginUrl: 'https://login.example.net/signin',
      usernameField: 'user',
      passwordField: 'pass',
      username: 'alice',
      password: 'secret',
    };
    const result = check({
      target: 'https://app.example.com/',
      scanType: 'zap',
      options: { authentication },
    });
    expect(result.ok ? 'ok' : [result.error.code, result.error.message]).toEqual([
      'INVALID_FIELD_VALUE',
      "Invalid value for field options.authentication: authentication.loginUrl must be on the target's origin https://app.example.com",
    ]);
    const sameOrigin = { ...authentication, loginUrl: 'https://app.example.com/signin' };
    expect(
      codeOf({
        target: 'https://app.example.com/',
        scanType: 'zap',
        options: { authentication: sameOrigin },
      }),
    ).toBe('ok');
    expect(
      codeOf({
        target: 'https://app.example.com/',
        scanType: 'zap',
        options: { authentication: { type: 'header', headerName: 'Authorization' } },
      }),
    ).toBe('INVALID_FIELD_VALUE');
  });

  it('treats null in an optional field as not given', () => {
    expect(codeOf({ target: '203.0.113.5', scanType: 'nmap', name: null, callbackUrl: null })).toBe(
      'ok',
    );
  });

  it.each([
    ['url', 'https://app.example/login?next=/a&b=$x;', 'zap'],
    ['domain', 'example.com', 'harvester'],
    ['host', 'intranet', 'nmap'],
    ['network', '203.0.113.0/24', 'nmap'],
    ['image', 'alpine:3.20', 'trivy'],
  ])('infers %s for %s with %s', (type, target, scanType) => {
    const result = check({ target, scanType });
    expect(result.ok && result.request.target.type).toBe(type);
  });

  it.each([
    [{ target: '203.0.113.5', scanType: 'nmap', timeout: 86_400 }, 'ok'],
    [{ target: '203.0.113.5', scanType: 'nmap', timeout: 1 }, 'ok'],
    [{ target: '203.0.113.5', scanType: 'nmap', timeout: 86_401 }, 'INVALID_FIELD_VALUE'],
    [{ target: '203.0.113.5', scanType: 'nmap', timeout: '60' }, 'INVALID_FIELD_TYPE'],
    [{ target: '203.0.113.5', scanType: 'nmap', tags: ['a', 1] }, 'INVALID_FIELD_TYPE'],
    [{ target: '203.0.113.5', scanType: 'nmap', tags: [''] }, 'INVALID_FIELD_VALUE'],
    [{ target: '203.0.113.5', scanType: 'nmap', tags: Array(51).fill('t') }, 'INVALID_FIELD_VALUE'],
    [
      { target: '203.0.113.5', scanType: 'nmap', config: { x: 'y'.repeat(17_000) } },
      'INVALID_FIELD_VALUE',
    ],
    [{ target: '203.0.113.5', scanType: 'nmap', assetId: '' }, 'INVALID_FIELD_VALUE'],
    [
      { target: '203.0.113.5', scanType: 'nmap', callbackUrl: 'https://u:p@hooks.example/' },
      'INVALID_WEBHOOK_URL',
    ],
    [{ target: '203.0.113.5', scanType: 'nmap', callbackUrl: 'not a url' }, 'INVALID_WEBHOOK_URL'],
    [
      {
        target: '203.0.113.5',
        scanType: 'nmap',
        callbackUrl: `https://h.example/${'a'.repeat(2050)}`,
      },
      'INVALID_WEBHOOK_URL',
    ],
    [{ target: '203.0.113.5', scanType: 'NMAP' }, 'INVALID_SCAN_TYPE'],
    [{ target: '203.0.113.5', scanType: 'nmap', priority: 'Normal' }, 'INVALID_PRIORITY'],
    [{ target: '203.0.113.5', scanType: 'nmap', targetType: 'subnet' }, 'INVALID_FIELD_VALUE'],
    [{ target: 'example.com; rm -rf /', scanType: 'nmap' }, 'INVALID_TARGET'],
    [{ target: '--script=evil', scanType: 'nmap' }, 'INVALID_TARGET'],
    [{ target: '`id`.example.com', scanType: 'nmap' }, 'INVALID_TARGET'],
    [{ target: 'example.com', scanType: 'sqlmap' }, 'INVALID_TARGET'],
    [{ target: '192.168.1.1', scanType: 'nmap' }, 'TARGET_NOT_ALLOWED'],
    [{ target: '::1', scanType: 'nmap' }, 'TARGET_NOT_ALLOWED'],
    [{ target: '::ffff:10.0.0.1', scanType: 'nmap' }, 'TARGET_NOT_ALLOWED'],
    [{ target: '100.64.0.0/16', scanType: 'nmap' }, 'TARGET_NOT_ALLOWED'],
    [{ target: 'http://169.254.169.254/latest/meta-data/', scanType: 'zap' }, 'TARGET_NOT_ALLOWED'],
  ])('%j → %s', (body, code) => {
    expect(codeOf(body)).toBe(code);
  });

  it.each([
    [{ name: '' }, 'Invalid value for field name: must be 1 to 255 characters long'],
    [{ tags: ['a', ''] }, 'Invalid value for field tags.1: must be 1 to 100 characters long'],
    [
      { config: { x: 'y'.repeat(17_000) } },
      'Invalid value for field config: must be at most 16384 bytes of JSON',
    ],
    [
      { timeout: 86_401 },
      'Invalid value for field timeout: 86401 is not between 1 and 86400 seconds',
    ],
    [
      { callbackUrl: `https://h.example/${'a'.repeat(2050)}` },
      'Invalid webhook URL: callbackUrl must be at most 2048 characters long',
    ],
    [
      { targetType: 'subnet' },
      'Invalid value for field targetType: subnet is not one of host, url, domain, ip, network, image',
    ],
  ])('answers the limits of %j with their reason', (fields, message) => {
    const result = check({ target: '203.0.113.5', scanType: 'nmap', ...fields });
    expect(result.ok ? 'ok' : result.error.message).toBe(message);
  });

  it('reports a wrong type at the top level before one inside a field', () => {
    const result = check({ target: '203.0.113.5', scanType: 'nmap', tags: ['a', 1], timeout: '9' });
    expect(result.ok ? 'ok' : result.error.message).toBe('Field timeout must be of type integer');
  });

  it('allows private targets when ALLOW_PRIVATE_TARGETS is on', () => {
    const context = { allowedScanTypes: null, allowPrivateTargets: true };
    expect(codeOf({ target: '127.0.0.1', scanType: 'nmap' }, context)).toBe('ok');
    expect(codeOf({ target: '10.0.0.0/16', scanType: 'nmap' }, context)).toBe('ok');
  });

  it('allows only the listed ranges when ALLOW_PRIVATE_TARGETS is a list', () => {
    const context = {
      allowedScanTypes: null,
      allowPrivateTargets: ['127.0.0.2/32', '10.20.0.0/16'],
    };
    expect(codeOf({ target: 'http://127.0.0.2:8080/', scanType: 'wapiti' }, context)).toBe('ok');
    expect(codeOf({ target: '10.20.4.0/24', scanType: 'nmap' }, context)).toBe('ok');
    expect(codeOf({ target: '127.0.0.1', scanType: 'nmap' }, context)).toBe('TARGET_NOT_ALLOWED');
    expect(codeOf({ target: '10.21.0.0/16', scanType: 'nmap' }, context)).toBe(
      'TARGET_NOT_ALLOWED',
    );
  });

  it('checks the key allowedScanTypes, and each sentinel member engine', () => {
    const key = { allowedScanTypes: ['nmap', 'sentinel'], allowPrivateTargets: false };
    expect(codeOf({ target: 'https://app.example/', scanType: 'zap' }, key)).toBe(
      'SCAN_TYPE_NOT_ALLOWED',
    );
    expect(codeOf({ target: '203.0.113.5', scanType: 'sentinel' }, key)).toBe('ok');
    const refused = check(
      { target: '203.0.113.5', scanType: 'sentinel', options: { engines: ['nmap', 'nuclei'] } },
      key,
    );
    expect(refused.ok === false && refused.error.message).toBe(
      'Scan type not allowed for this API key: nuclei',
    );
  });
});
