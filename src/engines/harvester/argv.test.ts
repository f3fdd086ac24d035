import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { checkEngineOptions } from '../validate-options.js';
import { buildHarvesterArgv } from './argv.js';
import { harvesterEngine } from './engine.js';
import {
  HARVESTER_PUBLIC_SOURCES,
  HARVESTER_SOURCES,
  type HarvesterOptions,
  harvesterOptionsSchema,
  harvesterOptionsWithDefaults,
} from './options.js';

const REPORT = '/tmp/rampart-harvester-x1y2z3/report.json';
const PUBLIC =
  '--source=baidu,certspotter,crtsh,duckduckgo,hackertarget,otx,rapiddns,subdomaincenter,urlscan,yahoo';

function domain(value: string): ScanTarget {
  return { type: 'domain', value, host: value, hostIsAddress: false };
}

const DEFAULTS = harvesterOptionsWithDefaults({});
const options = (overrides: Partial<HarvesterOptions>): HarvesterOptions => ({
  ...DEFAULTS,
  ...overrides,
});

describe('buildHarvesterArgv', () => {
  it.each<[string, HarvesterOptions, string, string[]]>([
    [
      'defaults: the public sources, limit 200, no active DNS',
      DEFAULTS,
      'example.com',
      ['--domain=example.com', PUBLIC, '--limit=200', `--filename=${REPORT}`],
    ],
    [
      'chosen sources keep their order; both DNS actions on',
      options({
        sources: ['otx', 'crtsh', 'securityTrails'],
        limit: 5000,
        dnsLookup: true,
        dnsBrute: true,
      }),
      'corp.example.org',
      [
        '--domain=corp.example.org',
        '--source=otx,crtsh,securityTrails',
        '--limit=5000',
        '--dns-lookup',
        '--dns-brute',
        `--filename=${REPORT}`,
      ],
    ],
    [
      'one source, DNS brute force only',
      options({ sources: ['github-code'], limit: 1, dnsBrute: true }),
      'example.com',
      [
        '--domain=example.com',
        '--source=github-code',
        '--limit=1',
        '--dns-brute',
        `--filename=${REPORT}`,
      ],
    ],
    [
      'reverse lookup only',
      options({ dnsLookup: true }),
      'xn--bcher-kva.example',
      [
        '--domain=xn--bcher-kva.example',
        PUBLIC,
        '--limit=200',
        '--dns-lookup',
        `--filename=${REPORT}`,
      ],
    ],
  ])('%s', (_name, opts, value, expected) => {
    expect(buildHarvesterArgv(opts, domain(value), { reportPath: REPORT })).toEqual(expected);
  });

  it('glues the domain to --domain=, so even a value that looked like an option stays one value', () => {
    // Target validation already refuses a leading dash; argparse reads `--domain=-x` as the
    // value "-x" of --domain, so this is the second fence.
    const argv = buildHarvesterArgv(DEFAULTS, domain('-b'), { reportPath: REPORT });
    expect(argv[0]).toBe('--domain=-b');
    expect(argv.filter((argument) => argument === '-b')).toEqual([]);
  });

  it.each(['host', 'ip', 'url', 'network', 'image'] as const)('refuses a %s target', (type) => {
    const target: ScanTarget = { type, value: '10.0.0.1', host: '10.0.0.1', hostIsAddress: true };
    expect(() => buildHarvesterArgv(DEFAULTS, target, { reportPath: REPORT })).toThrow(
      `theHarvester does not scan ${type} targets`,
    );
  });

  it('is what the engine builds from validated options with the schema defaults filled in', () => {
    const checked = checkEngineOptions(harvesterEngine, { dnsLookup: true });
    expect(checked.ok).toBe(true);
    const argv = harvesterEngine.command?.buildArgv(
      checked.ok ? checked.options : {},
      domain('example.com'),
      {
        reportPath: REPORT,
        workDir: '/tmp/rampart-harvester-x1y2z3',
        privileged: true,
        pin: { address: null, privateTargetsAllowed: false },
      },
    );
    expect(argv).toEqual([
      '--domain=example.com',
      PUBLIC,
      '--limit=200',
      '--dns-lookup',
      `--filename=${REPORT}`,
    ]);
  });
});

describe('harvesterOptionsWithDefaults', () => {
  it('fills in the specification defaults: every source without an API key', () => {
    expect(harvesterOptionsWithDefaults({})).toEqual({
      sources: HARVESTER_PUBLIC_SOURCES,
      limit: 200,
      dnsLookup: false,
      dnsBrute: false,
    });
  });

  it('keeps given values', () => {
    const input = { sources: ['hunter', 'crtsh'], limit: 10, dnsLookup: true, dnsBrute: true };
    expect(harvesterOptionsWithDefaults(input)).toEqual(input);
  });

  it('narrows what validation would refuse instead of passing it on', () => {
    expect(
      harvesterOptionsWithDefaults({ sources: ['crtsh', 'crtsh', '-x', 7], limit: 1.5 }),
    ).toMatchObject({ sources: ['crtsh'], limit: 200 });
    expect(harvesterOptionsWithDefaults({ sources: ['all'] }).sources).toEqual(
      HARVESTER_PUBLIC_SOURCES,
    );
  });
});

describe('harvesterOptionsSchema', () => {
  const ajv = new Ajv({ strict: false, useDefaults: true });
  const validate = ajv.compile(harvesterOptionsSchema);

  it('puts the public sources in as the default', () => {
    const input: Record<string, unknown> = {};
    expect(validate(input)).toBe(true);
    expect(input).toEqual({
      sources: [...HARVESTER_PUBLIC_SOURCES],
      limit: 200,
      dnsLookup: false,
      dnsBrute: false,
    });
  });

  it('the public sources are real source names', () => {
    for (const source of HARVESTER_PUBLIC_SOURCES) {
      expect(HARVESTER_SOURCES).toContain(source);
    }
  });

  it.each([
    [['crtsh']],
    [['securityTrails', 'shodanInternetDB', 'github-code']],
    [[...HARVESTER_SOURCES]],
  ])('accepts sources %j', (sources) => {
    expect(validate({ sources })).toBe(true);
  });

  it.each([
    ['"all" (it would run every keyed source)', ['all']],
    ['a capability selector', ['subdomains']],
    ['a comma list in one item', ['crtsh,otx']],
    ['a wrong case', ['securitytrails']],
    ['a removed source', ['google']],
    ['an option', ['-x']],
    ['a path', ['../crtsh']],
    ['an empty list', []],
    ['a duplicate', ['crtsh', 'crtsh']],
    ['an empty name', ['']],
  ])('refuses %s', (_name, sources) => {
    expect(validate({ sources })).toBe(false);
  });

  it.each([0, 5001, 2.5, '200'])('refuses the limit %j', (limit) => {
    expect(validate({ limit })).toBe(false);
  });

  it('refuses unknown options', () => {
    expect(validate({ exclude: 'crtsh' })).toBe(false);
  });
});
