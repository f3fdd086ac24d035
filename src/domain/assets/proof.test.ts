import { describe, expect, it } from 'vitest';
import { parseAssetValue } from './coverage.js';
import { fileProves, proofLocations, txtProves } from './proof.js';

function locations(kind: Parameters<typeof parseAssetValue>[0], value: string) {
  const parsed = parseAssetValue(kind, value);
  if (!parsed.ok) {
    throw new Error(parsed.reason);
  }
  return proofLocations(parsed.value);
}

describe('proofLocations', () => {
  it.each([
    [
      'domain',
      'Shop.Example.com',
      ['shop.example.com', '_rampart-verification.shop.example.com'],
      'https://shop.example.com/.well-known/rampart-verification.txt',
    ],
    [
      'host',
      'www.example.com',
      ['www.example.com', '_rampart-verification.www.example.com'],
      'https://www.example.com/.well-known/rampart-verification.txt',
    ],
    ['host', '203.0.113.5', [], 'https://203.0.113.5/.well-known/rampart-verification.txt'],
    ['ip', '2001:db8::1', [], 'https://[2001:db8::1]/.well-known/rampart-verification.txt'],
    [
      'url',
      'http://app.example.com:8080/x/y?z=1',
      [],
      'https://app.example.com:8080/.well-known/rampart-verification.txt',
    ],
    ['network', '203.0.113.0/24', [], null],
    ['image', 'registry.example.com/app:1', [], null],
  ] as const)('%s %s', (kind, value, dnsNames, fileUrl) => {
    expect(locations(kind, value)).toEqual({ dnsNames, fileUrl });
  });
});

describe('txtProves and fileProves', () => {
  it('accept exactly the token, joined across TXT strings', () => {
    expect(txtProves(['rampart-verification=abc'], 'abc')).toBe(true);
    expect(txtProves(['rampart-verification=', 'abc'], 'abc')).toBe(true);
    expect(txtProves(['rampart-verification=abcd'], 'abc')).toBe(false);
    expect(txtProves(['abc'], 'abc')).toBe(false);
    expect(fileProves('abc\n', 'abc')).toBe(true);
    expect(fileProves('rampart-verification=abc', 'abc')).toBe(true);
    expect(fileProves('abc extra', 'abc')).toBe(false);
  });
});
