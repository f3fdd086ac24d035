/**
 * The served OpenAPI document as its consumers read it: Redocly CLI lints it with the repository's
 * settings (redocly.yaml, .redocly.lint-ignore.yaml), and a TypeScript client generated from it
 * with openapi-typescript refuses a wrong nmap option, and a config an engine does not take, at
 * compile time.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAjv } from '../../src/domain/validation/ajv.js';
import { ENGINE_NAMES } from '../../src/engines/engine.js';
import { nmapOptionsSchema } from '../../src/engines/nmap/options.js';
import { webConfigSchema } from '../../src/engines/web-config.js';
import { heldEngine } from '../doubles/engines.js';
import { createKey, tokenFor, useTestApp } from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
// Scans run in an engine that holds each run until the test ends it (test/doubles/engines.ts).
const held = heldEngine();
const ctx = useTestApp(
  { ALLOW_PRIVATE_TARGETS: 'true', WORKERS: '1', WORKER_SHUTDOWN_GRACE_MS: '100' },
  { engineRunners: new Map([['nmap', held.engine]]) },
);

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { headers?: Record<string, { schema?: Record<string, unknown> }> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
}
type PathItem = Record<string, Operation>;
// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field in the tests.
let document: any;
let text: string;
let dir: string;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operations(section: Record<string, PathItem>): Array<[string, Operation]> {
  return Object.entries(section).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, Operation] => [`${method} ${path}`, operation]),
  );
}

beforeAll(async () => {
  const response = await ctx.app.request('/api/v1/openapi.json');
  expect(response.status).toBe(200);
  text = response.text;
  document = response.body;
  dir = mkdtempSync(join(tmpdir(), 'rampart-openapi-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the served OpenAPI document', () => {
  it('names every operation, routes and webhooks alike, once and in camelCase', () => {
    const all = [
      ...operations(document.paths),
      ...operations(document.webhooks as Record<string, PathItem>),
    ];
    expect(all.length).toBeGreaterThan(35);
    for (const [name, operation] of all) {
      expect(operation.operationId, name).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    }
    const ids = all.map(([, operation]) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('says which routes need no credentials, and where it is served', () => {
    // GET /docs (Swagger UI, docs-page.test.ts) is a page for people, not an operation.
    for (const path of ['/healthz', '/readyz', '/api/v1/openapi.json']) {
      expect(document.paths[path].get.security, path).toEqual([]);
    }
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('describes its response headers as header objects', () => {
    const created = document.paths['/api/v1/scans'].post.responses;
    expect(created['201'].headers['X-RateLimit-Remaining']).toEqual({
      description: 'Requests left in that window',
      schema: { type: 'integer', minimum: 0 },
    });
    expect(created['429'].headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
    expect(created['503'].headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
    for (const [name, operation] of operations(document.paths)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.headers?.['X-Request-Id'], `${name} ${status}`).toBeDefined();
        for (const [header, value] of Object.entries(response.headers ?? {})) {
          // The shape @fastify/swagger made of `{ schema: { type } }`: a schema inside the schema.
          expect(value.schema?.schema, `${name} ${status} ${header}`).toBeUndefined();
        }
      }
    }
    const results = document.paths['/api/v1/scans/{scanId}/results'].get.responses['200'];
    expect(Object.keys(results.content)).toEqual([
      'application/json',
      'application/sarif+json',
      'text/csv',
    ]);
  });

  it('types scan options per engine, from the engines own schemas', () => {
    const body = document.paths['/api/v1/scans'].post.requestBody.content['application/json'];
    const variants = body.schema.anyOf as Array<{
      properties: { scanType: { enum?: string[] }; options: unknown };
      required: string[];
    }>;
    expect(variants.map((variant) => variant.properties.scanType.enum?.[0])).toEqual([
      ...ENGINE_NAMES,
      undefined,
    ]);
    const nmap = variants[0];
    expect(nmap?.required).toEqual(['target', 'scanType']);
    expect(nmap?.properties.options).toEqual({
      ...JSON.parse(JSON.stringify(nmapOptionsSchema)),
      description: 'nmap options',
      type: ['object', 'null'],
    });
    // Without scanType the template's engine applies: templateId is then required.
    expect(variants.at(-1)?.required).toEqual(['templateId', 'target']);
  });

  it('types scan and template config per engine, from the engines own config schemas', () => {
    const configs = (path: string) =>
      new Map(
        (
          document.paths[path].post.requestBody.content['application/json'].schema.anyOf as Array<{
            properties: {
              scanType: { enum?: string[] };
              config: { type: unknown; properties?: Record<string, unknown> };
            };
          }>
        ).map((variant) => [variant.properties.scanType.enum?.[0], variant.properties.config]),
      );
    const sections = (engine: string, config: Map<unknown, { properties?: object }>) =>
      Object.keys(config.get(engine)?.properties ?? {}).sort();
    const shown = JSON.parse(JSON.stringify(webConfigSchema.properties));
    for (const path of ['/api/v1/scans', '/api/v1/templates']) {
      const config = configs(path);
      for (const engine of ['sqlmap', 'wapiti', 'zap', 'sentinel']) {
        expect(config.get(engine), `${path} ${engine}`).toMatchObject({
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { auth: shown.auth, exclude: shown.exclude, userAgent: shown.userAgent },
        });
        expect(sections(engine, config)).toEqual([
          'auth',
          'cookies',
          'exclude',
          'headers',
          'userAgent',
        ]);
      }
      // nuclei crawls nothing (no exclude); nikto sends no header of one's own.
      expect(sections('nuclei', config)).toEqual(['auth', 'cookies', 'headers', 'userAgent']);
      expect(sections('nikto', config)).toEqual(['auth', 'cookies', 'userAgent']);
      // An engine without a config schema keeps config as given: an open object.
      expect(config.get('nmap')).toMatchObject({ additionalProperties: true });
    }
  });

  it('describes the body of every scan event as the outbox writes it', async () => {
    const tenantId = randomUUID();
    const { rawKey } = await createKey(ctx.app, await tokenFor(tenantId));
    const key = { 'x-api-key': rawKey };
    const ended: Record<string, string> = {};
    for (const ending of ['completed', 'failed', 'cancelled'] as const) {
      const { id } = await createScan(ctx.app, rawKey, { target: '127.0.0.1', scanType: 'nmap' });
      await held.waitFor(id);
      if (ending === 'cancelled') {
        const cancel = await ctx.app.request(`/api/v1/scans/${id}/cancel`, {
          method: 'POST',
          headers: key,
        });
        expect(cancel.status, cancel.text).toBe(200);
      } else {
        held.release(id, ending === 'failed' ? { ending: 'engine-error', message: 'boom' } : {});
      }
      await waitForStatus(ctx.app, rawKey, id, [ending]);
      ended[id] = ending;
    }
    const events = await sql<{ scan_id: string; event: string; payload: unknown }>`
      select scan_id, event, payload from scan_events where tenant_id = ${tenantId}`.execute(
      ctx.database.handle.db,
    );
    expect(events.rows).toHaveLength(6);
    const ajv = createAjv({ coerceTypes: false, useDefaults: false });
    for (const row of events.rows) {
      expect(['scan.started', `scan.${ended[row.scan_id]}`]).toContain(row.event);
      const delivery = document.webhooks[row.event].post;
      const validate = ajv.compile(delivery.requestBody.content['application/json'].schema);
      expect(validate(row.payload), `${row.event}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(row.payload).toMatchObject({ tenantId, data: { scanId: row.scan_id } });
      // The documented bodies are closed: one event's body is not another's.
      const other = row.event === 'scan.started' ? 'scan.failed' : 'scan.started';
      expect(
        ajv.validate(
          document.webhooks[other].post.requestBody.content['application/json'].schema,
          row.payload,
        ),
      ).toBe(false);
      expect(delivery.parameters.map((header: { name: string }) => header.name)).toEqual(
        expect.arrayContaining(['X-Webhook-Signature', 'webhook-signature']),
      );
    }
  });

  it('lints clean with Redocly CLI (recommended-strict and more)', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, text);
    copyFileSync(join(ROOT, 'redocly.yaml'), join(dir, 'redocly.yaml'));
    copyFileSync(join(ROOT, '.redocly.lint-ignore.yaml'), join(dir, '.redocly.lint-ignore.yaml'));
    const redocly = join(ROOT, 'node_modules', '.bin', 'redocly');
    const args = ['lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'json'];
    const result = await run(redocly, args, {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => error);
    const report = JSON.parse(result.stdout ?? '{}') as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const problems = report.problems
      .filter((problem) => !('ignored' in problem && problem.ignored))
      .map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(problems).toEqual([]);
    // Only the three public routes without a 4XX answer (.redocly.lint-ignore.yaml).
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 3 });
  }, 60_000);

  it('gives a generated TypeScript client that refuses a wrong nmap option or config', async () => {
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(document)));
    const prelude = [
      "import type { operations } from './api';",
      "type CreateScan = operations['createScan']['requestBody']['content']['application/json'];",
      "type CreateTemplate = operations['createTemplate']['requestBody']['content']['application/json'];",
    ];
    writeFileSync(
      join(dir, 'valid.ts'),
      [
        ...prelude,
        "export const a: CreateScan = { target: '10.0.0.1', scanType: 'nmap', options: { ports: '22,80', timing: 'T4' } };",
        "export const b: CreateScan = { target: 'https://a.example', scanType: 'zap', options: null };",
        "export const c: CreateScan = { target: '10.0.0.1', templateId: '7b0c3f8e-5c1a-4d59-9d57-0f4d7f0c3e11' };",
        "export const t: CreateTemplate = { name: 'weekly', scanType: 'nmap', options: { udpScan: true } };",
        "export const u: CreateScan = { target: 'https://a.example', scanType: 'wapiti', config: { cookies: { session: 'abc' }, exclude: ['/reset*'], auth: { type: 'basic', username: 'u', password: 'p' } } };",
        "export const v: CreateScan = { target: '10.0.0.1', scanType: 'nmap', config: { anything: 1 } };",
        '',
      ].join('\n'),
    );
    const wrongLines = [
      "export const d: CreateScan = { target: '10.0.0.1', scanType: 'nmap', options: { ports: 123 } };",
      "export const e: CreateScan = { target: '10.0.0.1', scanType: 'nmap', options: { portz: '22' } };",
      "export const f: CreateScan = { target: '10.0.0.1', scanType: 'nmap', options: { timing: 'T9' } };",
      "export const g: CreateTemplate = { name: 'weekly', scanType: 'nmap', options: { udpScan: 'yes' } };",
      "export const h: CreateTemplate = { name: 'weekly', scanType: 'nuclei', config: { exclude: ['/reset'] } };",
    ];
    writeFileSync(join(dir, 'wrong.ts'), [...prelude, ...wrongLines, ''].join('\n'));
    const program = ts.createProgram([join(dir, 'valid.ts'), join(dir, 'wrong.ts')], {
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    const diagnosticsOf = (name: string) => {
      const source = program.getSourceFile(join(dir, name));
      expect(source, name).toBeDefined();
      return [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ].map((diagnostic) => ({
        line:
          diagnostic.file && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
            : -1,
        text: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
        at: diagnostic.file?.text.slice(diagnostic.start, (diagnostic.start ?? 0) + 8),
      }));
    };
    expect(diagnosticsOf('valid.ts')).toEqual([]);
    const wrong = diagnosticsOf('wrong.ts');
    // One error per wrong line (the prelude's three lines come first), each at its option.
    expect(wrong.map((diagnostic) => diagnostic.line)).toEqual([3, 4, 5, 6, 7]);
    // An unknown key, and any wrong option of a template (whose body has no variant without
    // scanType), are reported at the option itself; a wrong value in a scan body at the
    // declaration on the option's line (TypeScript does not narrow a union with a member whose
    // options are open: the template variant), its message naming the type that does not fit.
    expect(wrong.map((diagnostic) => diagnostic.at)).toEqual([
      'd: Creat',
      "portz: '",
      'f: Creat',
      'udpScan:',
      'exclude:',
    ]);
    expect(wrong[0]?.text).toContain("Type 'number' is not assignable to type 'string'");
    expect(wrong[1]?.text).toContain("'portz' does not exist");
    expect(wrong[2]?.text).toContain('"T9"');
    expect(wrong[3]?.text).toContain("Type 'string' is not assignable to type 'boolean");
    // nuclei's config has no exclude (it crawls nothing).
    expect(wrong[4]?.text).toContain("'exclude' does not exist");
  }, 60_000);
});
