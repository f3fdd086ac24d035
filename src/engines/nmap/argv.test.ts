import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { buildNmapArgv } from './argv.js';
import { type NmapOptions, nmapOptionsSchema, nmapOptionsWithDefaults } from './options.js';

const OUT = '/tmp/rampart-scan-1/nmap.xml';
/** The address the worker checked for a name target (ignored for addresses and networks). */
const PINNED = '192.0.2.10';
const NEVER = 'and not (broadcast or dos or external)';
const TAIL = ['--stats-every', '2s', '--no-stylesheet', '-oX', OUT, '--'];

function target(type: ScanTarget['type'], value: string): ScanTarget {
  const host = type === 'network' ? (value.split('/')[0] ?? value) : value;
  return { type, value, host, hostIsAddress: type === 'ip' || type === 'network' };
}

const DEFAULTS = nmapOptionsWithDefaults({});
const options = (overrides: Partial<NmapOptions>): NmapOptions => ({ ...DEFAULTS, ...overrides });

describe('buildNmapArgv', () => {
  it.each<[string, NmapOptions, ScanTarget, boolean, string[]]>([
    [
      'defaults, unprivileged, IPv4 address',
      DEFAULTS,
      target('ip', '10.0.0.5'),
      false,
      ['-sT', '-T3', '-p', '1-1024', '-sV', '-Pn', ...TAIL, '10.0.0.5'],
    ],
    [
      'defaults, privileged: SYN scan',
      DEFAULTS,
      target('ip', '10.0.0.5'),
      true,
      ['-sS', '-T3', '-p', '1-1024', '-sV', '-Pn', ...TAIL, '10.0.0.5'],
    ],
    [
      'every switch on, with scripts',
      options({
        ports: 'U:53,T:22,80',
        timing: 'T4',
        osDetection: true,
        scriptScan: true,
        scripts: ['vuln', 'http-title'],
        udpScan: true,
      }),
      target('host', 'db.internal.example'),
      true,
      [
        '-sS',
        '-sU',
        '-T4',
        '-p',
        'U:53,T:22,80',
        '-sV',
        '-O',
        `--script=(default or vuln or http-title) ${NEVER}`,
        '-Pn',
        '-n',
        ...TAIL,
        PINNED,
      ],
    ],
    [
      'every switch off',
      options({ timing: 'T0', serviceDetection: false }),
      target('domain', 'example.com'),
      false,
      ['-sT', '-T0', '-p', '1-1024', '-Pn', '-n', ...TAIL, PINNED],
    ],
    [
      'topPorts replaces the port list',
      options({ topPorts: 100, ports: '1-65535' }),
      target('ip', '192.0.2.7'),
      false,
      ['-sT', '-T3', '--top-ports', '100', '-sV', '-Pn', ...TAIL, '192.0.2.7'],
    ],
    [
      'CIDR range: host discovery stays on (no -Pn)',
      DEFAULTS,
      target('network', '10.0.0.0/24'),
      true,
      ['-sS', '-T3', '-p', '1-1024', '-sV', ...TAIL, '10.0.0.0/24'],
    ],
    [
      'IPv6 address: -6',
      options({ serviceDetection: false, ports: '22' }),
      target('ip', '2001:db8::5'),
      false,
      ['-sT', '-T3', '-p', '22', '-Pn', '-6', ...TAIL, '2001:db8::5'],
    ],
    [
      'IPv6 range: -6 and no -Pn',
      options({ serviceDetection: false, ports: '22' }),
      target('network', '2001:db8::/120'),
      false,
      ['-sT', '-T3', '-p', '22', '-6', ...TAIL, '2001:db8::/120'],
    ],
    [
      'a host name is scanned at its checked IPv4 address with -Pn and -n, without -6',
      options({ ports: '443' }),
      target('host', 'scanme.example.org'),
      false,
      ['-sT', '-T3', '-p', '443', '-sV', '-Pn', '-n', ...TAIL, PINNED],
    ],
    [
      'scriptScan alone: default, wrapped',
      options({ scriptScan: true, serviceDetection: false }),
      target('ip', '192.0.2.7'),
      false,
      ['-sT', '-T3', '-p', '1-1024', `--script=(default) ${NEVER}`, '-Pn', ...TAIL, '192.0.2.7'],
    ],
    [
      'scripts alone, default named twice: each name once, wrapped',
      options({ scriptScan: true, scripts: ['default', 'safe'], serviceDetection: false }),
      target('ip', '192.0.2.7'),
      false,
      [
        '-sT',
        '-T3',
        '-p',
        '1-1024',
        `--script=(default or safe) ${NEVER}`,
        '-Pn',
        ...TAIL,
        '192.0.2.7',
      ],
    ],
  ])('%s', (_name, opts, scanTarget, privileged, expected) => {
    expect(
      buildNmapArgv(opts, scanTarget, { outputFile: OUT, privileged, pinnedAddress: PINNED }),
    ).toEqual(expected);
  });

  it.each<[string, ScanTarget, string, string[]]>([
    ['an IPv4 address', target('domain', 'example.com'), '203.0.113.5', ['-Pn', '-n']],
    ['an IPv6 address, with -6', target('host', 'v6only'), '2001:db8::5', ['-Pn', '-n', '-6']],
  ])('scans a name pinned to %s without resolving it', (_name, scanTarget, address, flags) => {
    const argv = buildNmapArgv(options({ serviceDetection: false }), scanTarget, {
      outputFile: OUT,
      privileged: false,
      pinnedAddress: address,
    });
    expect(argv).toEqual(['-sT', '-T3', '-p', '1-1024', ...flags, ...TAIL, address]);
    expect(argv).not.toContain(scanTarget.value);
  });

  it('refuses a name the worker checked no address for', () => {
    expect(() =>
      buildNmapArgv(DEFAULTS, target('domain', 'example.com'), {
        outputFile: OUT,
        privileged: false,
        pinnedAddress: null,
      }),
    ).toThrow('no address was checked for example.com; nmap scans a name only there');
  });

  it('puts the target alone after -- even if it looked like an option', () => {
    // Validation already refuses a leading dash; this is the second fence.
    const argv = buildNmapArgv(DEFAULTS, target('ip', '-oN/etc/x'), {
      outputFile: OUT,
      privileged: false,
      pinnedAddress: null,
    });
    expect(argv.slice(-2)).toEqual(['--', '-oN/etc/x']);
    expect(argv.indexOf('--')).toBe(argv.length - 2);
  });

  it.each(['url', 'image'] as const)('refuses a %s target', (type) => {
    expect(() =>
      buildNmapArgv(DEFAULTS, target(type, 'https://example.com/'), {
        outputFile: OUT,
        privileged: false,
        pinnedAddress: PINNED,
      }),
    ).toThrow(`nmap does not scan ${type} targets`);
  });
});

