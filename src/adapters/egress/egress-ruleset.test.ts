import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  deleteEgressTable,
  type EgressPolicy,
  egressRuleset,
  ownAddresses,
  resolversFromResolvConf,
} from './egress-ruleset.js';

const base: EgressPolicy = {
  table: 'rampart_unit',
  uid: 999,
  allowPrivateTargets: false,
  ownAddresses: ['127.0.0.1'],
  resolvers: ['10.255.255.53'],
};

/** The scanner chain's rules, one per line. */
function scannerRules(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf('  chain scanner {');
  return lines.slice(start + 1, lines.indexOf('  }', start)).map((line) => line.trim());
}

const canCheckWithNft = process.getuid?.() === 0 && spawnSync('nft', ['--version']).status === 0;

describe('egressRuleset', () => {
  it('replaces the table in one transaction and sends only the scanner uid into its chain', () => {
    const text = egressRuleset(base);
    expect(text.split('\n').slice(0, 3)).toEqual([
      'table inet rampart_unit {}',
      'delete table inet rampart_unit',
      'table inet rampart_unit {',
    ]);
    expect(text).toContain('type filter hook output priority 0; policy accept;');
    expect(text).toContain('meta skuid 999 jump scanner');
  });

  it('accepts the resolvers on port 53 first, then rejects own addresses and refused ranges', () => {
    const rules = scannerRules(egressRuleset(base));
    expect(rules[0]).toBe(
      'ip daddr { 10.255.255.53/32 } meta l4proto { tcp, udp } th dport 53 accept',
    );
    expect(rules[1]).toBe('ip daddr { 127.0.0.1/32 } reject with icmpx admin-prohibited');
    expect(rules[2]).toMatch(
      /^ip daddr \{ 169\.254\.169\.254\/32, .*10\.0\.0\.0\/8.* \} reject with icmpx admin-prohibited$/,
    );
    expect(rules[3]).toMatch(
      /^ip6 daddr \{ .*::1\/128.*::ffff:7f00:0\/104.* \} reject with icmpx admin-prohibited$/,
    );
    expect(rules).toHaveLength(4);
  });

  it('accepts the ranges of an ALLOW_PRIVATE_TARGETS list before the refused ranges', () => {
    const rules = scannerRules(
      egressRuleset({ ...base, allowPrivateTargets: ['127.0.0.2/32', 'fd00:1::/64'] }),
    );
    expect(rules.slice(2, 4)).toEqual([
      'ip daddr { 127.0.0.2/32 } accept',
      'ip6 daddr { fd00:1::/64 } accept',
    ]);
    expect(rules[4]).toContain('127.0.0.0/8');
  });

  it('rejects only own addresses when ALLOW_PRIVATE_TARGETS is true', () => {
    const rules = scannerRules(
      egressRuleset({ ...base, allowPrivateTargets: true, ownAddresses: ['192.0.2.10', '::1'] }),
    );
    expect(rules).toEqual([
      'ip daddr { 10.255.255.53/32 } meta l4proto { tcp, udp } th dport 53 accept',
      'ip daddr { 192.0.2.10/32 } reject with icmpx admin-prohibited',
      'ip6 daddr { ::1/128 } reject with icmpx admin-prohibited',
    ]);
  });

  it('leaves out text that is not an address and removes zones', () => {
    const rules = scannerRules(
      egressRuleset({ ...base, ownAddresses: ['fe80::1%eth0', 'nonsense'], resolvers: [] }),
    );
    expect(rules[0]).toBe('ip6 daddr { fe80::1/128 } reject with icmpx admin-prohibited');
  });

  it.runIf(canCheckWithNft)('is a ruleset nft accepts (nft --check)', () => {
    for (const allowPrivateTargets of [false, true, ['127.0.0.2/32', 'fd00:1::/64']] as const) {
      const checked = spawnSync('nft', ['--check', '-f', '-'], {
        input: egressRuleset({ ...base, allowPrivateTargets, ownAddresses: ['::', '0.0.0.0'] }),
      });
      expect(checked.stderr.toString()).toBe('');
      expect(checked.status).toBe(0);
    }
    expect(
      spawnSync('nft', ['--check', '-f', '-'], { input: deleteEgressTable('rampart_unit') }).status,
    ).toBe(0);
  });
});

describe('resolversFromResolvConf', () => {
  it('reads the nameserver lines', () => {
    const text =
      '# generated\nsearch example.internal\nnameserver 10.255.255.53\nnameserver fe80::1%eth0\n  nameserver ::ffff:192.0.2.1\n';
    expect(resolversFromResolvConf(text)).toEqual(['10.255.255.53', 'fe80::1', '192.0.2.1']);
  });

  it('answers the local machine when none is configured, as the C library does', () => {
    expect(resolversFromResolvConf('search example.internal\n')).toEqual(['127.0.0.1', '::1']);
  });
});

describe('ownAddresses', () => {
  const interfaces = ['127.0.0.1', '::1', '192.0.2.10', 'fe80::5'];

  it('is the listening address itself when it is one', () => {
    expect(ownAddresses(['127.0.0.1'], interfaces)).toEqual(['127.0.0.1']);
    expect(ownAddresses(['192.0.2.10'], interfaces)).toEqual(['192.0.2.10']);
  });

  it('is every local address for a wildcard', () => {
    for (const wildcard of ['0.0.0.0', '::']) {
      expect(ownAddresses([wildcard], interfaces)).toEqual([
        '127.0.0.0/8',
        '::1',
        '127.0.0.1',
        '192.0.2.10',
        'fe80::5',
      ]);
    }
  });
});
