/**
 * Credentials in engine options (ZAP's), over real HTTP: shown as `********` by templates as by
 * scans; a PATCH that sends `********` back keeps the stored value, a new value replaces it;
 * stored sealed (AES-256-GCM with SECRETS_KEY) in scans and templates, opened only by the worker
 * for the scanner; clear text stored before, and values sealed with a previous key, resealed at
 * start; the key generated into DATA_DIR when SECRETS_KEY is unset; never in a log line.
 * The ZAP process is the instant test engine (test/doubles/engines.ts), which records the options
 * the worker hands it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, secretsKeyId } from '../../src/adapters/secrets/secret-box.js';
import { instantEngine } from '../doubles/engines.js';
import { createKey, startApp, type TestApp, tokenFor, useTestApp } from '../support/harness.js';
import { waitForStatus } from '../support/scans.js';
import { TEST_SECRETS_KEY, testSecretBox } from '../support/secrets.js';

const zap = instantEngine();
const resolver = {
  async check() {
    return { ok: true as const, addresses: ['203.0.113.80'] };
  },
};
const ctx = useTestApp(
  { WORKERS: '1', WORKER_CONCURRENCY: '4' },
  { engineRunners: new Map([['zap', zap]]), resolver },
);
const tenant = randomUUID();
let key = '';

beforeAll(async () => {
  key = (await createKey(ctx.app, await tokenFor(tenant), { rateLimitPerMinute: 1000 })).rawKey;
});

const TARGET = 'https://app.example/';
const PASSWORD = `pw-${randomUUID()}`;
const TOKEN = `Bearer tok-${randomUUID()}`;
const formAuth = (password: string) => ({
  type: 'form',
  loginUrl: 'https://app.example/login',
  usernameField: 'user',
  passwordField: 'pass',
  username: 'alice',
  password,
});

const call = (method: string, path: string, json?: unknown, app: TestApp = ctx.app) =>
  app.request(path, {
    method,
    headers: { 'x-api-key': key },
    ...(json === undefined ? {} : { json }),
  });

async function createTemplate(options: Record<string, unknown>) {
  const response = await call('POST', '/api/v1/templates', {
    name: `zap-${randomUUID()}`,
    scanType: 'zap',
    options,
  });
  expect(response.status, response.text).toBe(201);
  return response.body.data.template as { id: string; options: Record<string, unknown> };
}

/** Runs a scan to its end and answers the options the scanner was handed. */
async function optionsTheScannerGot(body: Record<string, unknown>, app: TestApp = ctx.app) {
  const response = await call('POST', '/api/v1/scans', { target: TARGET, ...body }, app);
  expect(response.status, response.text).toBe(201);
  const id = response.body.data.id as string;
  const scan = await waitForStatus(app, key, id, ['completed', 'failed']);
  expect(scan.status, JSON.stringify(scan.error)).toBe('completed');
  const run = zap.runs.find((candidate) => candidate.scan.id === id);
  expect(run, `the engine ran ${id}`).toBeDefined();
  return { id, scan, options: run?.options ?? {} };
}

async function storedOptions(table: 'scans' | 'scan_templates', id: string): Promise<string> {
  const rows = await sql<{ options: string }>`
    select options::text as options from ${sql.table(table)} where id = ${id}`.execute(
    ctx.database.handle.db,
  );
  return rows.rows[0]?.options ?? '';
}

const SEALED_BY_TEST_KEY = `"rmpsec:v1:${secretsKeyId(Buffer.from(TEST_SECRETS_KEY, 'base64'))}:`;

describe('template options', () => {
  it('show credentials as ******** on create, get and list, and store them sealed', async () => {
    const created = await createTemplate({
      authentication: { type: 'header', headerName: 'X-Api-Token', headerValue: TOKEN },
    });
    expect(created.options).toEqual({
      authentication: { type: 'header', headerName: 'X-Api-Token', headerValue: '********' },
    });
    const got = await call('GET', `/api/v1/templates/${created.id}`);
    expect(got.body.data.template.options.authentication.headerValue).toBe('********');
    const listed = await call('GET', '/api/v1/templates?limit=100');
    expect(listed.text).not.toContain(TOKEN);
    expect(listed.text).toContain('********');
    const stored = await storedOptions('scan_templates', created.id);
    expect(stored).not.toContain(TOKEN);
    expect(stored).toContain(SEALED_BY_TEST_KEY);
  });

  it('keep the stored credential when a PATCH sends ******** back, and replace it with a new value', async () => {
    const created = await createTemplate({ authentication: formAuth(PASSWORD) });
    // The options as GET shows them, sent back with one change.
    const shown = (await call('GET', `/api/v1/templates/${created.id}`)).body.data.template;
    const kept = await call('PATCH', `/api/v1/templates/${created.id}`, {
      options: { ...shown.options, scanPolicy: 'light' },
    });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.template.options).toMatchObject({
      scanPolicy: 'light',
      authentication: { password: '********' },
    });
    expect((await optionsTheScannerGot({ templateId: created.id })).options).toMatchObject({
      scanPolicy: 'light',
      authentication: { password: PASSWORD },
    });
    // A PATCH without options keeps them too.
    expect(
      (await call('PATCH', `/api/v1/templates/${created.id}`, { description: 'renamed' })).status,
    ).toBe(200);
    expect((await optionsTheScannerGot({ templateId: created.id })).options).toMatchObject({
      authentication: { password: PASSWORD },
    });
    const replaced = await call('PATCH', `/api/v1/templates/${created.id}`, {
      options: { authentication: formAuth('new-password') },
    });
    expect(replaced.body.data.template.options.authentication.password).toBe('********');
    expect((await optionsTheScannerGot({ templateId: created.id })).options).toMatchObject({
      authentication: { password: 'new-password' },
    });
    expect(await storedOptions('scan_templates', created.id)).not.toContain('new-password');
  });

  it('refuse ******** where nothing is stored with INVALID_FIELD_VALUE', async () => {
    const created = await createTemplate({ scanPolicy: 'light' });
    const response = await call('PATCH', `/api/v1/templates/${created.id}`, {
      options: { authentication: formAuth('********') },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      code: 'INVALID_FIELD_VALUE',
      error:
        'Invalid value for field options.authentication.password: ******** stands for the stored value, and none is stored',
    });
    const fresh = await call('POST', '/api/v1/templates', {
      name: `zap-${randomUUID()}`,
      scanType: 'zap',
      options: { authentication: formAuth('********') },
    });
    expect(fresh.body.code).toBe('INVALID_FIELD_VALUE');
  });
});

