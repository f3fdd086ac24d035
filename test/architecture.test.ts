/** Imports point inward: domain/ and engines/ stay pure (no I/O modules, no adapters). */
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
});
