/**
 * The deployment files (Dockerfile, compose.yaml, deploy/kubernetes/) cannot be run here: no
 * container engine, no cluster. So each file is parsed and held against the code it deploys:
 * - every environment variable a file sets for a Rampart image (rampart-api, rampart-worker; not the
 *   PostgreSQL image's) is one the configuration reads (the names loadConfig asks its environment
 *   for, recorded) and is documented in the README, and the values load without a ConfigError;
 * - every probe and health check asks a health route on the port the configuration listens on;
 * - the images' commands are the package's scripts without their build step, whose entry points
 *   exist in src/ (and so in dist/ after `npm run build`);
 * - the worker image installs the scanners of the engine pools and the sandbox's packages, and
 *   creates the scanner user the configuration names;
 * - the NetworkPolicy's excluded ranges are the refused ranges of the code;
 * - the KEDA queries run on a migrated database and count the statuses and engines they should.
 * Every check is a function returning its problems, and the last block shows each one failing on
 * a broken copy of the real file.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SANDBOX_PROGRAMS } from '../src/adapters/process/detect-sandbox.js';
import { type Config, loadConfig } from '../src/config/load-config.js';
import { ACTIVE_STATUSES } from '../src/domain/scans/status-machine.js';
import { refusedCidrs } from '../src/domain/targets/refused-ranges.js';
import { isEngineName } from '../src/engines/engine.js';
import { ENGINES } from '../src/engines/registry.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import {
  CONFIG_VARIABLES,
  healthPaths,
  ROOT,
  read,
  SCRIPT_COMMANDS,
  scriptCommand,
  sourceOfBuilt,
} from './support/deploy-files/code-facts.js';
import {
  aptPackages,
  parseDockerfile,
  runsInStage,
  stageChain,
  stageCmd,
  stageEnv,
  stageUser,
} from './support/deploy-files/dockerfile.js';

type Env = Record<string, string>;
// Parsed YAML is untyped by nature; the checks below narrow what they read.
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML documents
type Doc = any;

/** Problems of a command an image or a manifest runs: it must be one of the package's scripts. */
function commandProblems(where: string, command: readonly string[]): string[] {
  const script = SCRIPT_COMMANDS.get(command.join(' '));
  if (script === undefined) {
    return [`${where}: command "${command.join(' ')}" is none of the package's scripts`];
  }
  const entry = command[1] ?? '';
  return existsSync(join(ROOT, sourceOfBuilt(entry)))
    ? []
    : [`${where}: ${entry} is built from ${sourceOfBuilt(entry)}, which does not exist`];
}

/** Problems of an environment a file sets: unknown names, or values the configuration refuses. */
function envProblems(where: string, env: Env): string[] {
  const problems = Object.keys(env)
    .filter((name) => !CONFIG_VARIABLES.has(name))
    .map((name) => `${where}: sets ${name}, which the configuration does not read`);
  try {
    loadConfig(env);
  } catch (error) {
    problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}

/** Secrets a file must never set inline, only through an env file or a Secret. */
const SECRET_VARIABLES = ['DATABASE_URL', 'JWT_SECRET', 'SECRETS_KEY', 'SECRETS_KEY_PREVIOUS'];

// ---------------------------------------------------------------------------------------------
// Containers of compose.yaml and the Kubernetes manifests, in one shape.

interface Container {
  /** compose service or `kind/name` of the manifest (and container name). */
  readonly where: string;
  readonly image: 'api' | 'worker';
  /** The environment it gets, secrets filled in from the example Secret / env file. */
  readonly env: Env;
  /** Names set inline (not from a Secret or an env file). */
  readonly inline: readonly string[];
  /** Its command, or the image's CMD. */
  readonly command: readonly string[];
  /** Health checks: path and port number asked. */
  readonly probes: readonly { readonly path: string; readonly port: number }[];
}

function imageKind(image: unknown): 'api' | 'worker' | null {
  const match = typeof image === 'string' ? /(?:^|\/)rampart-(api|worker):/.exec(image) : null;
  return match === null ? null : (match[1] as 'api' | 'worker');
}

function parseYaml(path: string): Doc[] {
  const documents = parseAllDocuments(read(path), { merge: true });
  const list = Array.isArray(documents) ? documents : [documents];
  return list.map((document) => {
    if (document.errors.length > 0) {
      throw new Error(`${path}: ${document.errors.map((error) => error.message).join('; ')}`);
    }
    return document.toJS();
  });
}

function parseEnvFile(path: string): Env {
  const env: Env = {};
  for (const line of read(path).split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      continue;
    }
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match === null) {
      throw new Error(`${path}: line not NAME=value: ${line}`);
    }
    env[match[1] ?? ''] = match[2] ?? '';
  }
  return env;
}

