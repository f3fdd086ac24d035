/**
 * The `rampart` CLI as a real process (built, as `npm run build` makes it: test/support/builds.ts)
 * against an app listening over real HTTP, with a temporary config directory. The app and its
 * workers run in this process with a test double engine: an nmap scan of port 443 finds a high
 * finding, of port 22 a low one.
 * Webhook deliveries go to a real HTTPS receiver (test/support/tls.ts). The CLI talks HTTP only.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFinding, instantEngine } from '../doubles/engines.js';
import { builtEntry } from '../support/builds.js';
import { tokenFor, useTestApp } from '../support/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from '../support/tls.js';

const ctx = useTestApp(
  {
    ALLOW_PRIVATE_TARGETS: 'true',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    WEBHOOK_TIMEOUT_MS: '1000',
    // A failed delivery uses up its four attempts at once, so it can be recovered.
    WEBHOOK_RETRY_DELAYS_MS: '0,50,50,50',
    WORKERS: '1',
  },
  {
    // hooks.example resolves to a TEST-NET address: webhooks can be created, nothing is sent.
    webhookLookup: async (host: string) => {
      if (host === 'hooks.example') {
        return ['203.0.113.50'];
      }
      throw new Error(`${host} does not resolve`);
    },
    engineRunners: new Map([
      [
        'nmap',
        instantEngine((request) => [
          draftFinding({
            severity: request.options.ports === '443' ? 'high' : 'low',
            title: `finding on ${String(request.options.ports)}`,
          }),
        ]),
      ],
    ]),
  },
);

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let configParent = '';
let configDir = '';
let receiver: HttpsReceiver | null = null;

/** Runs the CLI to its end; never throws on a non-zero exit. */
function rampart(args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [builtEntry('cli/main'), ...args],
      {
        env: { PATH: process.env.PATH ?? '', RAMPART_CONFIG_DIR: configDir, ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  configParent = await mkdtemp(join(tmpdir(), 'rampart-cli-'));
  configDir = join(configParent, 'config', 'rampart');
});

afterAll(async () => {
  await receiver?.close();
  await rm(configParent, { recursive: true, force: true });
});

/** Runs a command that must succeed with nothing on stderr, and parses its --json output. */
async function jsonOf(
  args: readonly string[],
  profile = 'dashboard',
): Promise<Record<string, unknown>> {
  const run = await rampart([...args, '--profile', profile, '--json']);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** Runs a command that must succeed with nothing on stderr, and returns its human output. */
async function textOf(args: readonly string[], profile = 'dashboard'): Promise<string> {
  const run = await rampart([...args, '--profile', profile]);
  expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
  return run.stdout;
}

/** A field of parsed JSON output, typed by the caller (the test reads what the API answers). */
function field<T>(data: Record<string, unknown>, name: string): T {
  expect(data).toHaveProperty(name);
  return data[name] as T;
}

// Every step spawns a CLI process (a fifth of a second each, more on a loaded machine).
describe('the rampart CLI', { timeout: 240_000 }, () => {
  let rawKey = '';
  const tenantId = randomUUID();

  it('logs in with a token and with a key: a 0600 file in a 0700 dir, the secret never printed', async () => {
    const token = await tokenFor(tenantId);
    const asAdmin = await rampart([
      'login',
      '--url',
      ctx.app.url,
      '--token',
      token,
      '--profile',
      'dashboard',
    ]);
    expect(asAdmin.code).toBe(0);
    expect(asAdmin.stdout + asAdmin.stderr).not.toContain(token);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    const file = join(configDir, 'profiles.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const created = await rampart([
      'keys',
      'create',
      '--name',
      'cli',
      '--scope',
      'scans:create',
      '--scope',
      'scans:read',
      '--scope',
      'scans:list',
      '--scope',
      'results:read',
      '--profile',
      'dashboard',
      '--json',
    ]);
    expect(created.code).toBe(0);
    rawKey = (JSON.parse(created.stdout) as { rawKey: string }).rawKey;
    expect(rawKey).not.toBe('');

    const withKey = await rampart(['login', '--url', ctx.app.url, '--key', rawKey]);
    expect(withKey.code).toBe(0);
    expect(withKey.stdout + withKey.stderr).not.toContain(rawKey);
    const stored = JSON.parse(await readFile(file, 'utf8')) as {
      profiles: Record<string, { baseUrl: string; apiKey?: string; token?: string }>;
    };
    expect(stored.profiles.default).toEqual({ baseUrl: ctx.app.url, apiKey: rawKey });
    expect(stored.profiles.dashboard).toEqual({ baseUrl: ctx.app.url, token });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('scan --wait --fail-on high exits 3 on a high finding, with the progress on stderr', async () => {
    const run = await rampart([
      'scan',
      '127.0.0.1',
      '--engine',
      'nmap',
      '--option',
      'ports=443',
      '--wait',
      '--fail-on',
      'high',
    ]);
    expect(run.stderr).toMatch(/ completed 100%/);
    expect(run.stderr).toContain('1 finding(s) at or above high');
    expect(run.code).toBe(3);
    expect(run.stdout + run.stderr).not.toContain(rawKey);
  });

  it('scan --wait --fail-on high exits 0 below it, and --json prints the scan', async () => {
    const run = await rampart([
      'scan',
      '127.0.0.1',
      '--engine',
      'nmap',
      '--option',
      'ports=22',
      '--wait',
      '--fail-on',
      'high',
      '--json',
    ]);
    expect(run.code).toBe(0);
    const { scan } = JSON.parse(run.stdout) as {
      scan: { id: string; status: string; findingsSummary: Record<string, number> };
    };
    expect(scan.status).toBe('completed');
    expect(scan.findingsSummary.low).toBe(1);

    const listed = await rampart(['scans', 'list', '--json']);
    expect(listed.code).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { scans: { id: string }[] }).scans.map((s) => s.id);
    expect(ids).toContain(scan.id);

    const sarifFile = join(configParent, 'results.sarif');
    const sarif = await rampart(['results', scan.id, '--format', 'sarif', '-o', sarifFile]);
    expect(sarif.code).toBe(0);
    const document = JSON.parse(await readFile(sarifFile, 'utf8')) as {
      version: string;
      runs: { results: unknown[] }[];
    };
    expect(document.version).toBe('2.1.0');
    expect(document.runs[0]?.results).toHaveLength(1);

    const results = await rampart(['results', scan.id, '--json']);
    expect(results.code).toBe(0);
    const data = JSON.parse(results.stdout) as { findings: { title: string }[] };
    expect(data.findings.map((finding) => finding.title)).toEqual(['finding on 22']);
  });

  it('prints the contract code and message of an API error and exits 1, never a stack', async () => {
    const missing = await rampart(['scans', 'get', randomUUID()]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('SCAN_NOT_FOUND: Scan not found');
    expect(missing.stdout).toBe('');

    const wrongKey = await rampart(['scans', 'list'], { RAMPART_API_KEY: 'rk_not_a_key' });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^(INVALID_API_KEY|MISSING_API_KEY): /);
    expect(wrongKey.stderr).not.toContain('rk_not_a_key');
    expect(wrongKey.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 on a usage error', async () => {
    const noTarget = await rampart(['scan']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain("missing required argument 'target'");
    const badSeverity = await rampart(['scan', '127.0.0.1', '--fail-on', 'severe']);
    expect(badSeverity.code).toBe(2);
    const unknown = await rampart(['frobnicate']);
    expect(unknown.code).toBe(2);
  });

  it('runs the resource commands with --json through a dashboard profile', async () => {
    for (const [command, field] of [
      [['keys', 'list'], 'apiKeys'],
      [['usage'], 'quota'],
      [['webhooks', 'list'], 'webhooks'],
      [['templates', 'list'], 'templates'],
      [['assets', 'list'], 'assets'],
      [['schedules', 'list'], 'schedules'],
      [['issues', 'list'], 'issues'],
    ] as const) {
      const run = await rampart([...command, '--profile', 'dashboard', '--json']);
      expect({ command, code: run.code, stderr: run.stderr }).toEqual({
        command,
        code: 0,
        stderr: '',
      });
      expect(JSON.parse(run.stdout)).toHaveProperty(field);
    }
  });

  it('creates, reads, changes and deletes each resource', async () => {
    const dash = async (args: readonly string[]) => {
      const run = await rampart([...args, '--profile', 'dashboard', '--json']);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
      return JSON.parse(run.stdout) as Record<string, Record<string, unknown>>;
    };

    const template = (
      await dash([
        'templates',
        'create',
        '--name',
        'weekly',
        '--engine',
        'nmap',
        '--option',
        'ports=22',
        '--option',
        'serviceDetection:=false',
        '--priority',
        'low',
      ])
    ).template;
    expect(template?.options).toMatchObject({ ports: '22', serviceDetection: false });
    const templateId = String(template?.id);
    expect((await dash(['templates', 'get', templateId])).template?.name).toBe('weekly');

    const fromTemplate = await rampart([
      'scan',
      '127.0.0.1',
      '--template',
      templateId,
      '--engine',
      'nmap',
      '--json',
    ]);
    expect(fromTemplate.code).toBe(0);

    const asset = (
      await dash([
        'assets',
        'create',
        '--name',
        'site',
        '--kind',
        'domain',
        '--value',
        'example.com',
      ])
    ).asset;
    const assetId = String(asset?.id);
    expect((await dash(['assets', 'get', assetId])).asset?.value).toBe('example.com');

    const schedule = (
      await dash([
        'schedules',
        'create',
        '--name',
        'nightly',
        '--cron',
        '0 3 * * *',
        '--target',
        '127.0.0.1',
        '--template',
        templateId,
      ])
    ).schedule;
    const scheduleId = String(schedule?.id);
    expect((await dash(['schedules', 'pause', scheduleId])).schedule?.paused).toBe(true);
    expect((await dash(['schedules', 'resume', scheduleId])).schedule?.paused).toBe(false);
    expect((await dash(['schedules', 'get', scheduleId])).schedule?.name).toBe('nightly');
    await dash(['schedules', 'delete', scheduleId]);
    await dash(['templates', 'delete', templateId]);
    await dash(['assets', 'delete', assetId]);

    const webhook = await dash([
      'webhooks',
      'create',
      '--name',
      'ci',
      '--url',
      'https://hooks.example/ci',
      '--event',
      'scan.completed',
    ]);
    const webhookId = String(webhook.webhook?.id);
    expect((await dash(['webhooks', 'delete', webhookId])).deleted).toBe(true);

    const issues = (await dash(['issues', 'list'])).issues as unknown as { id: string }[];
    const issueId = String(issues[0]?.id);
    const triaged = await dash([
      'issues',
      'triage',
      issueId,
      '--as',
      'accepted_risk',
      '--reason',
      'lab host',
    ]);
    expect(triaged.issue?.triage).toBe('accepted_risk');
    expect((await dash(['issues', 'get', issueId])).issue?.id).toBe(issueId);

    const keys = (await dash(['keys', 'list'])).apiKeys as unknown as { id: string }[];
    const keyId = String(keys[0]?.id);
    const rotated = await dash(['keys', 'rotate', keyId, '--grace-hours', '0']);
    expect(typeof rotated.rawKey).toBe('string');
    const newKeyId = String(rotated.apiKey?.id);
    expect((await dash(['keys', 'revoke', newKeyId])).apiKey?.status).toBe('revoked');
  });

  it('prints the package version with --version', async () => {
    const manifest = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    const run = await rampart(['--version']);
    expect(run).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
  });

  it('updates templates, assets and schedules, reads a key and lists the engines', async () => {
    const templateId = String(
      field<{ id: string }>(
        await jsonOf(['templates', 'create', '--name', 'to-change', '--engine', 'nmap']),
        'template',
      ).id,
    );
    const template = field<Record<string, unknown>>(
      await jsonOf([
        'templates',
        'update',
        templateId,
        '--name',
        'changed',
        '--option',
        'ports=80',
        '--priority',
        'high',
      ]),
      'template',
    );
    expect(template).toMatchObject({ name: 'changed', priority: 'high' });
    expect(template.options).toMatchObject({ ports: '80' });
    const renamed = await textOf(['templates', 'update', templateId, '--description', 'weekly']);
    expect(renamed).toContain('name: changed');
    expect(renamed).toContain('description: weekly');

    const assetId = String(
      field<{ id: string }>(
        await jsonOf([
          'assets',
          'create',
          '--name',
          'lab',
          '--kind',
          'ip',
          '--value',
          '192.0.2.7',
          '--tag',
          'old',
        ]),
        'asset',
      ).id,
    );
    const asset = field<Record<string, unknown>>(
      await jsonOf(['assets', 'update', assetId, '--name', 'lab-1', '--tag', 'a', '--tag', 'b']),
      'asset',
    );
    expect(asset).toMatchObject({ name: 'lab-1', value: '192.0.2.7', tags: ['a', 'b'] });
    const byTag = await textOf(['assets', 'list', '--tag', 'b']);
    expect(byTag).toMatch(
      new RegExp(`^${assetId}\\s+lab-1\\s+ip\\s+192\\.0\\.2\\.7\\s+unverified\\s+a,b$`, 'm'),
    );

    const scheduleId = String(
      field<{ id: string }>(
        await jsonOf([
          'schedules',
          'create',
          '--name',
          'hourly',
          '--interval',
          '3600',
          '--target',
          '127.0.0.1',
          '--engine',
          'nmap',
          '--paused',
        ]),
        'schedule',
      ).id,
    );
    const schedule = field<Record<string, unknown>>(
      await jsonOf([
        'schedules',
        'update',
        scheduleId,
        '--cron',
        '0 4 * * *',
        '--time-zone',
        'Europe/Paris',
        '--missed-runs',
        'run_once',
      ]),
      'schedule',
    );
    expect(schedule).toMatchObject({
      cron: '0 4 * * *',
      timeZone: 'Europe/Paris',
      missedRunPolicy: 'run_once',
      paused: true,
    });
    expect(await textOf(['schedules', 'update', scheduleId, '--name', 'daily'])).toContain(
      'name: daily',
    );
    const listed = await textOf(['schedules', 'list', '--limit', '1']);
    expect(listed).toMatch(/^page 1\/\d+, \d+ schedules$/m);
    await jsonOf(['schedules', 'delete', scheduleId]);
    await jsonOf(['templates', 'delete', templateId]);

    const keys = field<{ id: string }[]>(await jsonOf(['keys', 'list']), 'apiKeys');
    const keyId = String(keys[0]?.id);
    expect(field<{ id: string }>(await jsonOf(['keys', 'get', keyId]), 'apiKey').id).toBe(keyId);

    const engines = field<{ name: string }[]>(await jsonOf(['engines']), 'engines');
    expect(engines.map((engine) => engine.name)).toContain('nmap');
    expect(await textOf(['engines'])).toMatch(/^nmap\s+true\s/m);
  }, 300_000);

  it('changes a webhook, reads its deliveries, redelivers one and recovers failed ones', async () => {
    const hooks = await startHttpsReceiver();
    receiver = hooks;
    const since = new Date().toISOString();
    const created = field<{ id: string }>(
      await jsonOf([
        'webhooks',
        'create',
        '--name',
        'log',
        '--url',
        hooks.url,
        '--event',
        'scan.completed',
        '--min-severity',
        'high',
      ]),
      'webhook',
    );
    const webhookId = created.id;
    expect(field(await jsonOf(['webhooks', 'get', webhookId]), 'webhook')).toMatchObject({
      isActive: true,
      filters: { minSeverity: 'high', onlyNew: true },
    });
    expect(await textOf(['webhooks', 'get', webhookId])).toContain('name: log');

    const changed = await jsonOf([
      'webhooks',
      'update',
      webhookId,
      '--name',
      'delivery-log',
      '--min-severity',
      'low',
      '--no-only-new',
      '--no-active',
    ]);
    expect(field(changed, 'webhook')).toMatchObject({
      name: 'delivery-log',
      isActive: false,
      filters: { minSeverity: 'low', onlyNew: false },
    });
    const enabled = await textOf(['webhooks', 'update', webhookId, '--active', '--no-filters']);
    expect(enabled).toContain('isActive: true');
    expect(enabled).toContain('filters: -');
    expect(await textOf(['webhooks', 'list'])).toMatch(
      new RegExp(`^${webhookId}\\s+delivery-log\\s+\\S+\\s+scan\\.completed\\s+true\\s`, 'm'),
    );

    // A completed scan of 127.0.0.1 port 22: one scan.completed delivery. (The default profile's
    // key was rotated without a grace period above: the dashboard token starts the scans.)
    const scan = async () => {
      const run = await rampart([
        'scan',
        '127.0.0.1',
        '--engine',
        'nmap',
        '--option',
        'ports=22',
        '--wait',
        '--json',
        '--profile',
        'dashboard',
      ]);
      expect(run.code, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { scan: { id: string } }).scan.id;
    };
    const firstScan = await scan();
    await hooks.waitForRequests(1, 15_000);
    await ctx.app.composed.dispatcher.drain();
    const log = field<{ id: string; event: string; success: boolean }[]>(
      await jsonOf(['webhooks', 'deliveries', webhookId]),
      'deliveries',
    );
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ event: 'scan.completed', success: true, attempt: 1 });
    const deliveryId = String(log[0]?.id);
    const shown = await textOf(['webhooks', 'deliveries', webhookId, '--limit', '5']);
    expect(shown).toMatch(
      new RegExp(`^${deliveryId}\\s+scan\\.completed\\s+1\\s+true\\s+200\\s`, 'm'),
    );
    expect(shown).toMatch(/^page 1\/1, 1 attempts$/m);

    const redelivered = field<Record<string, unknown>>(
      await jsonOf(['webhooks', 'redeliver', webhookId, deliveryId]),
      'delivery',
    );
    expect(redelivered).toMatchObject({ status: 'pending', redeliveryOf: deliveryId });
    await hooks.waitForRequests(2, 15_000);
    expect(String(hooks.requests[1]?.headers['x-webhook-delivery'])).toBe(redelivered.id);
    await ctx.app.composed.dispatcher.drain();

    const unknown = await rampart([
      'webhooks',
      'redeliver',
      webhookId,
      `del-${randomUUID()}`,
      '--profile',
      'dashboard',
    ]);
    expect(unknown).toEqual({
      code: 1,
      stdout: '',
      stderr: 'DELIVERY_NOT_FOUND: Webhook delivery not found\n',
    });

    // A receiver that fails: the delivery uses up its attempts, then recover sends it again.
    hooks.setStatus(500);
    const secondScan = await scan();
    await hooks.waitForRequests(6, 15_000);
    await ctx.app.composed.dispatcher.drain();
    hooks.setStatus(200);
    const recovered = await textOf(['webhooks', 'recover', webhookId, '--since', since]);
    expect(recovered).toMatch(/^del-\S+\s+scan\.completed\s+pending\s+del-\S+$/m);
    expect(recovered).toContain('1 deliveries queued');
    await hooks.waitForRequests(7, 15_000);
    await ctx.app.composed.dispatcher.drain();
    expect(await jsonOf(['webhooks', 'recover', webhookId, '--since', since])).toEqual({
      recovered: 0,
      hasMore: false,
      deliveries: [],
    });
    // The log's filters: the second scan's four failed attempts; the first delivery's one.
    const failedOnes = field<{ success: boolean; attempt: number }[]>(
      await jsonOf(['webhooks', 'deliveries', webhookId, '--failed', '--event', 'scan.completed']),
      'deliveries',
    );
    expect(failedOnes.map(({ success, attempt }) => ({ success, attempt }))).toEqual(
      [4, 3, 2, 1].map((attempt) => ({ success: false, attempt })),
    );
    expect(
      field<{ id: string }[]>(
        await jsonOf(['webhooks', 'deliveries', webhookId, '--delivery', deliveryId]),
        'deliveries',
      ).map((attempt) => attempt.id),
    ).toEqual([deliveryId]);
    const both = await rampart([
      'webhooks',
      'deliveries',
      webhookId,
      '--failed',
      '--succeeded',
      '--profile',
      'dashboard',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("option '--failed' cannot be used with option '--succeeded'");
    const badSince = await rampart(['webhooks', 'recover', webhookId, '--profile', 'dashboard']);
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain("required option '--since <time>' not specified");

    // The two scans of one target and engine: the second against the first.
    const diff = await jsonOf(['scans', 'diff', secondScan, '--base', firstScan]);
    expect(diff).toMatchObject({ scanId: secondScan, baseScanId: firstScan, new: [], fixed: [] });
    expect(field<{ title: string }[]>(diff, 'unchanged').map((issue) => issue.title)).toEqual([
      'finding on 22',
    ]);
    const diffText = await textOf(['scans', 'diff', secondScan]);
    expect(diffText).toMatch(new RegExp(`^scan ${secondScan} against [0-9a-f-]{36}$`, 'm'));
    expect(diffText).toMatch(/^unchanged: 1\n\s+ID\s+SEVERITY\s+TITLE\n.*finding on 22$/m);

    const findings = await jsonOf(['scans', 'findings', secondScan, '--severity', 'low']);
    expect(field<{ title: string }[]>(findings, 'findings').map((item) => item.title)).toEqual([
      'finding on 22',
    ]);
    expect(await textOf(['scans', 'findings', secondScan, '--severity', 'high'])).toMatch(
      /^\(none\)\npage 1\/\d+, 0 findings\n$/,
    );
    await jsonOf(['webhooks', 'delete', webhookId]);
  }, 300_000);

  it('filters issues and triages every issue a filter matches', async () => {
    const low = field<{ severity: string; target: string }[]>(
      await jsonOf(['issues', 'list', '--severity', 'low', '--target', '127.0.0.1']),
      'issues',
    );
    expect(low.length).toBeGreaterThan(0);
    expect(low.every((issue) => issue.severity === 'low' && issue.target === '127.0.0.1')).toBe(
      true,
    );
    const none = await jsonOf(['issues', 'list', '--target', '198.51.100.99']);
    expect(field(none, 'issues')).toEqual([]);

    const triaged = await textOf([
      'issues',
      'triage-all',
      '--as',
      'out_of_scope',
      '--severity',
      'low',
      '--target',
      '127.0.0.1',
    ]);
    expect(triaged).toMatch(/^[1-9]\d* issues triaged out_of_scope\n$/);
    const inEffect = field<{ triage: string }[]>(
      await jsonOf(['issues', 'list', '--triage', 'out_of_scope', '--severity', 'low']),
      'issues',
    );
    expect(inEffect.map((issue) => issue.triage)).toEqual(low.map(() => 'out_of_scope'));
    // Already in effect: nothing changes.
    expect(
      await jsonOf([
        'issues',
        'triage-all',
        '--as',
        'out_of_scope',
        '--severity',
        'low',
        '--target',
        '127.0.0.1',
      ]),
    ).toEqual({ updated: 0 });
    // By id: only the issue named.
    const outOfScope = async () =>
      field<{ id: string }[]>(
        await jsonOf(['issues', 'list', '--triage', 'out_of_scope', '--limit', '100']),
        'issues',
      ).map((issue) => issue.id);
    const [first, ...rest] = await outOfScope();
    expect(await jsonOf(['issues', 'triage-all', '--as', 'none', '--id', String(first)])).toEqual({
      updated: 1,
    });
    expect(
      field<{ triage: string }>(await jsonOf(['issues', 'get', String(first)]), 'issue').triage,
    ).toBe('none');
    expect(await outOfScope()).toEqual(rest);

    const badSeverity = await rampart(['issues', 'list', '--severity', 'severe']);
    expect(badSeverity.code).toBe(2);
    expect(badSeverity.stderr).toContain('Allowed choices are critical, high, medium, low, info');
    const badPage = await rampart(['issues', 'list', '--page', 'two']);
    expect(badPage.code).toBe(2);
    expect(badPage.stderr).toContain("argument 'two' is invalid. Not a whole number.");
  }, 300_000);

  it('runs the admin commands with an admin token, and says ADMIN_REQUIRED without one', async () => {
    const admin = await tokenFor(randomUUID(), { admin: true });
    const login = await rampart([
      'login',
      '--url',
      ctx.app.url,
      '--token',
      admin,
      '--profile',
      'admin',
    ]);
    expect(login.code).toBe(0);

    const refused = await rampart([
      'admin',
      'tenants',
      'quota',
      tenantId,
      '10',
      '--profile',
      'dashboard',
    ]);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ADMIN_REQUIRED: This operation requires an administrator token\n',
    });
    const notWhole = await rampart([
      'admin',
      'tenants',
      'quota',
      tenantId,
      'lots',
      '--profile',
      'admin',
    ]);
    expect(notWhole.code).toBe(2);
    expect(notWhole.stderr).toContain("value 'lots' is invalid for argument 'scans'");

    const quota = await jsonOf(['admin', 'tenants', 'quota', tenantId, '500'], 'admin');
    expect(quota).toEqual({
      tenant: { id: tenantId, status: 'active', monthlyScanQuota: 500, maxRunningScans: null },
    });
    expect(
      await textOf(['admin', 'tenants', 'max-running-scans', tenantId, '3'], 'admin'),
    ).toContain('maxRunningScans: 3');
    expect(
      await jsonOf(['admin', 'tenants', 'max-running-scans', tenantId, 'default'], 'admin'),
    ).toMatchObject({ tenant: { maxRunningScans: null } });
    const missing = await rampart([
      'admin',
      'tenants',
      'suspend',
      randomUUID(),
      '--profile',
      'admin',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('TENANT_NOT_FOUND: Tenant not found\n');

    // A key of the tenant, suspended and reinstated.
    const keyId = String(
      field<{ id: string }>(await jsonOf(['keys', 'create', '--name', 'to-suspend']), 'apiKey').id,
    );
    const notAdmin = await rampart(['keys', 'suspend', keyId, '--profile', 'dashboard']);
    expect(notAdmin.code).toBe(1);
    expect(notAdmin.stderr).toBe(
      'ADMIN_REQUIRED: This operation requires an administrator token\n',
    );
    expect(await textOf(['keys', 'suspend', keyId], 'admin')).toBe(`key ${keyId} suspended\n`);
    expect(await jsonOf(['keys', 'reinstate', keyId], 'admin')).toMatchObject({
      apiKey: { id: keyId, status: 'active' },
    });

    // An asset verified and unverified by hand.
    const assetId = String(
      field<{ id: string }>(
        await jsonOf([
          'assets',
          'create',
          '--name',
          'net',
          '--kind',
          'network',
          '--value',
          '192.0.2.0/24',
        ]),
        'asset',
      ).id,
    );
    const verified = await jsonOf(['admin', 'assets', 'verify', assetId], 'admin');
    expect(verified).toMatchObject({
      asset: { id: assetId, verification: { status: 'verified', method: 'admin' } },
    });
    const unverified = await textOf(['admin', 'assets', 'unverify', assetId], 'admin');
    expect(unverified).toContain(`id: ${assetId}`);
    expect(
      field<{ verification: { status: string } }>(await jsonOf(['assets', 'get', assetId]), 'asset')
        .verification.status,
    ).toBe('unverified');

    // The tenant suspended: its token is refused until it is reinstated.
    expect(await textOf(['admin', 'tenants', 'suspend', tenantId], 'admin')).toContain(
      'status: suspended',
    );
    const whileSuspended = await rampart(['usage', '--profile', 'dashboard']);
    expect(whileSuspended.code).toBe(1);
    expect(whileSuspended.stderr).toMatch(/^TENANT_SUSPENDED: /);
    expect(await jsonOf(['admin', 'tenants', 'reinstate', tenantId], 'admin')).toMatchObject({
      tenant: { id: tenantId, status: 'active' },
    });
    await jsonOf(['usage']);
    const perDay = await textOf(['usage', '--days', '2']);
    expect(perDay).toMatch(
      /^DATE\s+TOTAL\s+COMPLETED\s+FAILED\s+CANCELLED\s+RUNNING\s+QUEUED\n\d{4}-\d\d-\d\d(\s+\d+){6}\n\d{4}-\d\d-\d\d(\s+\d+){6}\n$/,
    );
    const tooMany = await rampart(['usage', '--days', '400', '--profile', 'dashboard']);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(/^INVALID_FIELD_VALUE: /);
  }, 300_000);

  it("prints fetch's message when the service cannot be reached", async () => {
    // A port nothing listens on: taken from the system, then let go.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const run = await rampart(['scans', 'list'], { RAMPART_URL: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^fetch failed: .*ECONNREFUSED/);
  });
});
