/**
 * A scan's `config` (issue 21, engines/web-config.ts) over real HTTP: validated against the
 * engine's closed schema like `options` (INVALID_FIELD_VALUE naming the field); header values,
 * cookie values and `auth` credentials shown as `********` by scans and templates, kept when
 * `********` is sent back, stored sealed, opened only for the scanner, never in a log line nor
 * a webhook body; a sentinel scan hands its config to the children whose engine takes one. The engines are
 * instant test engines (test/doubles/engines.ts) that record what the worker hands them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, secretsKeyId } from '../../src/adapters/secrets/secret-box.js';
import { instantEngine } from '../doubles/engines.js';
import { createKey, startApp, tokenFor, useTestApp } from '../support/harness.js';
import { waitForStatus } from '../support/scans.js';
import { TEST_SECRETS_KEY } from '../support/secrets.js';

const sqlmap = instantEngine();
const wapiti = instantEngine();
const resolver = {
  async check() {
    return { ok: true as const, addresses: ['203.0.113.80'] };
  },
};
const ctx = useTestApp(
  { WORKERS: '1', WORKER_CONCURRENCY: '4' },
  {
    engineRunners: new Map([
      ['sqlmap', sqlmap],
      ['wapiti', wapiti],
    ]),
    resolver,
  },
);
const tenant = randomUUID();
let key = '';

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(tenant), { rateLimitPerMinute: 1000 })).rawKey;
});

const TARGET = 'https://app.example/search?q=1';
const SESSION = `s${randomUUID().replaceAll('-', '')}`;
const API_KEY = `k-${randomUUID()}`;
const PASSWORD = `pw-${randomUUID()}`;
const config = (session = SESSION, password = PASSWORD) => ({
  cookies: { session },
  headers: { 'X-Api-Key': API_KEY },
  auth: { type: 'basic', username: 'alice', password },
  exclude: ['/reset*'],
  userAgent: 'Rampart test',
});
const MASKED = {
  cookies: { session: '********' },
  headers: { 'X-Api-Key': '********' },
  auth: { type: 'basic', username: 'alice', password: '********' },
  exclude: ['/reset*'],
  userAgent: 'Rampart test',
};

const call = (method: string, path: string, json?: unknown) =>
  ctx.app.request(path, {
    method,
    headers: { 'x-api-key': key },
    ...(json === undefined ? {} : { json }),
  });

async function storedConfig(table: 'scans' | 'scan_templates', id: string): Promise<string> {
  const rows = await sql<{ config: string }>`
    select config::text as config from ${sql.table(table)} where id = ${id}`.execute(
    ctx.database.handle.db,
  );
  return rows.rows[0]?.config ?? '';
}

const SEALED_BY_TEST_KEY = `"rmpsec:v1:${secretsKeyId(Buffer.from(TEST_SECRETS_KEY, 'base64'))}:`;

/** Runs a scan to its end; answers it and the config the scanner was handed. */
async function configTheScannerGot(body: Record<string, unknown>) {
  const response = await call('POST', '/api/v1/scans', { target: TARGET, ...body });
  expect(response.status, response.text).toBe(201);
  const id = response.body.data.id as string;
  const scan = await waitForStatus(ctx.app, key, id, ['completed', 'failed']);
  expect(scan.status, JSON.stringify(scan.error)).toBe('completed');
  const run = [...sqlmap.runs, ...wapiti.runs].find((candidate) => candidate.scan.id === id);
  expect(run, `the engine ran ${id}`).toBeDefined();
  return { id, scan, config: run?.config ?? {} };
}

