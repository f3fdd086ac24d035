/**
 * Tokens from an external identity provider: RS256 verified against a JWKS served over HTTPS on
 * 127.0.0.1 (a certificate of the test CA, which this process trusts through NODE_EXTRA_CA_CERTS,
 * as a deployment would trust a private CA), with issuer and audience checked. JWKS mode refuses
 * http: and requires both (src/config/load-config.test.ts; a start-up test below).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtEntry } from '../support/builds.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { bearer, startApp, type TestApp } from '../support/harness.js';
import { readTestTls } from '../support/tls.js';

let database: TestDatabase;
let app: TestApp;
let jwksServer: Server;
let sign: (
  claims: Record<string, unknown>,
  options?: { issuer?: string; audience?: string },
) => Promise<string>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const tls = readTestTls();
  jwksServer = createServer({ cert: tls.cert, key: tls.key }, (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const { port } = jwksServer.address() as AddressInfo;
  sign = (claims, options = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('idp-user')
      .setIssuer(options.issuer ?? 'https://idp.test')
      .setAudience(options.audience ?? 'rampart')
      .setExpirationTime('10m')
      .sign(privateKey);
  database = await createTestDatabase();
  app = await startApp(database.handle, {
    JWT_SECRET: '',
    JWT_JWKS_URL: `https://127.0.0.1:${port}/jwks.json`,
    JWT_ISSUER: 'https://idp.test',
    JWT_AUDIENCE: 'rampart',
  });
});

afterAll(async () => {
  await app.close();
  await database.destroy();
  await new Promise((resolve) => jwksServer.close(resolve));
});

describe('JWKS mode', () => {
  it('accepts an RS256 token of the configured issuer and audience', async () => {
    const token = await sign({ tenantId: randomUUID() });
    const response = await app.request('/api/v1/api-keys', { headers: bearer(token) });
    expect(response.status).toBe(200);
  });

  it.each([
    ['another issuer', { issuer: 'https://evil.test' }],
    ['another audience', { audience: 'someone-else' }],
  ])('refuses a token from %s with 401 INVALID_AUTH_TOKEN', async (_label, options) => {
    const token = await sign({ tenantId: randomUUID() }, options);
    const response = await app.request('/api/v1/api-keys', { headers: bearer(token) });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('INVALID_AUTH_TOKEN');
  });

  it('refuses an HS256 token even when signed with a guessable secret', async () => {
    const { signToken } = await import('../../src/adapters/auth-tokens/jwt.js');
    const token = await signToken('x'.repeat(40), { subject: 'u', tenantId: randomUUID() }, 60);
    const response = await app.request('/api/v1/api-keys', { headers: bearer(token) });
    expect(response.body).toEqual({
      success: false,
      error: 'Invalid bearer token: algorithm not allowed',
      code: 'INVALID_AUTH_TOKEN',
    });
  });
});

describe('JWKS mode configured unsafely', () => {
  /** Runs `npm start`'s entry point with `env` to its end: its exit code and stderr. */
  const start = (env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [builtEntry('main/server')],
        { env: { PATH: process.env.PATH ?? '', PORT: '0', WORKERS: '0', ...env }, timeout: 60_000 },
        (error, _stdout, stderr) =>
          resolve({
            code: error === null ? 0 : ((error as { code?: number }).code ?? null),
            stderr,
          }),
      );
    });

  it('stops the start with one line naming the setting: http:, no issuer, no audience', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [
        { JWT_JWKS_URL: 'http://127.0.0.1:9/jwks.json', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' },
        'Invalid configuration: JWT_JWKS_URL must use https:',
      ],
      [
        { JWT_JWKS_URL: 'https://127.0.0.1:9/jwks.json', JWT_AUDIENCE: 'a' },
        'Invalid configuration: JWT_ISSUER must be set when JWT_JWKS_URL is set',
      ],
      [
        { JWT_JWKS_URL: 'https://127.0.0.1:9/jwks.json', JWT_ISSUER: 'i' },
        'Invalid configuration: JWT_AUDIENCE must be set when JWT_JWKS_URL is set',
      ],
    ];
    // The three processes start side by side.
    const ended = await Promise.all(cases.map(([env]) => start(env)));
    expect(ended).toEqual(cases.map(([, line]) => ({ code: 1, stderr: `${line}\n` })));
  }, 120_000);
});
