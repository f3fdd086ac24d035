/**
 * Imports point inward: domain/ and engines/ stay pure (no I/O modules, no adapters), use-cases/
 * reach the outside world only through ports. A scan's status has one writer, and sentinel's
 * lifecycle one home. The typed client (client/) imports nothing of the service.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../src/', import.meta.url).pathname;
const FORBIDDEN = [
  /^node:(fs|child_process|net|http|https|dgram|dns|tls|worker_threads)/,
  /^(fs|child_process|net|http|https)$/,
  /^(pg|kysely|fastify|undici|ioredis|pino|@electric-sql\/pglite)/,
  /\/adapters\//,
  /\/use-cases\//,
  /\/main\//,
];

const importsOf = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1] ?? '');

const relative = (file: string) => file.slice(ROOT.length);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? sourceFiles(path)
      : path.endsWith('.ts') && !path.endsWith('.test.ts')
        ? [path]
        : [];
  });
}

describe('architecture', () => {
  for (const layer of ['domain', 'engines']) {
    it(`${layer}/ imports no I/O module and no outer layer`, () => {
      const files = sourceFiles(join(ROOT, layer));
      expect(files.length).toBeGreaterThan(3);
      for (const file of files) {
        const imports = [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map(
          (m) => m[1] ?? '',
        );
        for (const spec of imports) {
          for (const rule of FORBIDDEN) {
            expect(rule.test(spec), `${file} imports ${spec}`).toBe(false);
          }
        }
      }
    });
  }

  it('client/ imports only itself and openapi-fetch (no service code, no Node module)', () => {
    const files = sourceFiles(join(ROOT, 'client'));
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      for (const spec of importsOf(file)) {
        expect(
          /^\.\/[a-z-]+\.js$/.test(spec) || spec === 'openapi-fetch',
          `${file} imports ${spec}`,
        ).toBe(true);
      }
    }
  });

  it('only config/ reads process.env', () => {
    for (const file of sourceFiles(ROOT)) {
      if (
        file.includes('/config/') ||
        file.includes('/cli/') ||
        file.endsWith('main/server.ts') ||
        file.endsWith('main/worker-server.ts') ||
        file.includes('/process/')
      ) {
        continue;
      }
      expect(readFileSync(file, 'utf8').includes('process.env'), file).toBe(false);
    }
  });

  it('use-cases/ import no adapter, worker or composition root', () => {
    const files = sourceFiles(join(ROOT, 'use-cases'));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      for (const spec of importsOf(file)) {
        expect(/\/(adapters|workers|main)\//.test(spec), `${file} imports ${spec}`).toBe(false);
      }
    }
  });

  it("writes a scan's status in adapters/queue/scan-moves.ts only", () => {
    const writers: string[] = [];
    for (const file of sourceFiles(ROOT)) {
      const text = readFileSync(file, 'utf8');
      // SQL: `set status = …` (the one writer), or a Kysely update of scans setting `status`.
      const sqlWrite = /\bset\s+status\s*=/i.test(text);
      const kyselyWrite = [...text.matchAll(/updateTable\('scans'\)/g)].some((match) =>
        /^[^;]*?\.set\(\{[^}]*\bstatus\s*:/.test(text.slice(match.index)),
      );
      if (sqlWrite || kyselyWrite) {
        writers.push(relative(file));
      }
    }
    expect(writers).toEqual(['adapters/queue/scan-moves.ts']);
  });

  it('names sentinel outside engines/sentinel/ only in its lifecycle, registry, root and views', () => {
    const allowed = [
      /^use-cases\/scans\/sentinel-lifecycle\.ts$/,
      // The lifecycle's store: the SQL verbs it uses.
      /^adapters\/queue\/sentinel-runs\.ts$/,
      /^engines\/(engine|registry)\.ts$/,
      /^main\//,
      /^adapters\/http\//,
      // The schema: sentinel_runs and the migration that made it.
      /^adapters\/db\/migrations\//,
      // The typed client's types, generated from the OpenAPI document (which names every engine).
      /^client\/schema\.ts$/,
    ];
    const referring = sourceFiles(ROOT)
      .map(relative)
      .filter((file) => !file.startsWith('engines/sentinel/'))
      .filter((file) => {
        const path = join(ROOT, file);
        return (
          readFileSync(path, 'utf8').includes("'sentinel'") ||
          importsOf(path).some((spec) =>
            /engines\/sentinel\/|sentinel-lifecycle|sentinel-runs/.test(spec),
          )
        );
      });
    expect(referring.length).toBeGreaterThan(3);
    expect(referring.filter((file) => !allowed.some((rule) => rule.test(file)))).toEqual([]);
  });

  it('imports OpenTelemetry in adapters/tracing/ only (use cases and workers use the port)', () => {
    const importing = sourceFiles(ROOT)
      .filter((file) =>
        importsOf(file).some((spec) => /^@opentelemetry\/|^@fastify\/otel/.test(spec)),
      )
      .map(relative);
    expect(importing.length).toBeGreaterThan(0);
    expect(importing.filter((file) => !file.startsWith('adapters/tracing/'))).toEqual([]);
  });
});
