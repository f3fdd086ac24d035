/**
 * What the code says that the deployment files must agree with: the variables the configuration
 * reads, the health routes, the package's scripts and where their entry points are built from.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { registerHealth } from '../../../src/adapters/http/routes/system/health.js';
import { ErrorEnvelope } from '../../../src/adapters/http/schemas/envelope.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { registeredRoutes } from '../registered-routes.js';

/** The repository's root. */
export const ROOT = new URL('../../..', import.meta.url).pathname;
export const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

type Env = Record<string, string>;

/** Every variable loadConfig reads: recorded through a proxy, once per branch that reads more. */
export function configVariables(): Set<string> {
  const names = new Set<string>();
  const recording = (values: Env) =>
    new Proxy(values, {
      get(target, name) {
        if (typeof name === 'string') {
          names.add(name);
        }
        return typeof name === 'string' ? target[name] : undefined;
      },
    });
  loadConfig(recording({}));
  // JWT_ISSUER and JWT_AUDIENCE are read only in JWKS mode.
  loadConfig(
    recording({
      JWT_JWKS_URL: 'https://idp.example/.well-known/jwks.json',
      JWT_ISSUER: 'https://idp.example/',
      JWT_AUDIENCE: 'rampart',
    }),
  );
  return names;
}

/** The variables the configuration reads. */
export const CONFIG_VARIABLES = configVariables();

/** The paths the health routes answer on: the API app and the worker listener register these. */
export async function healthPaths(): Promise<Set<string>> {
  const app = Fastify();
  app.addSchema(ErrorEnvelope);
  registerHealth(app, { readiness: async () => ({ ok: true }) });
  await app.ready();
  const paths = registeredRoutes(app).map((route) => route.replace(/^GET /, ''));
  await app.close();
  return new Set(paths);
}

const PACKAGE = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

/** A script's command without its build step: `npm run build && node X` -> ['node', 'X', …]. */
export function scriptCommand(script: string): string[] {
  const text = PACKAGE.scripts[script];
  if (text === undefined) {
    throw new Error(`package.json has no script ${script}`);
  }
  const steps = text.split('&&').map((step) => step.trim());
  const run = steps.filter((step) => step !== 'npm run build');
  if (run.length !== 1 || !steps.includes('npm run build')) {
    throw new Error(`script ${script} is not "npm run build && <command>": ${text}`);
  }
  return (run[0] ?? '').split(/\s+/);
}

/** The scripts an image may run, by their command. */
export const SCRIPT_COMMANDS = new Map(
  ['start', 'worker', 'migrate'].map((script) => [scriptCommand(script).join(' '), script]),
);

/** dist/x/y.js -> src/x/y.ts, the rootDir/outDir of tsconfig.build.json. */
export function sourceOfBuilt(path: string): string {
  const build = JSON.parse(read('tsconfig.build.json')) as {
    compilerOptions: { rootDir: string; outDir: string };
  };
  const { rootDir, outDir } = build.compilerOptions;
  if (!path.startsWith(`${outDir}/`) || !path.endsWith('.js')) {
    throw new Error(`${path} is not under ${outDir}/`);
  }
  return `${rootDir}/${path.slice(outDir.length + 1, -'.js'.length)}.ts`;
}