const DOCKERFILE = parseDockerfile(read('Dockerfile'));
const IMAGE_CMD = {
  api: stageCmd(DOCKERFILE, 'api'),
  worker: stageCmd(DOCKERFILE, 'worker'),
};
const IMAGE_ENV = { api: stageEnv(DOCKERFILE, 'api'), worker: stageEnv(DOCKERFILE, 'worker') };

/** A health check command `node -e "fetch('http://127.0.0.1:PORT/PATH')…"`: its port and path. */
function healthCheckProbe(test: readonly string[]): { path: string; port: number } {
  const match = /https?:\/\/(?:127\.0\.0\.1|localhost):(\d+)(\/[\w/-]*)/.exec(test.join(' '));
  if (match === null) {
    throw new Error(`health check asks no local URL: ${test.join(' ')}`);
  }
  return { port: Number(match[1]), path: match[2] ?? '' };
}

function composeContainers(compose: Doc): Container[] {
  const containers: Container[] = [];
  for (const [name, service] of Object.entries<Doc>(compose.services)) {
    const image = imageKind(service.image);
    if (image === null) {
      continue;
    }
    if (service.build !== undefined && service.build.target !== image) {
      throw new Error(`compose ${name}: image rampart-${image} built from ${service.build.target}`);
    }
    const fromFiles: Env = {};
    for (const file of service.env_file ?? []) {
      const path = typeof file === 'string' ? file : file.path;
      // The env file itself is the operator's (git ignores it); its example is in the repository.
      Object.assign(fromFiles, parseEnvFile(`${path}.example`));
    }
    const inline: Env = service.environment ?? {};
    containers.push({
      where: `compose ${name}`,
      image,
      env: { ...IMAGE_ENV[image], ...fromFiles, ...inline },
      inline: Object.keys(inline),
      command: service.command ?? IMAGE_CMD[image],
      probes: service.healthcheck ? [healthCheckProbe(service.healthcheck.test)] : [],
    });
  }
  return containers;
}

function kubernetesFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (entry.name.endsWith('.yaml')) {
        files.push(path);
      }
    }
  };
  walk('deploy/kubernetes');
  return files.sort();
}

const K8S_DOCS: Doc[] = kubernetesFiles().flatMap((path) =>
  parseYaml(path).map((doc: Doc) => ({ ...doc, __file: relative(ROOT, join(ROOT, path)) })),
);
const EXAMPLE_SECRET: Doc = K8S_DOCS.find(
  (doc) => doc.kind === 'Secret' && doc.metadata.name === 'rampart',
);

function podSpec(doc: Doc): Doc | null {
  return doc.kind === 'Deployment' || doc.kind === 'Job' ? doc.spec.template.spec : null;
}

function kubernetesContainers(docs: readonly Doc[]): Container[] {
  const containers: Container[] = [];
  for (const doc of docs) {
    const spec = podSpec(doc);
    for (const container of spec?.containers ?? []) {
      const image = imageKind(container.image);
      if (image === null) {
        continue;
      }
      const where = `${doc.kind}/${doc.metadata.name} ${container.name}`;
      const env: Env = { ...IMAGE_ENV[image] };
      const inline: string[] = [];
      for (const entry of container.env ?? []) {
        const ref = entry.valueFrom?.secretKeyRef;
        if (ref !== undefined) {
          const value = EXAMPLE_SECRET?.stringData?.[ref.key];
          if (ref.name !== 'rampart' || value === undefined) {
            throw new Error(
              `${where}: ${entry.name} from ${ref.name}/${ref.key}, not in the Secret`,
            );
          }
          env[entry.name] = value;
        } else {
          env[entry.name] = String(entry.value);
          inline.push(entry.name);
        }
      }
      const ports = new Map<string, number>(
        (container.ports ?? []).map((port: Doc) => [port.name, port.containerPort]),
      );
      const probes = ['startupProbe', 'livenessProbe', 'readinessProbe']
        .map((kind) => container[kind]?.httpGet)
        .filter((get) => get !== undefined)
        .map((get: Doc) => ({
          path: get.path,
          port: typeof get.port === 'number' ? get.port : (ports.get(get.port) ?? -1),
        }));
      containers.push({
        where,
        image,
        env,
        inline,
        command: container.command ?? IMAGE_CMD[image],
        probes,
      });
    }
  }
  return containers;
}

