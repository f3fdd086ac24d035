import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { type LocationFields, resolveLocation } from './location.js';

const URL_TARGET: ScanTarget = {
  type: 'url',
  value: 'https://scan.example/app?x=1',
  host: 'scan.example',
  hostIsAddress: false,
};
const DOMAIN_TARGET: ScanTarget = {
  type: 'domain',
  value: 'example.org',
  host: 'example.org',
  hostIsAddress: false,
};

const fields = (parts: Partial<LocationFields>): LocationFields => ({
  matchedAt: null,
  url: null,
  host: null,
  port: null,
  ...parts,
});

describe('resolveLocation', () => {
  it.each<[string, Partial<LocationFields>, ReturnType<typeof resolveLocation>]>([
    [
      'an http matched-at: host, default port, URL without query',
      { matchedAt: 'http://dvwa_dvwa_1/index.php?id=a8F3kq', host: 'https://other.example' },
      {
        source: 'matched-at',
        location: {
          host: 'dvwa_dvwa_1',
          port: 80,
          protocol: null,
          url: 'http://dvwa_dvwa_1/index.php',
        },
      },
    ],
    [
      'an https matched-at with a port and a fragment',
      { matchedAt: 'https://Example.com:8443/a/b#frag' },
      {
        source: 'matched-at',
        location: {
          host: 'example.com',
          port: 8443,
          protocol: null,
          url: 'https://example.com:8443/a/b',
        },
      },
    ],
    [
      'an IPv6 URL',
      { matchedAt: 'http://[2001:db8::1]:8080/x' },
      {
        source: 'matched-at',
        location: {
          host: '2001:db8::1',
          port: 8080,
          protocol: null,
          url: 'http://[2001:db8::1]:8080/x',
        },
      },
    ],
    [
      'name:port (network and ssl templates)',
      { matchedAt: 'nuclei-example.com:22', port: '443' },
      {
        source: 'matched-at',
        location: { host: 'nuclei-example.com', port: 22, protocol: 'tcp', url: null },
      },
    ],
    [
      '[v6]:port',
      { matchedAt: '[2001:db8::2]:443' },
      {
        source: 'matched-at',
        location: { host: '2001:db8::2', port: 443, protocol: 'tcp', url: null },
      },
    ],
    [
      'a bare name (dns templates)',
      { matchedAt: 'www.asdf.de' },
      {
        source: 'matched-at',
        location: { host: 'www.asdf.de', port: null, protocol: null, url: null },
      },
    ],
    [
      'no matched-at: the url field, its stray leading slash dropped',
      { url: '/http://dvwa_dvwa_1/', port: '80' },
      {
        source: 'url',
        location: { host: 'dvwa_dvwa_1', port: 80, protocol: null, url: 'http://dvwa_dvwa_1/' },
      },
    ],
    [
      'no matched-at and no url: the host field with the port field',
      { host: 'db.example', port: '5432' },
      { source: 'host', location: { host: 'db.example', port: 5432, protocol: null, url: null } },
    ],
    [
      'an unreadable matched-at falls through to the host',
      { matchedAt: 'not a location', host: 'https://h.example/' },
      {
        source: 'host',
        location: { host: 'h.example', port: 443, protocol: null, url: 'https://h.example/' },
      },
    ],
    [
      'a port out of range is not a port',
      { matchedAt: 'h.example:70000' },
      {
        source: 'target',
        location: {
          host: 'scan.example',
          port: 443,
          protocol: null,
          url: 'https://scan.example/app',
        },
      },
    ],
    [
      'nothing at all: the URL target, without its query',
      {},
      {
        source: 'target',
        location: {
          host: 'scan.example',
          port: 443,
          protocol: null,
          url: 'https://scan.example/app',
        },
      },
    ],
  ])('%s', (_name, parts, expected) => {
    expect(resolveLocation(fields(parts), URL_TARGET)).toEqual(expected);
  });

  it('falls back to the host of a domain target', () => {
    expect(resolveLocation(fields({}), DOMAIN_TARGET)).toEqual({
      source: 'target',
      location: { host: 'example.org', port: null, protocol: null, url: null },
    });
  });

  it('never uses the resolved IP: only the fields it is given', () => {
    const withIp = { ...fields({ matchedAt: 'cdn.example:443' }), ip: '203.0.113.9' };
    expect(resolveLocation(withIp, URL_TARGET).location.host).toBe('cdn.example');
  });
});