describe('scan options', () => {
  it('are stored sealed, shown masked, and opened for the scanner only', async () => {
    const { id, scan, options } = await optionsTheScannerGot({
      scanType: 'zap',
      options: { authentication: formAuth(PASSWORD) },
    });
    expect(options).toMatchObject({ authentication: { password: PASSWORD } });
    expect(scan.options.authentication.password).toBe('********');
    const stored = await storedOptions('scans', id);
    expect(stored).not.toContain(PASSWORD);
    expect(stored).toContain(SEALED_BY_TEST_KEY);
  });

  it('from a template: ******** in the request keeps the template’s credential', async () => {
    const template = await createTemplate({ authentication: formAuth(PASSWORD) });
    const { id, options } = await optionsTheScannerGot({
      templateId: template.id,
      options: { authentication: formAuth('********'), scanPolicy: 'light' },
    });
    expect(options).toMatchObject({
      scanPolicy: 'light',
      authentication: { password: PASSWORD },
    });
    expect(await storedOptions('scans', id)).not.toContain(PASSWORD);
    const direct = await call('POST', '/api/v1/scans', {
      target: TARGET,
      scanType: 'zap',
      options: { authentication: formAuth('********') },
    });
    expect(direct.status).toBe(400);
    expect(direct.body.code).toBe('INVALID_FIELD_VALUE');
  });

  it('never reach a log line', () => {
    const logs = ctx.app.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [PASSWORD, TOKEN, 'new-password']) {
      expect(logs).not.toContain(secret);
    }
  });
});

describe('at start-up', () => {
  it('seals clear text stored before, and reseals under a rotated key', async () => {
    const template = await createTemplate({ authentication: formAuth(PASSWORD) });
    const { id: scanId } = await optionsTheScannerGot({ templateId: template.id });
    // As rows written before encryption existed.
    const clear = JSON.stringify({ authentication: formAuth('clear-text-pw') });
    for (const table of ['scans', 'scan_templates'] as const) {
      await sql`update ${sql.table(table)} set options = ${clear}::jsonb
        where id = ${table === 'scans' ? scanId : template.id}`.execute(ctx.database.handle.db);
    }
    const restarted = await startApp(ctx.database.handle, { SECRETS_KEY: TEST_SECRETS_KEY });
    try {
      for (const [table, id] of [
        ['scans', scanId],
        ['scan_templates', template.id],
      ] as const) {
        const stored = await storedOptions(table, id);
        expect(stored).not.toContain('clear-text-pw');
        expect(stored).toContain(SEALED_BY_TEST_KEY);
      }
      expect(restarted.logs.join('')).toContain('stored credentials sealed with SECRETS_KEY');
    } finally {
      await restarted.close();
    }

    // Rotation: the new key as SECRETS_KEY, the old one as SECRETS_KEY_PREVIOUS.
    const newKey = randomBytes(32);
    const rotated = await startApp(ctx.database.handle, {
      SECRETS_KEY: newKey.toString('base64'),
      SECRETS_KEY_PREVIOUS: TEST_SECRETS_KEY,
    });
    await rotated.close();
    const stored = await storedOptions('scan_templates', template.id);
    expect(stored).toContain(`"rmpsec:v1:${secretsKeyId(newKey)}:`);
    expect(stored).not.toContain(SEALED_BY_TEST_KEY);
    const row = JSON.parse(stored) as { authentication: { password: string } };
    expect(
      createSecretBox(newKey).open(row.authentication.password, tenant),
      'the new key alone opens it',
    ).toBe('clear-text-pw');
    expect(() => testSecretBox().open(row.authentication.password, tenant)).toThrow(
      `sealed with key ${secretsKeyId(newKey)}`,
    );
  });
});

describe('SECRETS_KEY unset', () => {
  let dataDir = '';
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'rampart-secrets-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('generates the key into DATA_DIR/secrets-key (0600) once and reads it back', async () => {
    const first = await startApp(ctx.database.handle, { SECRETS_KEY: '', DATA_DIR: dataDir });
    const sealed = first.composed.deps.secrets.seal('generated', tenant);
    await first.close();
    expect((await stat(join(dataDir, 'secrets-key'))).mode & 0o777).toBe(0o600);
    const second = await startApp(ctx.database.handle, { SECRETS_KEY: '', DATA_DIR: dataDir });
    try {
      expect(second.composed.deps.secrets.open(sealed, tenant)).toBe('generated');
    } finally {
      await second.close();
    }
  });
});