/** Problems of a container's probes: a path no health route answers, or a port nothing listens on. */
function probeProblems(container: Container, paths: ReadonlySet<string>): string[] {
  let config: Config;
  try {
    config = loadConfig(container.env);
  } catch {
    return []; // envProblems reports it
  }
  const listening = container.image === 'api' ? config.port : config.workerHealthPort;
  return container.probes.flatMap((probe) => [
    ...(paths.has(probe.path) ? [] : [`${container.where}: probes ${probe.path}, no such route`]),
    ...(probe.port === listening
      ? []
      : [
          `${container.where}: probes port ${probe.port}, the process listens on ${String(listening)}`,
        ]),
  ]);
}

function containerProblems(container: Container, paths: ReadonlySet<string>): string[] {
  return [
    ...envProblems(container.where, container.env),
    ...container.inline
      .filter((name) => SECRET_VARIABLES.includes(name))
      .map((name) => `${container.where}: sets the secret ${name} inline`),
    ...commandProblems(container.where, container.command),
    ...probeProblems(container, paths),
  ];
}

// ---------------------------------------------------------------------------------------------
// NetworkPolicy and KEDA.

function networkPolicyProblems(policy: Doc): string[] {
  const refused = refusedCidrs();
  const blocks: Doc[] = policy.spec.egress.flatMap((rule: Doc) =>
    (rule.to ?? []).map((peer: Doc) => peer.ipBlock).filter((block: Doc) => block !== undefined),
  );
  const problems: string[] = [];
  for (const [cidr, expected] of [
    ['0.0.0.0/0', refused.ipv4],
    ['::/0', refused.ipv6],
  ] as const) {
    const block = blocks.find((candidate) => candidate.cidr === cidr);
    const except: string[] = block?.except ?? [];
    const missing = expected.filter((range) => !except.includes(range));
    const extra = except.filter((range) => !expected.includes(range));
    if (block === undefined || missing.length > 0 || extra.length > 0) {
      problems.push(
        `NetworkPolicy ${cidr}: missing ${missing.join(', ') || 'none'}; not refused by the code: ${extra.join(', ') || 'none'}`,
      );
    }
  }
  if (blocks.some((block) => block.cidr !== '0.0.0.0/0' && block.cidr !== '::/0')) {
    problems.push('NetworkPolicy: an ipBlock other than the two public ones');
  }
  return problems;
}

/** The quoted literals of `column in (…)` in a query. */
function inList(query: string, column: string): string[] | null {
  const match = new RegExp(`\\b${column}\\s+in\\s*\\(([^)]*)\\)`, 'i').exec(query);
  return match === null
    ? null
    : (match[1] ?? '').split(',').map((literal) => literal.trim().replace(/^'(.*)'$/, '$1'));
}

