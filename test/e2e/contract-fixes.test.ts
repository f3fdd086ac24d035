/**
 * Four places where the service answered differently from the contract (issue 20), over real
 * HTTP: nmap ports above 65535, a templateId that finds nothing with no scanType, an unknown
 * targetType, and a path whose percent-escapes do not decode.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { instantEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';

const ctx = useTestApp({ WORKERS: '1' }, { engineRunners: new Map([['nmap', instantEngine()]]) });
let key = '';
let otherKey = '';

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 }))
    .rawKey;
  otherKey = (await createKey(ctx.app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 }))
    .rawKey;
});

const call = (method: string, path: string, json?: unknown, apiKey = key) =>
  ctx.app.request(path, {
    method,
    headers: { 'x-api-key': apiKey },
    ...(json === undefined ? {} : { json }),
  });

async function countScans(): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*)::int as n from scans`.execute(
    ctx.database.handle.db,
  );
  return rows.rows[0]?.n ?? 0;
}

describe('nmap options.ports', () => {
  it.each(['1-70000', '65536', '80,99999', 'T:22,U:65536'])(
    'refuses %s with INVALID_FIELD_VALUE, on scans and on templates',
    async (ports) => {
      const before = await countScans();
      const scan = await call('POST', '/api/v1/scans', {
        target: '203.0.113.5',
        scanType: 'nmap',
        options: { ports },
      });
      expect(scan.status, scan.text).toBe(400);
      expect(scan.body).toEqual({
        success: false,
        code: 'INVALID_FIELD_VALUE',
        error: `Invalid value for field options.ports: ${ports} is not a list of ports or ranges from 0 to 65535 (e.g. 22,80,443 or 1-1024)`,
      });
      expect(await countScans()).toBe(before);
      const template = await call('POST', '/api/v1/templates', {
        name: `ports-${randomUUID()}`,
        scanType: 'nmap',
        options: { ports },
      });
      expect(template.status).toBe(400);
      expect(template.body.code).toBe('INVALID_FIELD_VALUE');
    },
  );

  it.each(['1-65535', '0,65535', 'U:53,T:22,80', '65530-65535'])('accepts %s', async (ports) => {
    const response = await call('POST', '/api/v1/scans', {
      target: '203.0.113.5',
      scanType: 'nmap',
      options: { ports },
    });
    expect(response.status, response.text).toBe(201);
  });
});

describe('POST /api/v1/scans with a templateId that finds nothing and no scanType', () => {
  it('answers 404 TEMPLATE_NOT_FOUND for an unknown, a malformed and another tenant’s id', async () => {
    const theirs = await call(
      'POST',
      '/api/v1/templates',
      { name: 'theirs', scanType: 'nmap' },
      otherKey,
    );
    expect(theirs.status).toBe(201);
    const before = await countScans();
    for (const templateId of [randomUUID(), 'not-a-uuid', theirs.body.data.template.id]) {
      const response = await call('POST', '/api/v1/scans', { templateId, target: '203.0.113.5' });
      expect(response.status, `${templateId}: ${response.text}`).toBe(404);
      expect(response.body).toEqual({
        success: false,
        code: 'TEMPLATE_NOT_FOUND',
        error: 'Template not found',
      });
    }
    expect(await countScans()).toBe(before);
  });

  it('still answers a missing target first, and MISSING_REQUIRED_FIELD without a templateId', async () => {
    const noTarget = await call('POST', '/api/v1/scans', { templateId: randomUUID() });
    expect(noTarget.body).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      error: 'Missing required field: target',
    });
    const noTemplate = await call('POST', '/api/v1/scans', { target: '203.0.113.5' });
    expect(noTemplate.body).toMatchObject({
      code: 'MISSING_REQUIRED_FIELD',
      error: 'Missing required field: scanType',
    });
  });
});

describe('targetType', () => {
  it('answers an unknown value with INVALID_FIELD_VALUE naming the known ones', async () => {
    const response = await call('POST', '/api/v1/scans', {
      target: '203.0.113.5',
      scanType: 'nmap',
      targetType: 'planet',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      code: 'INVALID_FIELD_VALUE',
      error:
        'Invalid value for field targetType: planet is not one of host, url, domain, ip, network, image',
    });
  });

  it('keeps INVALID_TARGET for a known type that does not match the target or the engine', async () => {
    for (const targetType of ['domain', 'url', 'image']) {
      const response = await call('POST', '/api/v1/scans', {
        target: '203.0.113.5',
        scanType: 'nmap',
        targetType,
      });
      expect(response.body.code, targetType).toBe('INVALID_TARGET');
    }
  });
});

describe('a path whose percent-escapes do not decode', () => {
  it.each(['/api/v1/scans/%E0%A4%A', '/api/v1/scans/%zz/results', '/api/v1/templates/%E0%A4%A'])(
    '%s → 404 NOT_FOUND in the envelope',
    async (path) => {
      for (const apiKey of [key, '']) {
        const response = await ctx.app.request(path, {
          headers: apiKey === '' ? {} : { 'x-api-key': apiKey },
        });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({
          success: false,
          code: 'NOT_FOUND',
          error: `Route not found: GET ${path}`,
        });
        expect(response.headers.get('x-request-id')).toMatch(/./);
      }
    },
  );
});
