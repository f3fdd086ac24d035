import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CreateScanBody,
  CreateScanBodyByEngine,
} from '../../src/use-cases/scans/scan-request-schema.js';
import {
  CreateTemplateBody,
  CreateTemplateBodyByEngine,
  PatchTemplateBody,
  PatchTemplateBodyByEngine,
} from '../../src/use-cases/templates/template-schema.js';
import {
  bearer,
  createKey,
  startApp,
  TEST_JWT_SECRET,
  tokenFor,
  useTestApp,
} from '../support/harness.js';
import { until } from '../support/until.js';

const ctx = useTestApp();

let token: string;

beforeAll(async () => {
  token = await tokenFor(randomUUID());
});

const postKey = (body: string, headers: Record<string, string> = {}) =>
  ctx.app.request('/api/v1/api-keys', {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
    body,
  });

function expectNoInternals(text: string) {
  expect(text).not.toMatch(/\bat .+:\d+:\d+/);
  expect(text).not.toContain('/work/');
  expect(text).not.toContain('node_modules');
}

describe('request bodies', () => {
  it.each(['{"name":', '{name: "x"}', "{'name':'x'}", '{"name":"x"}}'])(
    'answers 400 INVALID_JSON for %s',
    async (body) => {
      const response = await postKey(body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        success: false,
        error: 'Request body is not valid JSON',
        code: 'INVALID_JSON',
      });
      expectNoInternals(response.text);
    },
  );

  it.each([
    ['an array', '[]'],
    ['a string', '"name"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('answers 400 INVALID_FIELD_TYPE for field body when the body is %s', async (_label, body) => {
    const response = await postKey(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: 'Field body must be of type object',
      code: 'INVALID_FIELD_TYPE',
    });
  });

  it('answers 413 PAYLOAD_TOO_LARGE over 1 MiB', async () => {
    const response = await postKey(
      JSON.stringify({ name: 'k', description: 'x'.repeat(1024 * 1024) }),
    );
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      success: false,
      error: 'Request body is larger than 1 MiB',
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('answers 400 for a body that is not JSON, without a stack trace', async () => {
    const response = await postKey('name=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_JSON');
    expectNoInternals(response.text);
  });

  it('refuses prototype pollution keys as invalid JSON', async () => {
    const response = await postKey('{"name":"k","__proto__":{"admin":true}}');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_JSON');
  });

  it('answers MISSING_REQUIRED_FIELD when a POST has no body at all', async () => {
    const response = await ctx.app.request('/api/v1/api-keys', {
      method: 'POST',
      headers: bearer(token),
    });
    expect(response.body).toEqual({
      success: false,
      error: 'Missing required field: name',
      code: 'MISSING_REQUIRED_FIELD',
    });
  });
});

describe('routes, health and documents', () => {
  it('answers 404 NOT_FOUND in the envelope for unknown routes', async () => {
    for (const path of ['/nope', '/api/v1/nope', '/api/v2/engines']) {
      const response = await ctx.app.request(`${path}?q=1`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: `Route not found: GET ${path}`,
        code: 'NOT_FOUND',
      });
    }
  });

  it('serves /healthz and /readyz', async () => {
    expect((await ctx.app.request('/healthz')).body).toEqual({
      success: true,
      data: { status: 'ok' },
    });
    expect((await ctx.app.request('/readyz')).status).toBe(200);
  });

  it('answers /readyz 503 SERVICE_UNAVAILABLE with the reason the database gives', async () => {
    // A handle whose health check fails (the real failures: test/e2e/readiness.test.ts).
    const broken = await startApp({
      ...ctx.database.handle,
      health: async () => ({ ok: false, reason: 'the database is not answering' }),
    });
    try {
      const response = await broken.request('/readyz');
      expect(response.status).toBe(503);
      expect(response.body).toEqual({
        success: false,
        error: 'Service temporarily unavailable: the database is not answering',
        code: 'SERVICE_UNAVAILABLE',
      });
    } finally {
      await broken.close();
    }
  });

  it('serves the OpenAPI document generated from the routes, and a docs page', async () => {
    const response = await ctx.app.request('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/api-keys',
        '/api/v1/api-keys/{keyId}',
        '/api/v1/api-keys/{keyId}/rotate',
        '/api/v1/engines',
        '/api/v1/admin/tenants/{tenantId}/quota',
        '/api/v1/scans',
        '/api/v1/scans/{scanId}',
        '/api/v1/scans/{scanId}/cancel',
        '/api/v1/scans/{scanId}/results',
        '/api/v1/scans/{scanId}/findings',
        '/api/v1/webhooks',
        '/api/v1/webhooks/{webhookId}',
        '/api/v1/webhooks/{webhookId}/test',
        '/api/v1/webhooks/{webhookId}/deliveries',
        '/api/v1/templates',
        '/api/v1/templates/{templateId}',
        '/api/v1/usage',
        '/healthz',
        '/readyz',
      ]),
    );
    expect(response.body.paths['/api/v1/api-keys'].post.responses['201']).toBeDefined();
    const createScan = response.body.paths['/api/v1/scans'].post;
    // One variant per engine, and one where scanType comes from a template (templateId).
    expect(
      createScan.requestBody.content['application/json'].schema.anyOf.map(
        (variant: { required: string[] }) => variant.required,
      ),
    ).toContainEqual(['templateId', 'target']);
    expect(Object.keys(createScan.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '429', '503']),
    );
    expect(response.body.components.schemas).toHaveProperty('Scan');
    // Every route behind a scope names it.
    const scoped: Array<[string, string, string]> = [
      ['/api/v1/scans', 'post', 'scans:create'],
      ['/api/v1/scans', 'get', 'scans:list'],
      ['/api/v1/scans/{scanId}', 'get', 'scans:read'],
      ['/api/v1/scans/{scanId}/cancel', 'post', 'scans:cancel'],
      ['/api/v1/scans/{scanId}/results', 'get', 'results:read'],
      ['/api/v1/webhooks/{webhookId}', 'patch', 'webhooks:update'],
      ['/api/v1/templates/{templateId}', 'delete', 'templates:delete'],
      ['/api/v1/usage', 'get', 'usage:read'],
    ];
    for (const [path, method, scope] of scoped) {
      const operation = response.body.paths[path][method];
      expect(operation.security, `${method} ${path}`).toContainEqual({ apiKey: [scope] });
      expect(operation.description).toContain(scope);
    }
    expect(response.body.components.schemas).toHaveProperty('Finding');
  });

  it('documents the body schemas the use cases enforce, with options typed per engine', async () => {
    const { paths } = (await ctx.app.request('/api/v1/openapi.json')).body;
    const documented = (path: string, method: string) =>
      paths[path][method].requestBody.content['application/json'].schema;
    // @fastify/swagger writes a `patternProperties` object as `additionalProperties` holding its
    // (one) value schema, the pattern dropped: the engines' config header and cookie maps.
    const asDocumented = (schema: unknown): unknown => {
      if (Array.isArray(schema)) {
        return schema.map(asDocumented);
      }
      if (typeof schema !== 'object' || schema === null) {
        return schema;
      }
      const { patternProperties, ...rest } = schema as Record<string, unknown>;
      const entries = Object.entries(rest).map(([key, value]) => [key, asDocumented(value)]);
      const documentedObject = Object.fromEntries(entries) as Record<string, unknown>;
      if (patternProperties !== undefined) {
        documentedObject.additionalProperties = asDocumented(
          Object.values(patternProperties as Record<string, unknown>)[0],
        );
      }
      return documentedObject;
    };
    const asJson = (schema: unknown) => asDocumented(JSON.parse(JSON.stringify(schema)));
    expect(documented('/api/v1/scans', 'post')).toEqual(asJson(CreateScanBodyByEngine));
    expect(documented('/api/v1/templates', 'post')).toEqual(asJson(CreateTemplateBodyByEngine));
    expect(documented('/api/v1/templates/{templateId}', 'patch')).toEqual(
      asJson(PatchTemplateBodyByEngine),
    );
    // Every variant holds the checked schema's fields as they are; only scanType, options and
    // config (the engine's own config schema, where it has one) vary.
    const bodies: Array<[string, string, { properties: Record<string, unknown> }]> = [
      ['/api/v1/scans', 'post', CreateScanBody],
      ['/api/v1/templates', 'post', CreateTemplateBody],
      ['/api/v1/templates/{templateId}', 'patch', PatchTemplateBody],
    ];
    for (const [path, method, checked] of bodies) {
      for (const variant of documented(path, method).anyOf) {
        const fields = (asJson(checked) as { properties: Record<string, unknown> }).properties;
        for (const [field, schema] of Object.entries(fields)) {
          if (!['scanType', 'options', 'config', 'templateId'].includes(field)) {
            expect(variant.properties[field], `${method} ${path} ${field}`).toEqual(schema);
          }
        }
      }
    }
    expect(documented('/api/v1/scans', 'post').anyOf[0].properties.timeout).toMatchObject({
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 86_400,
    });
  });

  it('returns a request id, keeping a safe incoming one', async () => {
    const fresh = await ctx.app.request('/healthz');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await ctx.app.request('/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123');
    const unsafe = await ctx.app.request('/healthz', {
      headers: { 'x-request-id': 'a b<script>' },
    });
    expect(unsafe.headers.get('x-request-id')).not.toBe('a b<script>');
  });
});

describe('logs', () => {
  it('never contain raw keys, tokens or the JWT secret', async () => {
    const key = await createKey(ctx.app, token);
    const completed = () => ctx.app.logs.filter((line) => line.includes('request completed'));
    const before = completed().length;
    await ctx.app.request('/api/v1/engines', { headers: { 'x-api-key': key.rawKey } });
    await ctx.app.request(`/api/v1/engines?api_key=${key.rawKey}`);
    await ctx.app.request('/api/v1/engines', { headers: bearer(key.rawKey) });
    await ctx.app.request('/api/v1/api-keys', { headers: { authorization: `Bearer ${token}x` } });
    // Each request's last line is written after its answer was sent: wait for the four.
    await until(
      () => completed().length,
      (count) => count >= before + 4,
    );
    const all = ctx.app.logs.join('\n');
    expect(all.length).toBeGreaterThan(0);
    expect(all).toContain('/api/v1/engines');
    for (const secret of [key.rawKey, key.rawKey.slice(7), token, TEST_JWT_SECRET]) {
      expect(all).not.toContain(secret);
    }
  });
});