/** Problems of a ScaledObject against the worker Deployment it scales (the query itself runs below). */
function scaledObjectProblems(scaled: Doc, workers: readonly Doc[]): string[] {
  const where = `ScaledObject/${scaled.metadata.name}`;
  const target = workers.find((doc) => doc.metadata.name === scaled.spec.scaleTargetRef.name);
  if (target === undefined) {
    return [`${where}: scales ${scaled.spec.scaleTargetRef.name}, no worker Deployment`];
  }
  const [container] = kubernetesContainers([target]);
  if (container === undefined) {
    return [`${where}: its target has no Rampart container`];
  }
  const config = loadConfig(container.env);
  const problems: string[] = [];
  if (!(scaled.spec.minReplicaCount >= 1)) {
    problems.push(`${where}: may scale to zero (scans of its engines would answer 503)`);
  }
  for (const trigger of scaled.spec.triggers) {
    const { query, targetQueryValue, connectionFromEnv } = trigger.metadata;
    if (trigger.type !== 'postgresql') {
      problems.push(`${where}: trigger ${trigger.type}, not postgresql`);
      continue;
    }
    if (connectionFromEnv !== 'DATABASE_URL' || container.env.DATABASE_URL === undefined) {
      problems.push(`${where}: connects through ${connectionFromEnv}, not the pool's DATABASE_URL`);
    }
    const statuses = inList(query, 'status');
    if (statuses === null || [...statuses].sort().join() !== [...ACTIVE_STATUSES].sort().join()) {
      problems.push(`${where}: counts statuses ${statuses?.join(', ')}, not queued and running`);
    }
    const engines = inList(query, 'scan_type') ?? [];
    if ([...engines].sort().join() !== [...(config.workerEngines ?? [])].sort().join()) {
      problems.push(
        `${where}: counts ${engines.join(', ')}, the pool runs ${config.workerEngines?.join(', ')}`,
      );
    }
    const perPod = Math.max(1, config.workers) * config.workerConcurrency;
    if (Number(targetQueryValue) !== perPod) {
      problems.push(`${where}: targetQueryValue ${targetQueryValue}, a pod runs ${perPod} scans`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

const COMPOSE: Doc = parseYaml('compose.yaml')[0];
const WORKER_DEPLOYMENTS = K8S_DOCS.filter(
  (doc) =>
    doc.kind === 'Deployment' &&
    kubernetesContainers([doc]).some((container) => container.image === 'worker'),
);
const SCALED_OBJECTS = K8S_DOCS.filter((doc) => doc.kind === 'ScaledObject');
let HEALTH_PATHS: Set<string>;

beforeAll(async () => {
  HEALTH_PATHS = await healthPaths();
});

describe('what the checks compare against', () => {
  it('records the configuration variables, conditional ones included', () => {
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'JWT_ISSUER',
      'WORKER_ENGINES',
      'SCANNER_SANDBOX',
    ]) {
      expect(CONFIG_VARIABLES).toContain(name);
    }
    expect(CONFIG_VARIABLES).not.toContain('NODE_ENV');
  });

  it('finds every variable a file sets in the README Configuration table', () => {
    const documented = new Set(
      [...read('README.md').matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]),
    );
    const set = [...composeContainers(COMPOSE), ...kubernetesContainers(K8S_DOCS)].flatMap(
      (container) => Object.keys(container.env),
    );
    expect(set.length).toBeGreaterThan(0);
    expect([...new Set(set)].filter((name) => !documented.has(name))).toEqual([]);
  });

  it('finds the health routes and the scripts', () => {
    expect([...HEALTH_PATHS].sort()).toEqual(['/healthz', '/readyz']);
    expect(scriptCommand('start')).toEqual(['node', 'dist/main/server.js']);
    expect(scriptCommand('migrate')).toEqual(['node', 'dist/cli/main.js', 'migrate']);
  });
});

describe('Dockerfile', () => {
  it('builds with npm ci and npm run build in a stage the images copy dist/ from', () => {
    const build = DOCKERFILE.find((stage) => stage.name === 'build');
    expect(build).toBeDefined();
    expect(runsInStage(DOCKERFILE, 'build', /\bnpm ci\b/)).toBe(true);
    expect(runsInStage(DOCKERFILE, 'build', /\bnpm run build\b/)).toBe(true);
    for (const image of ['api', 'worker']) {
      expect(
        stageChain(DOCKERFILE, image).some(
          ({ op, args }) => op === 'COPY' && /--from=build\b.*\/app\/dist\b/.test(args),
        ),
      ).toBe(true);
    }
  });

  it('runs the package scripts of the API and the workers, with settings the configuration reads', () => {
    expect(commandProblems('api image', IMAGE_CMD.api)).toEqual([]);
    expect(commandProblems('worker image', IMAGE_CMD.worker)).toEqual([]);
    expect(SCRIPT_COMMANDS.get(IMAGE_CMD.api.join(' '))).toBe('start');
    expect(SCRIPT_COMMANDS.get(IMAGE_CMD.worker.join(' '))).toBe('worker');
    expect(envProblems('api image', IMAGE_ENV.api)).toEqual([]);
    expect(envProblems('worker image', IMAGE_ENV.worker)).toEqual([]);
    expect(loadConfig(IMAGE_ENV.api).workers).toBe(0);
    expect(loadConfig(IMAGE_ENV.worker).scannerSandbox.mode).toBe('required');
  });

  it('runs the API as a non-root user; the worker as root, which the sandbox needs', () => {
    expect(stageUser(DOCKERFILE, 'api')).not.toMatch(/^(root|0)(:|$)/);
    expect(stageUser(DOCKERFILE, 'worker')).toBe('root');
  });

  it('puts the pools’ scanners, the sandbox packages and the scanner user into the worker image', () => {
    const packages = aptPackages(DOCKERFILE, 'worker');
    const pooled = WORKER_DEPLOYMENTS.flatMap(
      (doc) => loadConfig(kubernetesContainers([doc])[0]?.env ?? {}).workerEngines ?? [],
    );
    expect(pooled.length).toBeGreaterThan(0);
    // The Debian package of each of these scanners is named as its binary (.ci/run installs them so).
    for (const engine of pooled) {
      const definition = isEngineName(engine) ? ENGINES[engine] : null;
      expect(definition?.kind === 'tool' && packages.has(definition.binary), engine).toBe(true);
    }
    for (const program of SANDBOX_PROGRAMS) {
      expect(packages, program.binary).toContain(program.package);
    }
    const user = loadConfig(IMAGE_ENV.worker).scannerSandbox.user;
    expect(runsInStage(DOCKERFILE, 'worker', new RegExp(`useradd -r .*\\b${user}\\b`))).toBe(true);
    // nikto is in non-free: the sources must name it before apt-get install runs.
    expect(runsInStage(DOCKERFILE, 'worker', /non-free.*apt-get install/)).toBe(true);
  });

  it('leaves secrets, dependencies and local state out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', 'data', '.env', '.git']) {
      expect(ignored).toContain(entry);
    }
  });
});

