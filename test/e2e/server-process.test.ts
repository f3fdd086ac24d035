/**
 * The real entry points as separate processes: the server refuses a bad configuration with a
 * one-line message and exit code 1, and a DATA_DIR open to others; the CLI prints a token the
 * server accepts.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtEntry } from '../support/builds.js';
import { createTestDatabase } from '../support/database.js';
import { bearer, startApp, TEST_JWT_SECRET } from '../support/harness.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

describe('server process', () => {
  it('exits 1 with a one-line message naming a bad variable', async () => {
    const result = await run(process.execPath, [builtEntry('main/server')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: 'nope' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Invalid configuration: PORT must be an integer from 0 to 65535, got "nope"',
    );
  });

  it('refuses to start with SCANNER_SANDBOX=required when the sandbox cannot be built', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampart-required-'));
    try {
      const result = await run(process.execPath, [builtEntry('main/server')], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          DATA_DIR: dataDir,
          SCANNER_SANDBOX: 'required',
          SCANNER_USER: 'rampart-no-such-user',
          LOG_LEVEL: 'silent',
        },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^Rampart failed to start: SCANNER_SANDBOX=required, but the scanner sandbox needs .*the scanner user rampart-no-such-user \(useradd -r -s \/usr\/sbin\/nologin rampart-no-such-user\)/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('DATA_DIR, which holds the database and the JWT secret', () => {
  it('refuses to start when it is open to its group or others, and opens nothing in it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampart-open-'));
    try {
      await chmod(dataDir, 0o755);
      const result = await run(process.execPath, [builtEntry('main/server')], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', WORKERS: '0' },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `Rampart failed to start: DATA_DIR ${dataDir} is open to its group or others (mode 0755); it holds the database and the JWT secret: run chmod 700 ${dataDir}`,
      );
      expect(await readdir(dataDir)).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('is created 0700 when missing, with the generated secret 0600 inside', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'rampart-new-'));
    const dataDir = join(parent, 'data');
    try {
      await run(process.execPath, ['bin/rampart.js', 'token', '--tenant', randomUUID()], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      });
      expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
      expect((await stat(join(dataDir, 'jwt-secret'))).mode & 0o777).toBe(0o600);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

describe('rampart token', () => {
  it('prints a token signed with the configured secret that the API accepts', async () => {
    const tenantId = randomUUID();
    const { stdout } = await run(
      process.execPath,
      ['bin/rampart.js', 'token', '--tenant', tenantId, '--ttl', '10m'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', JWT_SECRET: TEST_JWT_SECRET },
      },
    );
    const token = stdout.trim();
    const database = await createTestDatabase();
    const app = await startApp(database.handle);
    try {
      const response = await app.request('/api/v1/api-keys', { headers: bearer(token) });
      expect(response.status).toBe(200);
      expect(response.body.data.apiKeys).toEqual([]);
    } finally {
      await app.close();
      await database.destroy();
    }
  });

  it('generates the secret into DATA_DIR when JWT_SECRET is unset, and reuses it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rampart-cli-'));
    try {
      const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir };
      const args = ['bin/rampart.js', 'token', '--tenant', randomUUID()];
      const first = await run(process.execPath, args, { cwd: ROOT, env });
      const second = await run(process.execPath, args, { cwd: ROOT, env });
      expect(first.stdout.trim().split('.')).toHaveLength(3);
      const { resolveJwtSecret } = await import('../../src/main/compose.js');
      const { loadConfig } = await import('../../src/config/load-config.js');
      const secret = await resolveJwtSecret(loadConfig({ DATA_DIR: dataDir }));
      const { jwtVerify } = await import('jose');
      for (const out of [first.stdout, second.stdout]) {
        await expect(
          jwtVerify(out.trim(), new TextEncoder().encode(secret ?? '')),
        ).resolves.toBeDefined();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a malformed tenant id', async () => {
    const result = await run(process.execPath, ['bin/rampart.js', 'token', '--tenant', 'acme'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', JWT_SECRET: TEST_JWT_SECRET },
    }).catch((error: { code: number; stderr: string }) => error);
    expect((result as { code: number }).code).toBe(1);
    expect((result as { stderr: string }).stderr).toContain('--tenant must be a UUID');
  });
});
