/** Scan templates over real HTTP, and scans created from them. */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { getScan } from '../support/scans.js';

const engine = instantEngine();
const ctx = useTestApp({ WORKERS: '1' }, { engineRunners: new Map([['nmap', engine]]) });
let key = '';
let token = '';

beforeAll(async () => {
  token = await tokenFor(randomUUID());
  key = (await createKey(ctx.app, token, { rateLimitPerMinute: 1000 })).rawKey;
});

const call = (method: string, path: string, json?: unknown, apiKey = key) =>
  ctx.app.request(path, {
    method,
    headers: { 'x-api-key': apiKey },
    ...(json === undefined ? {} : { json }),
  });

async function template(body: Record<string, unknown>) {
  const response = await call('POST', '/api/v1/templates', body);
  expect(response.status, response.text).toBe(201);
  return response.body.data.template;
}

describe('templates', () => {
  it('creates, lists, gets, patches and deletes a template', async () => {
    const created = await template({
      name: 'weekly-web',
      description: 'every Monday',
      scanType: 'nmap',
      options: { ports: '80,443' },
      priority: 'high',
      tags: ['web'],
      timeout: 600,
    });
    expect(created).toMatchObject({
      name: 'weekly-web',
      description: 'every Monday',
      scanType: 'nmap',
      options: { ports: '80,443' },
      config: {},
      priority: 'high',
      tags: ['web'],
      timeout: 600,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await call('GET', '/api/v1/templates');
    expect(listed.body.data.templates.map((t: { id: string }) => t.id)).toContain(created.id);
    expect(listed.body.data.pagination).toMatchObject({ page: 1, limit: 20 });
    expect((await call('GET', `/api/v1/templates/${created.id}`)).body.data.template).toEqual(
      created,
    );
    const patched = await call('PATCH', `/api/v1/templates/${created.id}`, {
      options: { ports: '8443' },
      timeout: null,
    });
    expect(patched.body.data.template).toMatchObject({
      options: { ports: '8443' },
      timeout: null,
      name: 'weekly-web',
    });
    const deleted = await call('DELETE', `/api/v1/templates/${created.id}`);
    expect(deleted.body.data).toEqual({ id: created.id, deleted: true });
    expect((await call('GET', `/api/v1/templates/${created.id}`)).body.code).toBe(
      'TEMPLATE_NOT_FOUND',
    );
  });

  it.each([
    [{ scanType: 'nessus', timeout: 'x' }, 'TEMPLATE_NAME_REQUIRED', 'Template name is required'],
    [{ name: '', scanType: 'nmap' }, 'TEMPLATE_NAME_REQUIRED', null],
    [{ name: 'a' }, 'MISSING_REQUIRED_FIELD', 'Missing required field: scanType'],
    [
      { name: 'a', scanType: 'nmap', timeout: '60' },
      'INVALID_FIELD_TYPE',
      'Field timeout must be of type integer',
    ],
    [{ name: 'a', scanType: 'nessus' }, 'INVALID_SCAN_TYPE', 'Invalid scan type: nessus'],
    [{ name: 'a', scanType: 'nmap', priority: 'urgent' }, 'INVALID_PRIORITY', null],
    [{ name: 'a', scanType: 'nmap', options: { timing: 'T9' } }, 'INVALID_FIELD_VALUE', null],
    [
      { name: 'a', scanType: 'nmap', options: { nope: 1 } },
      'INVALID_FIELD_VALUE',
      'Invalid value for field options.nope: unknown key',
    ],
    [{ name: 'x'.repeat(256), scanType: 'nmap' }, 'INVALID_FIELD_VALUE', null],
    [{ name: 'a', scanType: 'nmap', timeout: 0 }, 'INVALID_FIELD_VALUE', null],
  ])('refuses %j with %s', async (body, code, message) => {
    const response = await call('POST', '/api/v1/templates', body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    if (message !== null) {
      expect(response.body.error).toBe(message);
    }
  });

  it('refuses a duplicate name, also on a rename; names compare exactly; other tenants may reuse it', async () => {
    await template({ name: 'dup', scanType: 'nmap' });
    const again = await call('POST', '/api/v1/templates', { name: 'dup', scanType: 'zap' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'DUPLICATE_TEMPLATE_NAME',
      error: 'Template name already in use: dup',
    });
    const other = await template({ name: 'Dup', scanType: 'nmap' });
    const rename = await call('PATCH', `/api/v1/templates/${other.id}`, { name: 'dup' });
    expect(rename.body.code).toBe('DUPLICATE_TEMPLATE_NAME');
    const otherTenant = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    expect(
      (await call('POST', '/api/v1/templates', { name: 'dup', scanType: 'nmap' }, otherTenant))
        .status,
    ).toBe(201);
  });

  it('lets exactly one of two concurrent creates with one name succeed', async () => {
    const name = `race-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('POST', '/api/v1/templates', { name, scanType: 'nmap' }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.body.code === 'DUPLICATE_TEMPLATE_NAME')).toHaveLength(7);
  });

  it("answers TEMPLATE_NOT_FOUND for unknown, malformed and another tenant's templates", async () => {
    const mine = await template({ name: `mine-${randomUUID()}`, scanType: 'nmap' });
    const otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()))).rawKey;
    for (const [method, path, apiKey] of [
      ['GET', `/api/v1/templates/${mine.id}`, otherKey],
      ['PATCH', `/api/v1/templates/${mine.id}`, otherKey],
      ['DELETE', `/api/v1/templates/${mine.id}`, otherKey],
      ['GET', `/api/v1/templates/${randomUUID()}`, key],
      ['GET', '/api/v1/templates/nope', key],
    ] as const) {
      const response = await call(
        method,
        path,
        method === 'PATCH' ? { name: 'x' } : undefined,
        apiKey,
      );
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: 'Template not found',
        code: 'TEMPLATE_NOT_FOUND',
      });
    }
  });
});

describe('scans from templates', () => {
  it('starts from the template: request fields replace, options merge key by key, templateId recorded', async () => {
    const base = await template({
      name: `base-${randomUUID()}`,
      scanType: 'nmap',
      options: { ports: '22', timing: 'T2' },
      priority: 'low',
      tags: ['from-template'],
      timeout: 900,
    });
    const response = await call('POST', '/api/v1/scans', {
      templateId: base.id,
      target: '203.0.113.70',
      options: { timing: 'T4' },
      priority: 'critical',
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data).toMatchObject({
      scanType: 'nmap',
      priority: 'critical',
      tags: ['from-template'],
    });
    const scan = await getScan(ctx.app, key, response.body.data.id);
    expect(scan).toMatchObject({
      templateId: base.id,
      timeout: 900,
      options: { ports: '22', timing: 'T4', serviceDetection: true },
    });
  });

  it('answers TEMPLATE_NOT_FOUND for an unknown template, after the other field codes', async () => {
    const unknown = await call('POST', '/api/v1/scans', {
      templateId: randomUUID(),
      target: '203.0.113.71',
      scanType: 'nmap',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('TEMPLATE_NOT_FOUND');
    const badPriority = await call('POST', '/api/v1/scans', {
      templateId: randomUUID(),
      target: '203.0.113.71',
      scanType: 'nmap',
      priority: 'urgent',
    });
    expect(badPriority.body.code).toBe('INVALID_PRIORITY');
  });

  it("never widens what the key may do: the template's engine must be allowed", async () => {
    const zapTemplate = await template({ name: `zap-${randomUUID()}`, scanType: 'zap' });
    const nmapOnly = (await createKey(ctx.app, token, { allowedScanTypes: ['nmap'] })).rawKey;
    const response = await call(
      'POST',
      '/api/v1/scans',
      { templateId: zapTemplate.id, target: 'https://app.example/' },
      nmapOnly,
    );
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      code: 'SCAN_TYPE_NOT_ALLOWED',
      error: 'Scan type not allowed for this API key: zap',
    });
  });
});