describe('compose.yaml', () => {
  const containers = composeContainers(COMPOSE);

  it('has PostgreSQL, Redis, a migration, two API processes and workers', () => {
    expect(Object.keys(COMPOSE.services)).toEqual(expect.arrayContaining(['postgres', 'redis']));
    const apis = containers.filter(
      (container) => SCRIPT_COMMANDS.get(container.command.join(' ')) === 'start',
    );
    expect(apis.length).toBeGreaterThanOrEqual(2);
    expect(
      containers.filter(
        (container) => SCRIPT_COMMANDS.get(container.command.join(' ')) === 'migrate',
      ),
    ).toHaveLength(1);
    expect(containers.filter((container) => container.image === 'worker')).not.toHaveLength(0);
  });

  it('sets only variables the configuration reads, secrets only from the env file', () => {
    expect(containers.length).toBeGreaterThanOrEqual(4);
    expect(containers.flatMap((container) => containerProblems(container, HEALTH_PATHS))).toEqual(
      [],
    );
  });

  it('health-checks every API and worker process on its health route and port', () => {
    for (const container of containers) {
      if (SCRIPT_COMMANDS.get(container.command.join(' ')) !== 'migrate') {
        expect(container.probes, container.where).not.toHaveLength(0);
      }
    }
  });

  it('requires the sandbox in the workers and gives them what bwrap and nft need', () => {
    for (const [name, service] of Object.entries<Doc>(COMPOSE.services)) {
      if (imageKind(service.image) !== 'worker') {
        continue;
      }
      const container = containers.find((candidate) => candidate.where === `compose ${name}`);
      const config = loadConfig(container?.env ?? {});
      expect(config.scannerSandbox.mode).toBe('required');
      expect(service.cap_add).toEqual(expect.arrayContaining(['SYS_ADMIN', 'NET_ADMIN']));
      expect(service.security_opt).toEqual(
        expect.arrayContaining(['apparmor=unconfined', 'systempaths=unconfined']),
      );
      // Docker's stop grace must outlast the scans' own.
      expect(Number.parseInt(service.stop_grace_period, 10) * 1000).toBeGreaterThan(
        config.workerShutdownGraceMs,
      );
    }
  });
});