describe('scan config', () => {
  it('is stored sealed, shown masked, and opened for the scanner only', async () => {
    const {
      id,
      scan,
      config: handed,
    } = await configTheScannerGot({
      scanType: 'sqlmap',
      config: config(),
    });
    expect(handed).toEqual(config());
    expect(scan.config).toEqual(MASKED);
    const stored = await storedConfig('scans', id);
    for (const secret of [SESSION, API_KEY, PASSWORD]) {
      expect(stored).not.toContain(secret);
    }
    expect(stored).toContain(SEALED_BY_TEST_KEY);
    expect(stored).toContain('Rampart test');
    const listed = await call('GET', '/api/v1/scans?scanType=all&limit=100');
    expect(listed.text).not.toContain(SESSION);
    // The webhook bodies of the scan's events (the outbox rows every delivery sends as they are,
    // written in the statements that moved the scan): its start and its end, no credential.
    const events = await sql<{ event: string; payload: string }>`
      select event, payload::text as payload from scan_events where scan_id = ${id}
      order by seq`.execute(ctx.database.handle.db);
    expect(events.rows.map((row) => row.event)).toEqual(['scan.started', 'scan.completed']);
    for (const row of events.rows) {
      for (const secret of [SESSION, API_KEY, PASSWORD]) {
        expect(row.payload).not.toContain(secret);
      }
    }
  });

  it.each([
    [{ cookies: { session: 'a;b' } }, 'config.cookies.session'],
    [{ headers: { 'X-Evil': 'a\r\nHost: other' } }, 'config.headers.X-Evil'],
    [{ headers: { 'Bad Name': 'x' } }, 'config.headers'],
    [{ headers: { Host: 'other.example' } }, 'config.headers.Host'],
    [{ auth: { type: 'basic', username: 'alice' } }, 'config.auth.password'],
    [{ auth: { type: 'bearer', token: 't', username: 'x' } }, 'config.auth.username'],
    [{ exclude: ['reset'] }, 'config.exclude'],
    [{ userAgent: 'a\nb' }, 'config.userAgent'],
    [{ proxy: 'http://x' }, 'config'],
  ])('refuses %j with INVALID_FIELD_VALUE naming %s', async (bad, field) => {
    const response = await call('POST', '/api/v1/scans', {
      target: TARGET,
      scanType: 'wapiti',
      config: bad,
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe('INVALID_FIELD_VALUE');
    expect(response.body.error).toContain(field);
  });

  it('a refused credential is not repeated in the answer', async () => {
    const refused = `bad value ${randomUUID()}`;
    const response = await call('POST', '/api/v1/scans', {
      target: TARGET,
      scanType: 'sqlmap',
      config: { cookies: { session: refused }, auth: { type: 'bearer', token: refused } },
    });
    expect(response.status).toBe(400);
    expect(response.text).not.toContain(refused);
    expect(ctx.app.logs.join('')).not.toContain(refused);
  });

  it('stays as given for an engine without a config schema', async () => {
    const response = await call('POST', '/api/v1/scans', {
      target: 'https://app.example/',
      scanType: 'wapiti',
      config: {},
    });
    expect(response.status, response.text).toBe(201);
  });

  it('in a template: masked, kept when ******** comes back, replaced by a new value', async () => {
    const created = await call('POST', '/api/v1/templates', {
      name: `web-${randomUUID()}`,
      scanType: 'wapiti',
      config: config(),
    });
    expect(created.status, created.text).toBe(201);
    const template = created.body.data.template;
    expect(template.config).toEqual(MASKED);
    expect(await storedConfig('scan_templates', template.id)).not.toContain(SESSION);
    // Sent back as shown, with one change: the credentials are kept.
    const patched = await call('PATCH', `/api/v1/templates/${template.id}`, {
      config: { ...template.config, userAgent: 'Rampart 2' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect((await configTheScannerGot({ templateId: template.id })).config).toEqual({
      ...config(),
      userAgent: 'Rampart 2',
    });
    const replaced = await call('PATCH', `/api/v1/templates/${template.id}`, {
      config: config('new-session', PASSWORD),
    });
    expect(replaced.body.data.template.config.cookies.session).toBe('********');
    expect((await configTheScannerGot({ templateId: template.id })).config).toMatchObject({
      cookies: { session: 'new-session' },
    });
    const missing = await call('POST', '/api/v1/scans', {
      target: TARGET,
      scanType: 'sqlmap',
      config: { cookies: { session: '********' } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('config.cookies.session');
  });

  it('clear text stored before is sealed at start, and resealed under a rotated key', async () => {
    const { id } = await configTheScannerGot({ scanType: 'wapiti', config: config() });
    const clear = JSON.stringify(config('clear-session'));
    await sql`update scans set config = ${clear}::jsonb where id = ${id}`.execute(
      ctx.database.handle.db,
    );
    const restarted = await startApp(ctx.database.handle, { SECRETS_KEY: TEST_SECRETS_KEY });
    await restarted.close();
    const sealed = await storedConfig('scans', id);
    expect(sealed).not.toContain('clear-session');
    expect(sealed).toContain(SEALED_BY_TEST_KEY);
    const newKey = randomBytes(32);
    const rotated = await startApp(ctx.database.handle, {
      SECRETS_KEY: newKey.toString('base64'),
      SECRETS_KEY_PREVIOUS: TEST_SECRETS_KEY,
    });
    await rotated.close();
    const row = JSON.parse(await storedConfig('scans', id)) as { cookies: { session: string } };
    expect(createSecretBox(newKey).open(row.cookies.session, tenant)).toBe('clear-session');
  });

  it('a sentinel scan hands its config to each child, opened for the scanner only', async () => {
    const response = await call('POST', '/api/v1/scans', {
      target: TARGET,
      scanType: 'sentinel',
      options: { engines: ['sqlmap', 'wapiti'] },
      config: config(),
    });
    expect(response.status, response.text).toBe(201);
    const id = response.body.data.id as string;
    const scan = await waitForStatus(ctx.app, key, id, ['completed', 'failed']);
    expect(scan.status, JSON.stringify(scan.error)).toBe('completed');
    expect(scan.config).toEqual(MASKED);
    const runs = [...sqlmap.runs, ...wapiti.runs].filter((run) => run.scan.parentScanId === id);
    expect(runs.map((run) => run.scan.scanType).sort()).toEqual(['sqlmap', 'wapiti']);
    for (const run of runs) {
      expect(run.config, run.scan.scanType).toEqual(config());
    }
    const children = await call('GET', `/api/v1/scans?parentScanId=${id}`);
    expect(children.status, children.text).toBe(200);
    expect(children.body.data.scans).toHaveLength(2);
    for (const secret of [SESSION, API_KEY, PASSWORD]) {
      expect(children.text).not.toContain(secret);
      expect(await storedConfig('scans', runs[0]?.scan.id ?? '')).not.toContain(secret);
    }
  });

  it('never reaches a log line', () => {
    const logs = ctx.app.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [SESSION, API_KEY, PASSWORD, 'new-session']) {
      expect(logs).not.toContain(secret);
    }
  });
});
