import { describe, expect, it } from 'vitest';
import { allowlistEntryError, isAddressAllowed } from './ip-allowlist.js';

describe('allowlistEntryError', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.0/8',
    '0.0.0.0/0',
    '::1',
    '2001:db8::/32',
    '::ffff:127.0.0.1',
    '192.168.1.7/32',
  ])('accepts %s', (entry) => {
    expect(allowlistEntryError(entry)).toBeNull();
  });

  it.each([
    '127.1',
    '0x7f.0.0.1',
    '0177.0.0.1',
    '2130706433',
    '010.0.0.1',
    '256.0.0.1',
    '1.2.3.4/33',
    '1.2.3.4/08',
    '::1/129',
    'fe80::1%eth0',
    'example.com',
    '*',
    '',
    ' 127.0.0.1',
    '10.0.0.5/24',
  ])('refuses %j', (entry) => {
    expect(allowlistEntryError(entry)).toMatch(/\S/);
  });

  it('names the network address when host bits are set', () => {
    expect(allowlistEntryError('10.0.0.5/24')).toContain('10.0.0.0/24');
  });
});

describe('isAddressAllowed', () => {
  it('allows everyone with an empty allowlist', () => {
    expect(isAddressAllowed('203.0.113.9', [])).toBe(true);
  });
  it('matches an IPv4 entry against an IPv4-mapped IPv6 peer', () => {
    expect(isAddressAllowed('::ffff:127.0.0.1', ['127.0.0.1'])).toBe(true);
  });
  it('matches an IPv4-mapped entry against an IPv4 peer', () => {
    expect(isAddressAllowed('127.0.0.1', ['::ffff:127.0.0.1'])).toBe(true);
  });
  it('matches IPv4 and IPv6 CIDR ranges without throwing across families', () => {
    expect(isAddressAllowed('10.1.2.3', ['2001:db8::/32', '10.0.0.0/8'])).toBe(true);
    expect(isAddressAllowed('2001:db8:5::1', ['10.0.0.0/8', '2001:db8::/32'])).toBe(true);
    expect(isAddressAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
  });
  it('matches an IPv4-mapped CIDR entry against an IPv4 peer', () => {
    expect(isAddressAllowed('192.168.4.4', ['::ffff:192.168.0.0/112'])).toBe(true);
  });
  it('refuses an address outside every entry and an unparseable peer', () => {
    expect(isAddressAllowed('127.0.0.2', ['127.0.0.1'])).toBe(false);
    expect(isAddressAllowed('not-an-ip', ['127.0.0.1'])).toBe(false);
  });
});
