import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { buildNiktoArgv, niktoHasNocheck, niktoHostArgument, niktoReportFormat } from './argv.js';
import { type NiktoOptions, niktoOptionsSchema, niktoOptionsWithDefaults } from './options.js';

const OUT = '/tmp/rampart-nikto-1/report.json';
const FIXED = ['-ask', 'no', '-nointeractive', '-Display', 'P'];

function urlTarget(value: string): ScanTarget {
  return { type: 'url', value, host: new URL(value).hostname, hostIsAddress: false };
}

const DEFAULTS = niktoOptionsWithDefaults({});
const options = (overrides: Partial<NiktoOptions>): NiktoOptions => ({ ...DEFAULTS, ...overrides });

describe('buildNiktoArgv', () => {
  it.each<[string, NiktoOptions, string, string[]]>([
    [
      'defaults: tuning 123, no time limit, SSL decided by nikto',
      DEFAULTS,
      'https://app.example.com/',
      [
        '-host',
        'https://app.example.com/',
        '-Format',
        'json',
        '-output',
        OUT,
        '-Tuning',
        '123',
        ...FIXED,
      ],
    ],
    [
      'every option set, SSL forced',
      options({ tuning: 'x6', maxTime: '10m', ssl: true }),
      'https://app.example.com:8443/shop/',
      [
        '-host',
        'https://app.example.com:8443/shop/',
        '-Format',
        'json',
        '-output',
        OUT,
        '-Tuning',
        'x6',
        '-maxtime',
        '10m',
        '-ssl',
        ...FIXED,
      ],
    ],
    [
      'SSL off',
      options({ ssl: false, maxTime: '600s' }),
      'http://192.0.2.7:8080/',
      [
        '-host',
        'http://192.0.2.7:8080/',
        '-Format',
        'json',
        '-output',
        OUT,
        '-Tuning',
        '123',
        '-maxtime',
        '600s',
        '-nossl',
        ...FIXED,
      ],
    ],
    [
      'IPv6 literal keeps its brackets',
      DEFAULTS,
      'http://[2001:db8::7]:8080/app',
      [
        '-host',
        'http://[2001:db8::7]:8080/app',
        '-Format',
        'json',
        '-output',
        OUT,
        '-Tuning',
        '123',
        ...FIXED,
      ],
    ],
  ])('%s', (_name, opts, url, expected) => {
    expect(buildNiktoArgv(opts, urlTarget(url), { outputFile: OUT, version: '2.5.0' })).toEqual(
      expected,
    );
  });

  it('puts the target only as the value of -host, even if it looked like an option', () => {
    // Validation already refuses a leading dash; Getopt::Long (`host=s`) takes the next word as
    // the value whatever it is, and the URL parser would refuse this anyway.
    const target: ScanTarget = { type: 'url', value: '-o/etc/x', host: null, hostIsAddress: false };
    expect(() => buildNiktoArgv(DEFAULTS, target, { outputFile: OUT, version: '2.5.0' })).toThrow();
  });

  it.each(['host', 'domain', 'ip', 'network', 'image'] as const)('refuses a %s target', (type) => {
    const target: ScanTarget = {
      type,
      value: 'example.com',
      host: 'example.com',
      hostIsAddress: false,
    };
    expect(() => buildNiktoArgv(DEFAULTS, target, { outputFile: OUT, version: '2.5.0' })).toThrow(
      `nikto does not scan ${type} targets`,
    );
  });
});