describe('Kubernetes manifests', () => {
  const containers = kubernetesContainers(K8S_DOCS);

  it('parse, and every Rampart container sets only what the configuration reads', () => {
    expect(K8S_DOCS.length).toBeGreaterThanOrEqual(8);
    expect(containers.length).toBeGreaterThanOrEqual(5);
    expect(containers.flatMap((container) => containerProblems(container, HEALTH_PATHS))).toEqual(
      [],
    );
  });

  it('take their secrets from the Secret, whose keys are configuration variables', () => {
    expect(EXAMPLE_SECRET).toBeDefined();
    for (const [name, value] of Object.entries<string>(EXAMPLE_SECRET.stringData)) {
      expect(CONFIG_VARIABLES, name).toContain(name);
      expect(envProblems(`Secret ${name}`, { [name]: value })).toEqual([]);
    }
  });

  it('probe the API for liveness and readiness, behind a Service and a PodDisruptionBudget', () => {
    const api = K8S_DOCS.find(
      (doc) =>
        doc.kind === 'Deployment' &&
        kubernetesContainers([doc]).some((container) => container.image === 'api'),
    );
    const container = api.spec.template.spec.containers[0];
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(api.spec.replicas).toBeGreaterThanOrEqual(2);
    const labels = api.spec.template.metadata.labels;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    const pdb = K8S_DOCS.find((doc) => doc.kind === 'PodDisruptionBudget');
    expect(selects(pdb.spec.selector.matchLabels)).toBe(true);
    expect(pdb.spec.minAvailable).toBeLessThan(api.spec.replicas);
    const service = K8S_DOCS.find((doc) => doc.kind === 'Service');
    expect(selects(service.spec.selector)).toBe(true);
    const ports = container.ports.map((port: Doc) => port.name);
    expect(ports).toContain(service.spec.ports[0].targetPort);
  });

  it('run one worker Deployment per engine pool, probed on the worker listener', () => {
    const pools = WORKER_DEPLOYMENTS.map((doc) => {
      const [container] = kubernetesContainers([doc]);
      const config = loadConfig(container?.env ?? {});
      const spec = doc.spec.template.spec;
      const worker = spec.containers[0];
      expect(worker.livenessProbe.httpGet.path, doc.metadata.name).toBe('/healthz');
      expect(worker.readinessProbe.httpGet.path, doc.metadata.name).toBe('/readyz');
      expect(config.workerHealthPort).not.toBeNull();
      expect(config.scannerSandbox.mode).toBe('required');
      expect(worker.securityContext.capabilities.add).toEqual(
        expect.arrayContaining(['SYS_ADMIN', 'NET_ADMIN']),
      );
      expect(spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
        config.workerShutdownGraceMs,
      );
      return config.workerEngines ?? [];
    });
    expect(pools.length).toBeGreaterThanOrEqual(2);
    const pooled = pools.flat();
    // Pools do not overlap, and every scanner the worker image installs is in one.
    expect(new Set(pooled).size).toBe(pooled.length);
    const installed = aptPackages(DOCKERFILE, 'worker');
    const installedEngines = Object.values(ENGINES)
      .filter((engine) => engine.kind === 'tool' && installed.has(engine.binary))
      .map((engine) => engine.name);
    expect([...pooled].sort()).toEqual(installedEngines.sort());
  });

  it('migrate with a Job that runs the migrate script', () => {
    const jobs = K8S_DOCS.filter((doc) => doc.kind === 'Job');
    expect(jobs).toHaveLength(1);
    const [container] = kubernetesContainers(jobs);
    expect(SCRIPT_COMMANDS.get(container?.command.join(' ') ?? '')).toBe('migrate');
  });

  it('keep the workers from the refused ranges with the NetworkPolicy', () => {
    const policies = K8S_DOCS.filter((doc) => doc.kind === 'NetworkPolicy');
    expect(policies).toHaveLength(1);
    const [policy] = policies;
    expect(networkPolicyProblems(policy)).toEqual([]);
    const selector: Record<string, string> = policy.spec.podSelector.matchLabels;
    for (const doc of WORKER_DEPLOYMENTS) {
      const labels = doc.spec.template.metadata.labels;
      expect(Object.entries(selector).every(([key, value]) => labels[key] === value)).toBe(true);
    }
  });

  it('scale each pool on its queue with a KEDA ScaledObject (optional/)', () => {
    expect(SCALED_OBJECTS.length).toBe(WORKER_DEPLOYMENTS.length);
    for (const scaled of SCALED_OBJECTS) {
      expect(scaled.__file).toMatch(/^deploy\/kubernetes\/optional\//);
      expect(scaledObjectProblems(scaled, WORKER_DEPLOYMENTS)).toEqual([]);
    }
  });
});

describe('the KEDA queries on a migrated database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await database.destroy();
  });

  it('name real tables and columns and return one count', async () => {
    for (const scaled of SCALED_OBJECTS) {
      for (const trigger of scaled.spec.triggers) {
        const result = await sql<{ count: string | number }>`${sql.raw(
          trigger.metadata.query,
        )}`.execute(database.handle.db);
        expect(result.rows).toHaveLength(1);
        expect(Number(result.rows[0]?.count)).toBe(0);
      }
    }
  });
});

