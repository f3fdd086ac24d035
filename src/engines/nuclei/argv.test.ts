import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { buildNucleiArgv, nucleiTargetValue } from './argv.js';
import { type NucleiOptions, nucleiOptionsSchema, nucleiOptionsWithDefaults } from './options.js';

const REPORT = '/tmp/rampart-nuclei-1/report.jsonl';
const FIXED = [
  '-jsonl',
  `-o=${REPORT}`,
  '-silent',
  '-nc',
  '-duc',
  '-stats',
  '-sj',
  '-si=2',
  '-ud=/opt/nuclei-templates',
  '-ni',
  '-lna',
];
const ALL_SEVERITIES = '-severity=info,low,medium,high,critical,unknown';

function target(type: ScanTarget['type'], value: string, host: string | null = value): ScanTarget {
  return { type, value, host, hostIsAddress: type === 'ip' };
}

const DEFAULTS = nucleiOptionsWithDefaults({});
const options = (overrides: Partial<NucleiOptions>): NucleiOptions => ({
  ...DEFAULTS,
  ...overrides,
});
const build = (opts: NucleiOptions, scanTarget: ScanTarget) =>
  buildNucleiArgv(opts, scanTarget, { reportPath: REPORT, privateTargetsAllowed: false });

describe('buildNucleiArgv', () => {
  it.each<[string, NucleiOptions, ScanTarget, string[]]>([
    [
      'defaults, URL',
      DEFAULTS,
      target('url', 'https://example.com/app', 'example.com'),
      [
        '-u=https://example.com/app',
        ...FIXED,
        '-t=http/cves/',
        '-t=network/cves/',
        ALL_SEVERITIES,
        '-c=25',
        '-rl=150',
      ],
    ],
    [
      'defaults, host name',
      DEFAULTS,
      target('host', 'intranet'),
      [
        '-u=intranet',
        ...FIXED,
        '-t=http/cves/',
        '-t=network/cves/',
        ALL_SEVERITIES,
        '-c=25',
        '-rl=150',
      ],
    ],
    [
      'every option set, domain',
      options({
        templates: ['exposures', 'misconfiguration', 'dns', 'ssl'],
        severity: ['high', 'critical'],
        tags: ['cve2021', 'log4j'],
        excludeTags: ['intrusive', 'dos'],
        concurrency: 5,
        rateLimit: 20,
      }),
      target('domain', 'example.org'),
      [
        '-u=example.org',
        ...FIXED,
        '-t=http/exposures/',
        '-t=http/misconfiguration/',
        '-t=dns/',
        '-t=ssl/',
        '-severity=high,critical',
        '-tags=cve2021,log4j',
        '-etags=intrusive,dos',
        '-c=5',
        '-rl=20',
      ],
    ],
    [
      'IPv4 address',
      options({ templates: ['network'], severity: ['info'] }),
      target('ip', '192.0.2.10'),
      ['-u=192.0.2.10', ...FIXED, '-t=network/', '-severity=info', '-c=25', '-rl=150'],
    ],
    [
      'IPv6 address',
      options({ templates: ['ssl'], severity: ['low'] }),
      target('ip', '2001:db8::5'),
      ['-u=2001:db8::5', ...FIXED, '-t=ssl/', '-severity=low', '-c=25', '-rl=150'],
    ],
    [
      'a URL with commas: encoded so goflags cannot split it',
      options({ templates: ['technologies'] }),
      target('url', 'https://example.com/a?ids=1,2,3', 'example.com'),
      [
        '-u=https://example.com/a?ids=1%2C2%2C3',
        ...FIXED,
        '-t=http/technologies/',
        ALL_SEVERITIES,
        '-c=25',
        '-rl=150',
      ],
    ],
  ])('%s', (_name, opts, scanTarget, expected) => {
    expect(build(opts, scanTarget)).toEqual(expected);
  });

  it('keeps -ni but leaves -lna out when private targets are allowed', () => {
    const argv = buildNucleiArgv(DEFAULTS, target('ip', '10.0.0.5'), {
      reportPath: REPORT,
      privateTargetsAllowed: true,
    });
    expect(argv).toContain('-ni');
    expect(argv).not.toContain('-lna');
    expect(argv).toEqual(build(DEFAULTS, target('ip', '10.0.0.5')).filter((a) => a !== '-lna'));
  });

  it('glues every value to its flag, so none can stand as a flag of its own', () => {
    const argv = build(
      options({ tags: ['a'], excludeTags: ['b'] }),
      target('host', '-oN', '-oN'), // validation refuses this; the builder still keeps it inert
    );
    expect(argv[0]).toBe('-u=-oN');
    expect(argv.every((arg) => /^-[a-z]+(=.*)?$/.test(arg))).toBe(true);
    expect(argv).not.toContain('-oN');
  });

  it('runs each template directory once', () => {
    const argv = build(options({ templates: ['cves', 'network'] }), target('host', 'h'));
    expect(argv.filter((arg) => arg.startsWith('-t='))).toEqual([
      '-t=http/cves/',
      '-t=network/cves/',
      '-t=network/',
    ]);
  });

  it.each(['network', 'image'] as const)('refuses %s targets', (type) => {
    expect(() => build(DEFAULTS, target(type, '10.0.0.0/24'))).toThrow(
      `nuclei does not scan ${type} targets`,
    );
  });

  it.each(['AS15169', 'as13335', 'As1'])(
    'refuses %s, which nuclei would expand to an AS address space',
    (value) => {
      expect(() => build(DEFAULTS, target('host', value))).toThrow('autonomous system number');
    },
  );

  it('keeps names that merely start like an ASN', () => {
    expect(build(DEFAULTS, target('host', 'as15169x'))[0]).toBe('-u=as15169x');
  });
});