describe('the nikto version decides the report format and -nocheck', () => {
  it.each<[string | null, 'json' | 'xml', boolean]>([
    // Debian bookworm's nikto: no JSON report plugin, no -nocheck.
    ['2.1.5', 'xml', false],
    ['2.1.4', 'xml', false],
    ['1.36', 'xml', false],
    // JSON arrived in 2.1.6.
    ['2.1.6', 'json', false],
    ['2.5.0', 'json', false],
    ['2.5', 'json', false],
    // 2.6 contacts cirt.net on every run unless -nocheck.
    ['2.6.0', 'json', true],
    ['2.6', 'json', true],
    ['2.10.1', 'json', true],
    ['3.0.0', 'json', true],
    // Unknown: XML (every nikto writes it), no flag an older nikto would refuse.
    [null, 'xml', false],
    ['', 'xml', false],
    ['unknown', 'xml', false],
  ])('%j: -Format %s, -nocheck %s', (version, format, nocheck) => {
    expect(niktoReportFormat(version)).toBe(format);
    expect(niktoHasNocheck(version)).toBe(nocheck);
    const argv = buildNiktoArgv(DEFAULTS, urlTarget('http://app.example.com/'), {
      outputFile: OUT,
      version,
    });
    expect(argv.slice(2, 6)).toEqual(['-Format', format, '-output', OUT]);
    expect(argv.includes('-nocheck')).toBe(nocheck);
  });

  it('2.1.5: XML, and nothing 2.1.5 does not have', () => {
    expect(
      buildNiktoArgv(options({ maxTime: '60s' }), urlTarget('http://app.example.com/'), {
        outputFile: OUT,
        version: '2.1.5',
      }),
    ).toEqual([
      '-host',
      'http://app.example.com/',
      '-Format',
      'xml',
      '-output',
      OUT,
      '-Tuning',
      '123',
      '-maxtime',
      '60s',
      ...FIXED,
    ]);
  });

  it('2.6: JSON, and -nocheck last', () => {
    expect(
      buildNiktoArgv(DEFAULTS, urlTarget('https://app.example.com/'), {
        outputFile: OUT,
        version: '2.6.0',
      }),
    ).toEqual([
      '-host',
      'https://app.example.com/',
      '-Format',
      'json',
      '-output',
      OUT,
      '-Tuning',
      '123',
      ...FIXED,
      '-nocheck',
    ]);
  });
});

describe('niktoHostArgument', () => {
  it.each([
    ['https://app.example.com', 'https://app.example.com/'],
    ['https://app.example.com:443/', 'https://app.example.com/'],
    ['http://app.example.com:8080/a/b/', 'http://app.example.com:8080/a/b/'],
    // nikto would read the part after a comma as a second target: encoded.
    ['https://app.example.com/a,evil.internal', 'https://app.example.com/a%2Cevil.internal'],
    // nikto ignores query and fragment (only the path becomes its -root): left out.
    ['https://app.example.com/login?next=/a,b#top', 'https://app.example.com/login'],
    ['https://app.example.com/;id', 'https://app.example.com/;id'],
  ])('%s → %s', (url, expected) => {
    expect(niktoHostArgument(url)).toBe(expected);
  });
});

describe('niktoOptionsWithDefaults', () => {
  it('fills in the specification defaults', () => {
    expect(niktoOptionsWithDefaults({})).toEqual({
      tuning: '123',
      maxTime: undefined,
      ssl: undefined,
    });
  });

  it('keeps given values', () => {
    const input = { tuning: '0abx', maxTime: '1h', ssl: false };
    expect(niktoOptionsWithDefaults(input)).toEqual(input);
  });
});

describe('niktoOptionsSchema', () => {
  const validate = new Ajv({ strict: false, useDefaults: true }).compile(niktoOptionsSchema);

  it('fills the tuning default', () => {
    const options: Record<string, unknown> = {};
    expect(validate(options)).toBe(true);
    expect(options).toEqual({ tuning: '123' });
  });

  it.each([
    [{ tuning: '1234567890abcde' }],
    [{ tuning: 'x' }],
    [{ maxTime: '600s' }],
    [{ maxTime: '10m' }],
    [{ ssl: true }],
  ])('accepts %j', (options) => {
    expect(validate(options)).toBe(true);
  });

  it.each([
    ['a tuning letter nikto does not have', { tuning: 'f' }],
    ['an upper-case tuning letter', { tuning: 'A' }],
    ['an option in tuning', { tuning: '-x' }],
    ['a space in tuning', { tuning: '1 2' }],
    ['a comma list in tuning', { tuning: '1,2' }],
    ['an empty tuning', { tuning: '' }],
    ['21 tuning letters', { tuning: '1'.repeat(21) }],
    ['a bare number of seconds', { maxTime: '600' }],
    ['a duration with a space', { maxTime: '10 m' }],
    ['an option as duration', { maxTime: '-1h' }],
    ['ssl as a string', { ssl: 'yes' }],
    ['an unknown option', { port: 8080 }],
  ])('refuses %s', (_name, options) => {
    expect(validate(options)).toBe(false);
  });
});
