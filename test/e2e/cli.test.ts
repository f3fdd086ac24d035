/**
 * The `rampart` CLI as a real process (node --import tsx src/cli/main.ts) against an app listening
 * over real HTTP, with a temporary config directory. The app and its workers run in this process
 * with a test double engine: an nmap scan of port 443 finds a high finding, of port 22 a low one.
 * The CLI talks HTTP only.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftFinding, instantEngine } from '../doubles/engines.js';
import { tokenFor, useTestApp } from '../support/harness.js';

const CLI = new URL('../../src/cli/main.ts', import.meta.url).pathname;

const ctx = useTestApp(
  {
    ALLOW_PRIVATE_TARGETS: 'true',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    WEBHOOK_TIMEOUT_MS: '1000',
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

/** Runs the CLI to its end; never throws on a non-zero exit. */
function rampart(args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', CLI, ...args],
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
  await rm(configParent, { recursive: true, force: true });
});

describe('the rampart CLI', () => {
  let rawKey = '';

  it('logs in with a token and with a key: a 0600 file in a 0700 dir, the secret never printed', async () => {
    const token = await tokenFor(randomUUID());
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