describe('nmapOptionsWithDefaults', () => {
  it('fills in the specification defaults', () => {
    expect(nmapOptionsWithDefaults({})).toEqual({
      ports: '1-1024',
      timing: 'T3',
      serviceDetection: true,
      osDetection: false,
      scriptScan: false,
      scripts: [],
      udpScan: false,
      topPorts: undefined,
    });
  });

  it('keeps given values', () => {
    const input = {
      ports: '22',
      timing: 'T5',
      serviceDetection: false,
      osDetection: true,
      scriptScan: true,
      scripts: ['safe'],
      udpScan: true,
      topPorts: 10,
    };
    expect(nmapOptionsWithDefaults(input)).toEqual(input);
  });
});

describe('nmapOptionsSchema scripts', () => {
  const ajv = new Ajv({ strict: false });
  const validate = ajv.compile(nmapOptionsSchema);

  it.each([
    [['vuln']],
    [['default', 'safe', 'discovery']],
    [['http-title', 'smb-vuln-ms17-010', 'ssl_enum']],
    [['vulners']],
    [Array.from({ length: 100 }, (_, i) => `s${i}`)],
  ])('accepts NSE names %j', (scripts) => {
    expect(validate({ scripts })).toBe(true);
  });

  it.each([
    ['a path', ['/tmp/evil.nse']],
    ['a relative file', ['evil.nse']],
    ['a directory', ['scripts/']],
    ['a glob', ['http-*']],
    ['a comma list in one item', ['vuln,exploit']],
    ['a boolean expression', ['not intrusive']],
    ['an option', ['--script-args=x']],
    ['a leading dash', ['-x']],
    ['upper case', ['Vuln']],
    ['an empty name', ['']],
    ['a 65-character name', ['a'.repeat(65)]],
    ['the all category (every script there is)', ['all']],
    ['the broadcast category', ['broadcast']],
    ['a broadcast- script', ['broadcast-avahi-dos']],
    ['the dos category', ['dos']],
    ['the external category', ['external']],
    ['an operator word (and)', ['http-title', 'and']],
    ['an operator word (or)', ['or']],
    ['an operator word (not)', ['not', 'intrusive']],
    ['101 items', Array.from({ length: 101 }, (_, i) => `s${i}`)],
  ])('refuses %s', (_name, scripts) => {
    expect(validate({ scripts })).toBe(false);
  });
});
