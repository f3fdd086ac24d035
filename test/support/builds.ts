/**
 * What `npm run build` makes, made for the tests when it is missing or older than its sources:
 * the service (tsc → dist/, which the tests' service, worker and CLI processes run, as `npm start`
 * does) and the dashboard (web/ → dist/app, which the browser tests load). Run once per test run,
 * as vitest's global setup, before any test file starts; the benches call them too. In CI the
 * build step has just run, and both are found up to date.
 */
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'vite';
import { DASHBOARD_DIR } from '../../src/adapters/http/routes/system/dashboard.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What the built app is made of: its own sources and the typed client it bundles. */
const SOURCES = ['web', 'src/client'].map((dir) => join(ROOT, dir));
const CONFIG = join(ROOT, 'web/vite.config.ts');
/** What the built service is made of (its *.test.ts files left out, as tsconfig.build.json does). */
const SERVICE_SOURCES = ['src', 'tsconfig.json', 'tsconfig.build.json'].map((path) =>
  join(ROOT, path),
);

/** The entry points the tests run as processes, built: `node <builtEntry(name)>`. */
export type BuiltEntry = 'main/server' | 'main/worker-server' | 'cli/main';

export function builtEntry(name: BuiltEntry): string {
  return join(ROOT, 'dist', `${name}.js`);
}

function newestChange(path: string, counts: (name: string) => boolean = () => true): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) {
    return stats.mtimeMs;
  }
  return Math.max(
    stats.mtimeMs,
    ...readdirSync(path)
      .filter(counts)
      .map((name) => newestChange(join(path, name), counts)),
  );
}

const notATest = (name: string) => !name.endsWith('.test.ts');

/** Whether `built` exists and is no older than any of `sources` (the files `counts` keeps). */
function isUpToDate(
  built: string,
  sources: readonly string[],
  counts?: (name: string) => boolean,
): boolean {
  let builtMs: number;
  try {
    builtMs = statSync(built).mtimeMs;
  } catch {
    return false;
  }
  return builtMs >= Math.max(...sources.map((path) => newestChange(path, counts)));
}

/** tsc writes every output on each build (it is not incremental): the server entry's time is the build's. */
const serviceIsBuilt = () => isUpToDate(builtEntry('main/server'), SERVICE_SOURCES, notATest);

export async function ensureServiceBuilt(): Promise<void> {
  if (serviceIsBuilt()) {
    return;
  }
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT });
  } catch (error) {
    // A type error still emits (npm run typecheck reports it): only a build that wrote nothing fails.
    if (!serviceIsBuilt()) {
      throw error;
    }
  }
}

export async function ensureDashboardBuilt(): Promise<void> {
  if (isUpToDate(join(DASHBOARD_DIR, 'index.html'), SOURCES)) {
    return;
  }
  // vitest runs with NODE_ENV=test, which would make Preact's JSX the development kind (with file
  // names and line numbers): build what `npm run build` builds.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: CONFIG, mode: 'production', logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) {
      delete process.env.NODE_ENV;
    } else {
      process.env.NODE_ENV = nodeEnv;
    }
  }
}