describe('each check fails on a broken copy of the real file', () => {
  const clone = <T>(value: T): T => structuredClone(value);

  it('an unknown variable, a bad value, an inline secret, a foreign command, a wrong probe', () => {
    const [api] = kubernetesContainers(K8S_DOCS).filter((container) => container.image === 'api');
    if (api === undefined) {
      throw new Error('no API container');
    }
    const problems = (changes: Partial<Container>) =>
      containerProblems({ ...api, ...changes }, HEALTH_PATHS);
    expect(problems({})).toEqual([]);
    expect(problems({ env: { ...api.env, METRICS_PORTT: '9464' } })).toEqual([
      expect.stringContaining('METRICS_PORTT, which the configuration does not read'),
    ]);
    expect(problems({ env: { ...api.env, WORKERS: 'none' } })).toEqual([
      expect.stringContaining('WORKERS must be an integer'),
    ]);
    expect(problems({ inline: [...api.inline, 'JWT_SECRET'] })).toEqual([
      expect.stringContaining('sets the secret JWT_SECRET inline'),
    ]);
    expect(problems({ command: ['node', 'dist/main/api.js'] })).toEqual([
      expect.stringContaining('none of the package'),
    ]);
    expect(problems({ probes: [{ path: '/health', port: 3000 }] })).toEqual([
      expect.stringContaining('no such route'),
    ]);
    expect(problems({ env: { ...api.env, PORT: '8080' } })).toEqual([
      expect.stringContaining('the process listens on 8080'),
      expect.stringContaining('the process listens on 8080'),
      expect.stringContaining('the process listens on 8080'),
    ]);
  });

  it('a Dockerfile whose image runs something else or sets an unread variable', () => {
    const broken = parseDockerfile(
      read('Dockerfile')
        .replace('CMD ["node", "dist/main/worker-server.js"]', 'CMD ["node", "dist/worker.js"]')
        .replace('ENV PORT=3000', 'ENV NODE_ENV=production PORT=3000'),
    );
    expect(commandProblems('worker image', stageCmd(broken, 'worker'))).not.toEqual([]);
    expect(envProblems('api image', stageEnv(broken, 'api'))).toEqual([
      expect.stringContaining('NODE_ENV'),
    ]);
  });

  it('a NetworkPolicy that lets one refused range through, or excludes one the code allows', () => {
    const policy = K8S_DOCS.find((doc) => doc.kind === 'NetworkPolicy');
    const missing = clone(policy);
    const v4 = missing.spec.egress
      .flatMap((rule: Doc) => rule.to ?? [])
      .find((peer: Doc) => peer.ipBlock?.cidr === '0.0.0.0/0').ipBlock;
    v4.except = v4.except.filter((range: string) => range !== '169.254.169.254/32');
    expect(networkPolicyProblems(missing)).toEqual([
      expect.stringContaining('missing 169.254.169.254/32'),
    ]);
    v4.except.push('169.254.169.254/32', '203.0.113.0/24');
    expect(networkPolicyProblems(missing)).toEqual([
      expect.stringContaining('not refused by the code: 203.0.113.0/24'),
    ]);
  });

  it('a ScaledObject counting the wrong statuses, engines or per-pod target', () => {
    const [scaled] = SCALED_OBJECTS;
    const broken = (change: (copy: Doc) => void) => {
      const copy = clone(scaled);
      change(copy);
      return scaledObjectProblems(copy, WORKER_DEPLOYMENTS);
    };
    expect(
      broken((copy) => {
        copy.spec.triggers[0].metadata.query = copy.spec.triggers[0].metadata.query.replace(
          "'running'",
          "'finished'",
        );
      }),
    ).toEqual([expect.stringContaining('not queued and running')]);
    expect(
      broken((copy) => {
        copy.spec.triggers[0].metadata.query = copy.spec.triggers[0].metadata.query.replace(
          /scan_type in \(/,
          "scan_type in ('zap', ",
        );
      }),
    ).toEqual([expect.stringContaining('the pool runs')]);
    expect(
      broken((copy) => {
        copy.spec.triggers[0].metadata.targetQueryValue = '5';
      }),
    ).toEqual([expect.stringContaining('a pod runs 2 scans')]);
    expect(
      broken((copy) => {
        copy.spec.minReplicaCount = 0;
      }),
    ).toEqual([expect.stringContaining('scale to zero')]);
  });
});
