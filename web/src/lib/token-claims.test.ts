import { describe, expect, it } from 'vitest';
import { unsignedJwt } from './testing/browser-fakes.js';
import { hasExpired, readTokenClaims } from './token-claims.js';

const jwt = (payload: unknown) => unsignedJwt(payload, 'HS256');

describe('readTokenClaims', () => {
  it('reads the subject, tenant, role and expiry of a dashboard token', () => {
    const claims = readTokenClaims(
      jwt({ sub: 'ana', tenantId: '0b6f7e1c-2f7e-4a57-9d6e-000000000001', role: 'admin', exp: 2 }),
    );
    expect(claims).toEqual({
      subject: 'ana',
      tenantId: '0b6f7e1c-2f7e-4a57-9d6e-000000000001',
      admin: true,
      expiresAt: 2000,
    });
    expect(hasExpired(claims as NonNullable<typeof claims>, 1999)).toBe(false);
    expect(hasExpired(claims as NonNullable<typeof claims>, 2000)).toBe(true);
  });

  it('decodes UTF-8 claims', () => {
    expect(readTokenClaims(jwt({ sub: 'zoë' }))?.subject).toBe('zoë');
  });

  it('refuses text that is not a compact JWT', () => {
    for (const text of [
      '',
      'rmp_sk_abc',
      'a.b',
      'a.b.c.d',
      'a.%%%.c',
      `x.${unsignedJwt([1]).split('.')[1]}.y`,
    ]) {
      expect(readTokenClaims(text)).toBeNull();
    }
  });
});
