import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  describeRefusedRange,
  refusedCidrs,
  refusedRangeOf,
  refusedRangeOfNetwork,
  targetRefusal,
} from './refused-ranges.js';
import type { ScanTarget } from './target.js';

describe('refusedRangeOf', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['168.63.129.16', 'cloud metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
  ])('IPv4 %s is %s', (address, name) => {
    expect(refusedRangeOf(address)).toBe(name);
  });

  it.each([
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['fd20:ce::254', 'cloud metadata'],
    ['ff02::1', 'multicast'],
    ['64:ff9b:1::a', 'local-use NAT64'],
    ['[::1]', 'loopback'],
  ])('IPv6 %s is %s', (address, name) => {
    expect(refusedRangeOf(address)).toBe(name);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:7F00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:0:7f00:1', 'loopback'], // IPv4-translated
    ['::7f00:1', 'loopback'], // IPv4-compatible
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:7f00:1::1', 'loopback'], // 6to4
    ['2002:a9fe:a9fe::', 'cloud metadata'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo client 127.0.0.1, inverted
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private'], // Teredo client 10.0.0.1
  ])('IPv6 %s carrying an IPv4 address is %s', (address, name) => {
    expect(refusedRangeOf(address)).toBe(name);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '198.18.0.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '169.253.255.255',
    '11.0.0.0',
    '223.255.255.255',
    '2001:db8::1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo client 8.8.8.8
    '::2:0:0', // not in ::/96
  ])('allows %s', (address) => {
    expect(refusedRangeOf(address)).toBeNull();
  });

  it.each(['example.com', '', 'localhost', '127.0.0.1/8', '::1/128'])(
    'returns null for %j, which is not an address',
    (text) => {
      expect(refusedRangeOf(text)).toBeNull();
    },
  );

  it('judges lenient IPv4 forms by the address they mean', () => {
    expect(refusedRangeOf('127.1')).toBe('loopback');
  });
});

describe('refusedRangeOfNetwork', () => {
  it.each([
    ['126.0.0.0/7', 'loopback'], // contains 127/8
    ['127.0.0.0/16', 'loopback'],
    ['10.0.0.0/16', 'private'], // inside 10/8
    ['10.20.30.0/24', 'private'],
    ['172.0.0.0/8', 'private'],
    ['192.168.0.0/16', 'private'],
    ['192.168.4.0/24', 'private'],
    ['169.254.0.0/16', 'cloud metadata'],
    ['169.254.1.0/24', 'link-local'],
    ['168.63.0.0/16', 'cloud metadata'],
    ['100.64.0.0/16', 'carrier-grade NAT'],
    ['0.0.0.0/0', 'cloud metadata'],
    ['0.0.0.0/16', 'unspecified'],
    ['224.0.0.0/16', 'multicast'],
    ['255.255.0.0/16', 'broadcast'],
    ['::/112', 'loopback'],
    ['::/0', 'cloud metadata'],
    ['fe80::/112', 'link-local'],
    ['fd00::/112', 'unique local'],
    ['fd00:ec2::/112', 'cloud metadata'],
    ['ff02::/112', 'multicast'],
    ['::ffff:7f00:0/112', 'loopback'],
    ['::ffff:0:0/96', 'cloud metadata'],
    ['::ffff:a00:0/120', 'private'],
    ['64:ff9b::c0a8:0/112', 'private'],
    ['2002:a00::/24', 'private'],
    ['2001::/32', 'cloud metadata'],
    ['2001:0:4136:e378:8000:63bf:80ff:ff00/120', 'loopback'],
  ])('%s includes %s addresses', (cidr, name) => {
    expect(refusedRangeOfNetwork(cidr)).toBe(name);
  });

  it.each([
    '8.8.0.0/16',
    '93.184.216.0/24',
    '192.0.2.0/24',
    '203.0.113.0/24',
    '11.0.0.0/8',
    '128.0.0.0/8',
    '2001:db8::/112',
    '2606:4700::/112',
    '::ffff:808:0/112',
    '64:ff9b::808:0/112',
  ])('allows %s', (cidr) => {
    expect(refusedRangeOfNetwork(cidr)).toBeNull();
  });

  it.each(['example.com', '10.0.0.0', '10.0.0.0/33', ''])('returns null for %j', (text) => {
    expect(refusedRangeOfNetwork(text)).toBeNull();
  });
});

describe('describeRefusedRange', () => {
  it.each([
    ['loopback', 'a loopback address'],
    ['unspecified', 'an unspecified address'],
    ['cloud metadata', 'a cloud metadata address'],
  ] as const)('%s → %s', (name, text) => {
    expect(describeRefusedRange(name)).toBe(text);
  });
});