describe('nucleiTargetValue', () => {
  it('encodes commas only', () => {
    expect(nucleiTargetValue(target('url', 'https://e.com/p?a=\'x\',"y"&b=`z`', 'e.com'))).toBe(
      'https://e.com/p?a=\'x\'%2C"y"&b=`z`',
    );
  });
});

describe('nucleiOptionsWithDefaults', () => {
  it('fills in the specification defaults', () => {
    expect(nucleiOptionsWithDefaults({})).toEqual({
      templates: ['cves'],
      severity: ['info', 'low', 'medium', 'high', 'critical', 'unknown'],
      concurrency: 25,
      rateLimit: 150,
      tags: [],
      excludeTags: [],
    });
  });

  it('keeps given values', () => {
    const input = {
      templates: ['dns', 'ssl'],
      severity: ['critical'],
      concurrency: 3,
      rateLimit: 9,
      tags: ['rce'],
      excludeTags: ['dos'],
    };
    expect(nucleiOptionsWithDefaults(input)).toEqual(input);
  });
});

describe('nucleiOptionsSchema', () => {
  const ajv = new Ajv({ strict: false, useDefaults: true });
  const validate = ajv.compile(nucleiOptionsSchema);

  it.each([
    [{}],
    [{ templates: ['cves', 'exposures', 'default-logins'] }],
    [{ severity: ['critical', 'unknown'] }],
    [{ tags: ['cve', 'cve2021', 'default-login', 'wp_plugin'], excludeTags: ['dos'] }],
    [{ concurrency: 100, rateLimit: 1000 }],
  ])('accepts %j', (input) => {
    expect(validate(input)).toBe(true);
  });

  it.each([
    ['a template path', { templates: ['/etc/passwd'] }],
    ['a relative template path', { templates: ['http/cves/'] }],
    ['code templates', { templates: ['code'] }],
    ['file templates', { templates: ['file'] }],
    ['workflows', { templates: ['workflows'] }],
    ['no template category', { templates: [] }],
    ['a duplicate category', { templates: ['cves', 'cves'] }],
    ['an upper-case severity', { severity: ['CRITICAL'] }],
    ['an unknown severity', { severity: ['severe'] }],
    ['an empty severity filter', { severity: [] }],
    ['a tag with a comma', { tags: ['cve,rce'] }],
    ['a tag that is a flag', { tags: ['-code'] }],
    ['a tag with a space', { tags: ['a b'] }],
    ['a tag with a newline', { excludeTags: ['a\nb'] }],
    ['a tag with a semicolon', { tags: ['a;id'] }],
    ['a tag with $()', { tags: ['$(id)'] }],
    ['a tag with backticks', { tags: ['`id`'] }],
    ['a tag that is a path', { tags: ['../x'] }],
    ['a tag with a dot', { tags: ['tags.txt'] }],
    ['an upper-case tag', { tags: ['CVE'] }],
    ['a 10 000-character tag', { tags: ['a'.repeat(10_000)] }],
    ['concurrency 0', { concurrency: 0 }],
    ['concurrency 101', { concurrency: 101 }],
    ['a rate limit of 1001', { rateLimit: 1001 }],
    ['a string number', { rateLimit: '150' }],
    ['an unknown option', { templatesDir: '/tmp' }],
  ])('refuses %s', (_name, input) => {
    expect(validate(input)).toBe(false);
  });
});
