import { describe, expect, it } from 'vitest';
import { startHttpsReceiver } from '../../../test/support/tls.js';
import { createProviderOrigins, providerOriginsOf } from './provider-origins.js';

describe('providerOriginsOf', () => {
  const issuer = 'https://idp.example/realms/main';

  it('gives the issuer origin and the token endpoint origin, once each', () => {
    expect(
      providerOriginsOf(issuer, { issuer, token_endpoint: 'https://tokens.example:8443/token' }),
    ).toEqual(['https://idp.example', 'https://tokens.example:8443']);
    expect(
      providerOriginsOf(issuer, {
        issuer,
        token_endpoint: `${issuer}/protocol/openid-connect/token`,
      }),
    ).toEqual(['https://idp.example']);
  });

  it.each([
    [
      'another issuer',
      { issuer: 'https://evil.example', token_endpoint: 'https://evil.example/t' },
    ],
    ['no token endpoint', { issuer }],
    ['an http: token endpoint', { issuer, token_endpoint: 'http://idp.example/token' }],
    ['a token endpoint that is no URL', { issuer, token_endpoint: 'token' }],
    ['no object', 'issuer'],
  ])('refuses a document with %s', (_label, metadata) => {
    expect(() => providerOriginsOf(issuer, metadata)).toThrow(/discovery document/);
  });
});

describe('createProviderOrigins', () => {
  it('allows the issuer alone while discovery fails, and asks again 30 s later', async () => {
    const receiver = await startHttpsReceiver();
    try {
      const issuer = `https://127.0.0.1:${receiver.port}`;
      let now = 1_000_000;
      const errors: string[] = [];
      const origins = createProviderOrigins(issuer, {
        now: () => now,
        onError: (error) => errors.push(error.message),
      });
      receiver.setStatus(503);
      expect(await origins.current()).toEqual([issuer]);
      expect(errors).toEqual(['the discovery document answered HTTP 503']);

      receiver.setHandler((_request, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer, token_endpoint: `https://localhost:${receiver.port}/t` }));
      });
      now += 29_000;
      expect(await origins.current()).toEqual([issuer]);
      expect(receiver.requests).toHaveLength(1);
      now += 1_000;
      const both = [issuer, `https://localhost:${receiver.port}`];
      expect(await origins.current()).toEqual(both);
      expect(receiver.requests.map((request) => request.url)).toEqual([
        '/.well-known/openid-configuration',
        '/.well-known/openid-configuration',
      ]);
      // Kept for an hour: no request until then, even when the provider has gone away.
      receiver.setStatus(503);
      now += 59 * 60_000;
      expect(await origins.current()).toEqual(both);
      expect(receiver.requests).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });
});