describe('targetRefusal', () => {
  const target = (
    value: string,
    type: ScanTarget['type'],
    host: string | null,
    hostIsAddress: boolean,
  ): ScanTarget => ({ value, type, host, hostIsAddress });

  it.each([
    [target('127.0.0.1', 'ip', '127.0.0.1', true), '127.0.0.1 is a loopback address'],
    [target('0.0.0.0', 'host', '0.0.0.0', true), '0.0.0.0 is an unspecified address'],
    [
      target('::ffff:127.0.0.1', 'ip', '::ffff:127.0.0.1', true),
      '::ffff:127.0.0.1 is a loopback address',
    ],
    [
      target('http://169.254.169.254/latest/meta-data/', 'url', '169.254.169.254', true),
      '169.254.169.254 is a cloud metadata address',
    ],
    [
      target('http://[fd00:ec2::254]/', 'url', 'fd00:ec2::254', true),
      'fd00:ec2::254 is a cloud metadata address',
    ],
    [target('10.1.0.0/16', 'network', '10.1.0.0', true), '10.1.0.0/16 includes private addresses'],
    [target('fe80::/112', 'network', 'fe80::', true), 'fe80::/112 includes link-local addresses'],
    [
      target('192.168.0.10:5000/app', 'image', '192.168.0.10', true),
      '192.168.0.10 is a private address',
    ],
  ])('refuses %j', (scanTarget, reason) => {
    expect(targetRefusal(scanTarget)).toBe(reason);
  });

  it.each([
    target('localhost', 'host', 'localhost', false),
    target('example.com', 'domain', 'example.com', false),
    target('http://localhost/', 'url', 'localhost', false),
    target('alpine:3.19', 'image', null, false),
    target('localhost:5000/app', 'image', 'localhost', false),
    target('203.0.113.7', 'ip', '203.0.113.7', true),
    target('198.51.100.0/24', 'network', '198.51.100.0', true),
    target('http://[2001:db8::1]:8080/', 'url', '2001:db8::1', true),
  ])('finds nothing to refuse in %j (names are judged after resolution)', (scanTarget) => {
    expect(targetRefusal(scanTarget)).toBeNull();
  });

  it('lets ALLOW_PRIVATE_TARGETS decide, as a list of ranges or all at once', () => {
    const own = target('10.20.0.0/24', 'network', '10.20.0.0', true);
    const other = target('10.21.0.0/24', 'network', '10.21.0.0', true);
    const wide = target('10.20.0.0/15', 'network', '10.20.0.0', true);
    const allowed = target('http://127.0.0.2/', 'url', '127.0.0.2', true);
    const loopback = target('127.0.0.1', 'ip', '127.0.0.1', true);
    const policy = ['10.20.0.0/16', '127.0.0.2/32'];
    expect(targetRefusal(own, policy)).toBeNull();
    expect(targetRefusal(allowed, policy)).toBeNull();
    expect(targetRefusal(other, policy)).toBe('10.21.0.0/24 includes private addresses');
    expect(targetRefusal(wide, policy)).toBe('10.20.0.0/15 includes private addresses');
    expect(targetRefusal(loopback, policy)).toBe('127.0.0.1 is a loopback address');
    expect(targetRefusal(loopback, true)).toBeNull();
    expect(targetRefusal(loopback, false)).toBe('127.0.0.1 is a loopback address');
  });
});

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', false, 'loopback'],
    ['127.0.0.1', true, null],
    ['127.0.0.2', ['127.0.0.2/32'], null],
    ['::ffff:127.0.0.2', ['127.0.0.2/32'], null],
    ['127.0.0.3', ['127.0.0.2/32'], 'loopback'],
    ['169.254.169.254', ['10.0.0.0/8'], 'cloud metadata'],
    ['203.0.113.7', false, null],
  ] as const)('%s under %j: %s', (address, policy, name) => {
    expect(addressRefusal(address, policy)).toBe(name);
  });
});

describe('refusedCidrs', () => {
  it('lists every refused range, and the IPv6 prefixes that carry a refused IPv4 range', () => {
    const { ipv4, ipv6 } = refusedCidrs();
    expect(ipv4).toEqual(
      expect.arrayContaining(['127.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '169.254.169.254/32']),
    );
    expect(ipv6).toEqual(
      expect.arrayContaining([
        '::1/128',
        'fc00::/7',
        '::ffff:7f00:0/104',
        '64:ff9b::a00:0/104',
        '2002:7f00::/24',
        '2001::/32',
      ]),
    );
  });

  it('agrees with refusedRangeOf on every range it lists', () => {
    const { ipv4, ipv6 } = refusedCidrs();
    for (const cidr of [...ipv4, ...ipv6]) {
      expect(refusedRangeOfNetwork(cidr), cidr).not.toBeNull();
    }
  });
});
