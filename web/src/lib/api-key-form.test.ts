import { describe, expect, it } from 'vitest';
import {
  createApiKeyBody,
  EMPTY_API_KEY_FORM,
  inGracePeriod,
  parseGraceHours,
  parseIpList,
  SCOPES,
} from './api-key-form.js';

const filled = { ...EMPTY_API_KEY_FORM, name: ' ci ' };

describe('the API key form', () => {
  it('starts with every scope the API accepts, and a 90-day expiry', () => {
    expect(EMPTY_API_KEY_FORM.scopes).toContain('scans:create');
    expect(EMPTY_API_KEY_FORM.scopes).toContain('schedules:write');
    expect(createApiKeyBody(filled)).toEqual({
      ok: true,
      value: { name: 'ci', scopes: [...SCOPES], expiresInDays: 90 },
    });
  });

  it('sends only what was given: description, engines, allow-list, limits; empty expiry is never', () => {
    const body = createApiKeyBody({
      ...filled,
      description: ' deploys ',
      scopes: ['scans:read', 'results:read'],
      scanTypes: ['nmap'],
      allowedIps: '203.0.113.0/24,  10.0.0.1\n2001:db8::/32 10.0.0.1',
      expiresInDays: '',
      perMinute: '30',
      perDay: '900',
    });
    expect(body).toEqual({
      ok: true,
      value: {
        name: 'ci',
        description: 'deploys',
        scopes: ['scans:read', 'results:read'],
        allowedScanTypes: ['nmap'],
        allowedIpAddresses: ['203.0.113.0/24', '10.0.0.1', '2001:db8::/32'],
        expiresInDays: null,
        rateLimitPerMinute: 30,
        rateLimitPerDay: 900,
      },
    });
  });

  it.each([
    [{ name: '' }, 'Give the key a name.'],
    [{ scopes: [] }, 'Choose at least one scope.'],
    [{ expiresInDays: '3651' }, 'Expiry must be a whole number from 0 to 3650.'],
    [{ expiresInDays: '1.5' }, 'Expiry must be a whole number from 0 to 3650.'],
    [{ perMinute: '0' }, 'Per minute must be a whole number from 1 to 1000.'],
    [{ perHour: '50001' }, 'Per hour must be a whole number from 1 to 50000.'],
    [{ allowedIps: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`).join(',') }, 'At most 100'],
  ])('refuses %j', (change, problem) => {
    const body = createApiKeyBody({ ...filled, ...change });
    expect(body.ok).toBe(false);
    expect(body.ok ? '' : body.problem).toContain(problem);
  });

  it('reads the allow-list and the grace period', () => {
    expect(parseIpList(' ')).toEqual({ ok: true, value: [] });
    expect(parseGraceHours('')).toEqual({ ok: true, value: 24 });
    expect(parseGraceHours('0')).toEqual({ ok: true, value: 0 });
    expect(parseGraceHours('721')).toMatchObject({ ok: false });
  });

  it('says a rotated key that still works is in its grace period', () => {
    const key = {
      id: '00000000-0000-4000-8000-000000000001',
      name: 'ci',
      description: null,
      keyPrefix: 'rmp_sk_ab',
      scopes: [],
      allowedScanTypes: [],
      allowedIpAddresses: [],
      rateLimitPerMinute: 60,
      rateLimitPerHour: 1000,
      rateLimitPerDay: 10_000,
      status: 'active' as const,
      expiresAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
      revokedReason: null,
      rotatedToKeyId: null,
    };
    expect(inGracePeriod(key)).toBe(false);
    const rotated = { ...key, rotatedToKeyId: '00000000-0000-4000-8000-000000000002' };
    expect(inGracePeriod(rotated)).toBe(true);
    expect(inGracePeriod({ ...rotated, status: 'expired' })).toBe(false);
  });
});
