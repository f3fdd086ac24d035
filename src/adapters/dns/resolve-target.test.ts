import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { checkResolvedTarget, type LookupAddresses, resolveTargetHost } from './resolve-target.js';

/** A resolver that answers from a table; names not in it fail like getaddrinfo's ENOTFOUND. */
function tableLookup(table: Record<string, string[]>): LookupAddresses {
  return async (host) => {
    const addresses = table[host];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    }
    return addresses;
  };
}

const lookup = tableLookup({
  'public.test': ['192.0.2.10', '2001:db8::10'],
  'loopback.test': ['127.0.0.1'],
  'mixed.test': ['192.0.2.10', '10.0.0.5'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'ula.test': ['2001:db8::1', 'fd00::1'],
  'zoned.test': ['fe80::1%eth0'],
  'empty.test': [],
  'registry.test': ['192.0.2.20'],
  'inner-registry.test': ['10.1.2.3'],
});

function target(
  value: string,
  type: ScanTarget['type'],
  host: string | null,
  hostIsAddress = false,
): ScanTarget {
  return { value, type, host, hostIsAddress };
}

describe('resolveTargetHost', () => {
  it('resolves localhost with the system resolver', async () => {
    const result = await resolveTargetHost('localhost');
    expect(result.ok).toBe(true);
    expect(result.ok && result.addresses.length).toBeGreaterThan(0);
  });

  it('answers TARGET_UNRESOLVABLE for nonexistent.invalid (the .invalid TLD never resolves)', async () => {
    const result = await resolveTargetHost('nonexistent.invalid', { timeoutMs: 10_000 });
    expect(result).toMatchObject({ ok: false, code: 'TARGET_UNRESOLVABLE' });
    expect(!result.ok && result.message).toMatch(/^nonexistent\.invalid /);
  });

  it.each([
    ['public.test', { ok: true, addresses: ['192.0.2.10', '2001:db8::10'] }],
    [
      'missing.test',
      {
        ok: false,
        code: 'TARGET_UNRESOLVABLE',
        message: 'missing.test does not resolve to any address',
      },
    ],
    [
      'empty.test',
      {
        ok: false,
        code: 'TARGET_UNRESOLVABLE',
        message: 'empty.test does not resolve to any address',
      },
    ],
  ])('resolves %s with an injected lookup', async (host, expected) => {
    expect(await resolveTargetHost(host, { lookup })).toEqual(expected);
  });

  it.each([
    ['EAI_AGAIN', 'flaky.test could not be resolved (EAI_AGAIN)'],
    ['ENODATA', 'flaky.test does not resolve to any address'],
    [undefined, 'flaky.test could not be resolved (lookup failed)'],
  ])('names the host when the lookup fails with %s', async (code, message) => {
    const failing: LookupAddresses = async () => {
      throw Object.assign(new Error('failed'), { code });
    };
    expect(await resolveTargetHost('flaky.test', { lookup: failing })).toEqual({
      ok: false,
      code: 'TARGET_UNRESOLVABLE',
      message,
    });
  });

  it('gives up after timeoutMs', async () => {
    const never: LookupAddresses = () => new Promise<string[]>(() => {});
    const started = Date.now();
    expect(await resolveTargetHost('slow.test', { lookup: never, timeoutMs: 50 })).toEqual({
      ok: false,
      code: 'TARGET_UNRESOLVABLE',
      message: 'slow.test did not resolve within 50 ms',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('checkResolvedTarget', () => {
  it('refuses localhost, which the system resolver answers with loopback', async () => {
    const result = await checkResolvedTarget(target('localhost', 'host', 'localhost'), false);
    expect(result).toMatchObject({ ok: false, code: 'TARGET_NOT_ALLOWED' });
    expect(!result.ok && result.message).toMatch(/^localhost resolves to .+, a loopback address$/);
  });

  it('answers TARGET_UNRESOLVABLE for nonexistent.invalid, even with private targets allowed', async () => {
    for (const allowPrivate of [false, true]) {
      const result = await checkResolvedTarget(
        target('http://nonexistent.invalid/', 'url', 'nonexistent.invalid'),
        allowPrivate,
        { timeoutMs: 10_000 },
      );
      expect(result).toMatchObject({ ok: false, code: 'TARGET_UNRESOLVABLE' });
      expect(!result.ok && result.message).toContain('nonexistent.invalid');
    }
  });

  it.each([
    [
      target('loopback.test', 'domain', 'loopback.test'),
      'loopback.test resolves to 127.0.0.1, a loopback address',
    ],
    [
      target('http://mixed.test/', 'url', 'mixed.test'),
      'mixed.test resolves to 10.0.0.5, a private address',
    ],
    [
      target('mapped.test', 'host', 'mapped.test'),
      'mapped.test resolves to ::ffff:127.0.0.1, a loopback address',
    ],
    [
      target('metadata.test', 'domain', 'metadata.test'),
      'metadata.test resolves to 169.254.169.254, a cloud metadata address',
    ],
    [
      target('ula.test', 'domain', 'ula.test'),
      'ula.test resolves to fd00::1, a unique local address',
    ],
    [
      target('zoned.test', 'domain', 'zoned.test'),
      'zoned.test resolves to fe80::1%eth0, a link-local address',
    ],
    [target('127.0.0.1', 'ip', '127.0.0.1', true), '127.0.0.1 is a loopback address'],
    [target('http://[::1]:8080/', 'url', '::1', true), '::1 is a loopback address'],
    [target('10.0.0.0/16', 'network', '10.0.0.0', true), '10.0.0.0/16 includes private addresses'],
    [
      target('169.254.169.254:80/x', 'image', '169.254.169.254', true),
      '169.254.169.254 is a cloud metadata address',
    ],
    [
      target('inner-registry.test:5000/app', 'image', 'inner-registry.test'),
      'inner-registry.test resolves to 10.1.2.3, a private address',
    ],
  ])('refuses %j with TARGET_NOT_ALLOWED', async (scanTarget, message) => {
    expect(await checkResolvedTarget(scanTarget, false, lookup)).toEqual({
      ok: false,
      code: 'TARGET_NOT_ALLOWED',
      message,
    });
  });

  it.each([
    [target('public.test', 'domain', 'public.test'), ['192.0.2.10', '2001:db8::10']],
    [target('https://public.test/a', 'url', 'public.test'), ['192.0.2.10', '2001:db8::10']],
    [target('192.0.2.1', 'ip', '192.0.2.1', true), ['192.0.2.1']],
    [target('198.51.100.0/24', 'network', '198.51.100.0', true), []],
    [target('alpine:3.19', 'image', null), []],
    [target('registry.test/team/app:1', 'image', 'registry.test'), ['192.0.2.20']],
  ])('allows %j', async (scanTarget, addresses) => {
    expect(await checkResolvedTarget(scanTarget, false, lookup)).toEqual({ ok: true, addresses });
  });

  it.each([
    [target('loopback.test', 'domain', 'loopback.test'), ['127.0.0.1']],
    [target('mixed.test', 'domain', 'mixed.test'), ['192.0.2.10', '10.0.0.5']],
    [target('127.0.0.1', 'ip', '127.0.0.1', true), ['127.0.0.1']],
    [target('10.0.0.0/16', 'network', '10.0.0.0', true), []],
  ])('allows %j when private targets are allowed', async (scanTarget, addresses) => {
    expect(await checkResolvedTarget(scanTarget, true, { lookup })).toEqual({
      ok: true,
      addresses,
    });
  });

  it('allows only the listed ranges when private targets are allowed by a list', async () => {
    const policy = ['127.0.0.0/30', '10.0.0.0/24'];
    expect(
      await checkResolvedTarget(target('loopback.test', 'domain', 'loopback.test'), policy, lookup),
    ).toEqual({ ok: true, addresses: ['127.0.0.1'] });
    expect(
      await checkResolvedTarget(target('mapped.test', 'host', 'mapped.test'), policy, lookup),
    ).toEqual({ ok: true, addresses: ['::ffff:127.0.0.1'] });
    expect(
      await checkResolvedTarget(target('10.0.0.0/25', 'network', '10.0.0.0', true), policy, lookup),
    ).toEqual({ ok: true, addresses: [] });
    expect(
      await checkResolvedTarget(target('metadata.test', 'domain', 'metadata.test'), policy, lookup),
    ).toEqual({
      ok: false,
      code: 'TARGET_NOT_ALLOWED',
      message: 'metadata.test resolves to 169.254.169.254, a cloud metadata address',
    });
    expect(
      await checkResolvedTarget(target('10.0.0.0/16', 'network', '10.0.0.0', true), policy, lookup),
    ).toEqual({
      ok: false,
      code: 'TARGET_NOT_ALLOWED',
      message: '10.0.0.0/16 includes private addresses',
    });
  });

  it('does not resolve IP literals, networks or images without a registry', async () => {
    const calls: string[] = [];
    const spy: LookupAddresses = async (host) => {
      calls.push(host);
      return ['192.0.2.1'];
    };
    await checkResolvedTarget(target('192.0.2.1', 'ip', '192.0.2.1', true), false, spy);
    await checkResolvedTarget(target('192.0.2.0/24', 'network', '192.0.2.0', true), false, spy);
    await checkResolvedTarget(target('127.0.0.1:5000/a', 'image', '127.0.0.1', true), true, spy);
    await checkResolvedTarget(target('alpine:3.19', 'image', null), false, spy);
    expect(calls).toEqual([]);
  });

  it('resolves an image registry like any host name', async () => {
    const calls: string[] = [];
    const spy: LookupAddresses = async (host) => {
      calls.push(host);
      return ['192.0.2.1'];
    };
    expect(
      await checkResolvedTarget(target('ghcr.io/a/b', 'image', 'ghcr.io'), false, spy),
    ).toEqual({ ok: true, addresses: ['192.0.2.1'] });
    expect(calls).toEqual(['ghcr.io']);
  });

  it('refuses the registry localhost:5000, which the system resolver answers with loopback', async () => {
    const result = await checkResolvedTarget(
      target('localhost:5000/app', 'image', 'localhost'),
      false,
    );
    expect(result).toMatchObject({ ok: false, code: 'TARGET_NOT_ALLOWED' });
    expect(!result.ok && result.message).toMatch(/^localhost resolves to .+, a loopback address$/);
  });

  it('answers TARGET_UNRESOLVABLE for a registry that does not resolve', async () => {
    expect(
      await checkResolvedTarget(
        target('registry.invalid/app', 'image', 'registry.invalid'),
        false,
        lookup,
      ),
    ).toEqual({
      ok: false,
      code: 'TARGET_UNRESOLVABLE',
      message: 'registry.invalid does not resolve to any address',
    });
  });

  it('answers TARGET_UNRESOLVABLE naming a host that does not resolve', async () => {
    expect(
      await checkResolvedTarget(target('missing.test', 'domain', 'missing.test'), false, lookup),
    ).toEqual({
      ok: false,
      code: 'TARGET_UNRESOLVABLE',
      message: 'missing.test does not resolve to any address',
    });
  });
});
