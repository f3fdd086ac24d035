import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../targets/parse-target.js';
import type { ScanTarget } from '../targets/target.js';
import { type AssetKind, assetCovers, narrowestCovering, parseAssetValue } from './coverage.js';

function asset(kind: AssetKind, value: string): ScanTarget {
  const parsed = parseAssetValue(kind, value);
  if (!parsed.ok) {
    throw new Error(parsed.reason);
  }
  return parsed.value;
}

const ALL = ['host', 'url', 'domain', 'ip', 'network'] as const;

function target(value: string): ScanTarget {
  const parsed = parseTarget(value, undefined, ALL);
  if (!parsed.ok) {
    throw new Error(parsed.reason);
  }
  return parsed.target;
}

function image(value: string): ScanTarget {
  const parsed = parseTarget(value, 'image', ['url', 'image']);
  if (!parsed.ok) {
    throw new Error(parsed.reason);
  }
  return parsed.target;
}

describe('assetCovers', () => {
  it.each([
    ['domain', 'example.com', 'example.com', true],
    ['domain', 'example.com', 'a.b.example.com', true],
    ['domain', 'example.com', 'https://shop.example.com:8443/x', true],
    ['domain', 'example.com', 'badexample.com', false],
    ['domain', 'example.com', 'example.com.evil.net', false],
    ['domain', 'example.com', '203.0.113.5', false],
    ['domain', 'Example.COM', 'www.example.com', true],
    ['host', 'www.example.com', 'www.example.com', true],
    ['host', 'www.example.com', 'https://www.example.com/', true],
    ['host', 'www.example.com', 'a.www.example.com', false],
    ['host', '203.0.113.5', 'http://203.0.113.5/', true],
    ['ip', '203.0.113.5', '203.0.113.5', true],
    ['ip', '203.0.113.5', '203.0.113.6', false],
    ['ip', '203.0.113.5', '203.0.113.5/32', true],
    ['ip', '2001:db8::1', 'http://[2001:db8::1]:8080/', true],
    ['network', '203.0.113.0/24', '203.0.113.77', true],
    ['network', '203.0.113.0/24', '203.0.113.128/25', true],
    ['network', '203.0.113.0/24', '203.0.112.0/23', false],
    ['network', '203.0.113.0/24', '198.51.100.1', false],
    ['network', '2001:db8::/112', '2001:db8::ff', true],
    ['network', '203.0.113.0/24', 'www.example.com', false],
    ['url', 'https://app.example.com/app', 'https://app.example.com/app/x?y=1', true],
    ['url', 'https://app.example.com/app', 'https://app.example.com/app', true],
    ['url', 'https://app.example.com/app', 'https://app.example.com/apple', false],
    ['url', 'https://app.example.com/', 'http://app.example.com/', false],
    ['url', 'https://app.example.com/', 'https://app.example.com:8443/', false],
    ['url', 'https://app.example.com/', 'app.example.com', false],
  ] as const)('%s %s covers %s: %s', (kind, value, scanned, expected) => {
    expect(assetCovers(asset(kind, value), target(scanned))).toBe(expected);
  });

  it('covers images by exact reference, or every tag of a repository without one', () => {
    expect(
      assetCovers(image('registry.example.com/app'), image('registry.example.com/app:1.2')),
    ).toBe(true);
    expect(
      assetCovers(image('registry.example.com/app:1.2'), image('registry.example.com/app:1.3')),
    ).toBe(false);
    expect(
      assetCovers(image('registry.example.com/app:1.2'), image('registry.example.com/app:1.2')),
    ).toBe(true);
    expect(assetCovers(image('registry.example.com/app'), image('registry.example.com/app2'))).toBe(
      false,
    );
  });

  it('property: a domain covers every name under it and none that merely ends with its text', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/);
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 0, maxLength: 4 }),
        label,
        label,
        (sub, name, tld) => {
          const domain = `${name}.${tld}x`;
          const under = [...sub, domain].join('.');
          expect(assetCovers(asset('domain', domain), target(under))).toBe(true);
          expect(assetCovers(asset('domain', domain), target(`q${domain}`))).toBe(false);
        },
      ),
    );
  });

  it('property: a network covers exactly the addresses whose prefix matches', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 16, max: 32 }), fc.ipV4(), (base, bits, other) => {
        const network = `${maskIPv4(base, bits)}/${bits}`;
        const covered = assetCovers(asset('network', network), target(other));
        expect(covered).toBe(maskIPv4(other, bits) === maskIPv4(base, bits));
        expect(assetCovers(asset('network', network), target(base))).toBe(true);
      }),
    );
  });
});

function maskIPv4(address: string, bits: number): string {
  const value = address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const masked = bits === 0 ? 0 : Number((BigInt(value) >> BigInt(32 - bits)) << BigInt(32 - bits));
  return [24, 16, 8, 0].map((shift) => (masked >>> shift) & 255).join('.');
}

describe('narrowestCovering', () => {
  const candidates = [
    { id: 'domain', value: asset('domain', 'example.com') },
    { id: 'sub', value: asset('domain', 'shop.example.com') },
    { id: 'host', value: asset('host', 'www.shop.example.com') },
    { id: 'url', value: asset('url', 'https://www.shop.example.com/app') },
    { id: 'net16', value: asset('network', '203.0.0.0/16') },
    { id: 'net24', value: asset('network', '203.0.113.0/24') },
    { id: 'ip', value: asset('ip', '203.0.113.5') },
    { id: 'domain-again', value: asset('domain', 'example.com') },
  ];

  it.each([
    ['example.com', 'domain'],
    ['a.example.com', 'domain'],
    ['x.shop.example.com', 'sub'],
    ['www.shop.example.com', 'host'],
    ['https://www.shop.example.com/', 'host'],
    ['https://www.shop.example.com/app/login', 'url'],
    ['203.0.9.9', 'net16'],
    ['203.0.113.9', 'net24'],
    ['203.0.113.5', 'ip'],
    ['198.51.100.1', null],
  ])('%s → %s', (scanned, expected) => {
    expect(narrowestCovering(candidates, target(scanned))?.id ?? null).toBe(expected);
  });

  it('refuses values outside their kind grammar', () => {
    expect(parseAssetValue('domain', 'localhost').ok).toBe(false);
    expect(parseAssetValue('network', '10.0.0.0/8').ok).toBe(false);
    expect(parseAssetValue('ip', 'example.com').ok).toBe(false);
  });
});
