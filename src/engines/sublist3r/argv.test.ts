import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { checkEngineOptions } from '../validate-options.js';
import { buildSublist3rArgv, isSublist3rDomain } from './argv.js';
import { sublist3rEngine } from './engine.js';
import {
  SUBLIST3R_ENGINES,
  type Sublist3rOptions,
  sublist3rOptionsSchema,
  sublist3rOptionsWithDefaults,
} from './options.js';

const OUT = '/tmp/rampart-scan-1/subdomains.txt';
const ALL =
  '--engines=baidu,yahoo,google,bing,ask,netcraft,dnsdumpster,virustotal,threatcrowd,ssl,passivedns';
const TAIL = [`--output=${OUT}`, '--no-color'];

function target(type: ScanTarget['type'], value: string): ScanTarget {
  return { type, value, host: value, hostIsAddress: false };
}

const DEFAULTS = sublist3rOptionsWithDefaults({});
const options = (overrides: Partial<Sublist3rOptions>): Sublist3rOptions => ({
  ...DEFAULTS,
  ...overrides,
});
const build = (opts: Sublist3rOptions, value = 'example.com') =>
  buildSublist3rArgv(opts, target('domain', value), { outputFile: OUT });

describe('buildSublist3rArgv', () => {
  it.each<[string, Sublist3rOptions, string, string[]]>([
    [
      'defaults: every engine named, 10 threads',
      DEFAULTS,
      'example.com',
      ['--domain=example.com', ALL, '--threads=10', ...TAIL],
    ],
    [
      'two engines, brute force, ports, 25 threads',
      options({ engines: ['ssl', 'virustotal'], bruteforce: true, ports: '80,443', threads: 25 }),
      'corp.example.org',
      [
        '--domain=corp.example.org',
        '--engines=ssl,virustotal',
        '--bruteforce',
        '--threads=25',
        '--ports=80,443',
        ...TAIL,
      ],
    ],
    [
      'one engine, one port',
      options({ engines: ['passivedns'], ports: '8443' }),
      'a-b.example.co',
      ['--domain=a-b.example.co', '--engines=passivedns', '--threads=10', '--ports=8443', ...TAIL],
    ],
    [
      'a deep, upper-case name is passed as written',
      options({ engines: ['bing'] }),
      'Dev.Apps.Example.COM',
      ['--domain=Dev.Apps.Example.COM', '--engines=bing', '--threads=10', ...TAIL],
    ],
  ])('%s', (_name, opts, domain, expected) => {
    expect(build(opts, domain)).toEqual(expected);
  });

  it('glues the domain to --domain=: it is one argument, and only that one names it', () => {
    const argv = build(DEFAULTS, 'corp.example.com');
    expect(argv[0]).toBe('--domain=corp.example.com');
    expect(argv.filter((argument) => argument.includes('corp.example.com'))).toHaveLength(1);
  });

  it('refuses a dash-led value even if one got past the target grammar', () => {
    expect(() => build(DEFAULTS, '-x.example.com')).toThrow('sublist3r refuses the domain');
  });

  it('never ends with --bruteforce, so no argument can be taken as its optional value', () => {
    const argv = build(options({ bruteforce: true }));
    const at = argv.indexOf('--bruteforce');
    expect(at).toBeGreaterThan(0);
    expect(argv[at + 1]?.startsWith('--')).toBe(true);
  });

  it.each(['url', 'host', 'ip', 'network', 'image'] as const)('refuses a %s target', (type) => {
    expect(() =>
      buildSublist3rArgv(DEFAULTS, target(type, 'example.com'), { outputFile: OUT }),
    ).toThrow(`sublist3r does not scan ${type} targets`);
  });

  it.each([
    'xn--bcher-kva.example',
    'a--b.example.com',
    'example.xn--p1ai',
    'example.c0m',
    'example.c',
  ])('refuses %s, which sublist3r would reject with exit code 0', (domain) => {
    expect(() => build(DEFAULTS, domain)).toThrow(`sublist3r refuses the domain "${domain}"`);
  });
});

describe('isSublist3rDomain', () => {
  it.each([
    'example.com',
    'a.b.c.example.co.uk',
    'x1.example.io',
    'a-b-c.example.com',
    'EXAMPLE.COM',
  ])('accepts %s', (name) => {
    expect(isSublist3rDomain(name)).toBe(true);
  });

  it.each(['example', '-a.example.com', 'a-.example.com', 'a_b.example.com', 'example.com.', ''])(
    'refuses %j',
    (name) => {
      expect(isSublist3rDomain(name)).toBe(false);
    },
  );
});

describe('sublist3rOptionsWithDefaults', () => {
  it('fills in the specification defaults: all engines, no brute force, 10 threads', () => {
    expect(sublist3rOptionsWithDefaults({})).toEqual({
      engines: [...SUBLIST3R_ENGINES],
      bruteforce: false,
      ports: undefined,
      threads: 10,
    });
  });

  it('keeps given values', () => {
    const input = { engines: ['ssl', 'bing'], bruteforce: true, ports: '22,80', threads: 50 };
    expect(sublist3rOptionsWithDefaults(input)).toEqual(input);
  });
});

describe('sublist3rOptionsSchema', () => {
  const validate = new Ajv({ strict: false }).compile(sublist3rOptionsSchema);

  it('checkEngineOptions fills the defaults that the scan detail shows', () => {
    expect(checkEngineOptions(sublist3rEngine, {})).toEqual({
      ok: true,
      options: { engines: [...SUBLIST3R_ENGINES], bruteforce: false, threads: 10 },
    });
  });

  it.each([
    ['every engine', { engines: [...SUBLIST3R_ENGINES] }],
    ['one engine', { engines: ['threatcrowd'] }],
    ['one port', { ports: '1' }],
    ['the highest port', { ports: '65535' }],
    ['a port list', { ports: '22,80,443,8080,65000' }],
    ['100 ports', { ports: Array.from({ length: 100 }, (_, i) => String(i + 1)).join(',') }],
    ['threads at the bounds', { threads: 1, bruteforce: true }],
    ['50 threads', { threads: 50 }],
  ])('accepts %s', (_name, input) => {
    expect(validate(input)).toBe(true);
  });

  it.each([
    ['an unknown engine', { engines: ['duckduckgo'] }],
    ['an upper-case engine', { engines: ['Google'] }],
    ['a comma list in one item', { engines: ['ssl,bing'] }],
    ['an empty engine list', { engines: [] }],
    ['a repeated engine', { engines: ['ssl', 'ssl'] }],
    ['a port range', { ports: '1-1024' }],
    ['a T: prefix', { ports: 'T:80' }],
    ['port 0', { ports: '0' }],
    ['port 65536', { ports: '65536' }],
    ['a leading zero', { ports: '080' }],
    ['a trailing comma', { ports: '80,' }],
    ['a space', { ports: '80, 443' }],
    ['an option', { ports: '--help' }],
    ['101 ports', { ports: Array.from({ length: 101 }, (_, i) => String(i + 1)).join(',') }],
    ['0 threads', { threads: 0 }],
    ['51 threads', { threads: 51 }],
    ['fractional threads', { threads: 2.5 }],
    ['a string for bruteforce', { bruteforce: 'yes' }],
    ['an unknown key', { verbose: true }],
  ])('refuses %s', (_name, input) => {
    expect(validate(input)).toBe(false);
  });
});
