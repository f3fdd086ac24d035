import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { buildWapitiArgv, modulesToRun, timeShares } from './argv.js';
import {
  durationSeconds,
  WAPITI_DEFAULT_MODULES,
  WAPITI_MODULES,
  type WapitiOptions,
  wapitiOptionsSchema,
  wapitiOptionsWithDefaults,
} from './options.js';

const WS = '/tmp/rampart-wapiti-Ab12Cd';
const CONTEXT = { reportPath: `${WS}/report.json`, workDir: WS };
const TAIL = [
  '--format=json',
  `--output=${WS}/report.json`,
  `--store-session=${WS}/session`,
  `--store-config=${WS}/config`,
  '--flush-session',
  '--no-bugreport',
  '--verbose=1',
];

function url(value: string): ScanTarget {
  return { type: 'url', value, host: new URL(value).hostname, hostIsAddress: false };
}

const DEFAULTS = wapitiOptionsWithDefaults({});
const options = (overrides: Partial<WapitiOptions>): WapitiOptions => ({
  ...DEFAULTS,
  ...overrides,
});

describe('buildWapitiArgv', () => {
  it.each<[string, WapitiOptions, string, string[]]>([
    [
      'defaults: no -m (wapiti default modules), domain scope run as the host, depth 3',
      DEFAULTS,
      'https://shop.example/',
      [
        '--url=https://shop.example/',
        '--scope=folder',
        '--start=https://shop.example/',
        '--depth=3',
        ...TAIL,
      ],
    ],
    [
      'domain scope of a URL below the root: the origin as base, the URL as start',
      DEFAULTS,
      'http://127.0.0.1:8080/app/page?q=1',
      [
        '--url=http://127.0.0.1:8080/',
        '--scope=folder',
        '--start=http://127.0.0.1:8080/app/page?q=1',
        '--depth=3',
        ...TAIL,
      ],
    ],
    [
      "wapiti's own folder scope keeps the target as base",
      options({ scope: 'folder' }),
      'https://shop.example/app/',
      ['--url=https://shop.example/app/', '--scope=folder', '--depth=3', ...TAIL],
    ],
    [
      'modules, scope and depth',
      options({ modules: ['xss', 'sql'], scope: 'folder', maxDepth: 1 }),
      'http://127.0.0.1:8080/app/',
      [
        '--url=http://127.0.0.1:8080/app/',
        '--scope=folder',
        '--depth=1',
        '--module=xss,sql',
        ...TAIL,
      ],
    ],
    [
      'maxTime with the default modules: 12 shares of 600 s',
      options({ maxTimeSeconds: 600 }),
      'https://shop.example/',
      [
        '--url=https://shop.example/',
        '--scope=folder',
        '--start=https://shop.example/',
        '--depth=3',
        '--max-scan-time=50',
        '--max-attack-time=50',
        ...TAIL,
      ],
    ],
    [
      'maxTime with two modules: crawl + 2 modules share 90 s',
      options({ modules: ['sql', 'xss'], maxTimeSeconds: 90, scope: 'url', maxDepth: 0 }),
      'https://shop.example/item?id=1',
      [
        '--url=https://shop.example/item?id=1',
        '--scope=url',
        '--depth=0',
        '--module=sql,xss',
        '--max-scan-time=30',
        '--max-attack-time=30',
        ...TAIL,
      ],
    ],
    [
      'permanentxss brings xss along, duplicates run once',
      options({ modules: ['permanentxss', 'sql', 'sql'], scope: 'page' }),
      'https://shop.example/',
      [
        '--url=https://shop.example/',
        '--scope=page',
        '--depth=3',
        '--module=xss,permanentxss,sql',
        ...TAIL,
      ],
    ],
  ])('%s', (_name, opts, target, expected) => {
    expect(buildWapitiArgv(opts, url(target), CONTEXT)).toEqual(expected);
  });

  it('glues the target to --url= so it can never be read as an option', () => {
    // Validation refuses a leading dash; this is the second fence.
    const target: ScanTarget = { type: 'url', value: '-m exec', host: null, hostIsAddress: false };
    const argv = buildWapitiArgv(DEFAULTS, target, CONTEXT);
    expect(argv[0]).toBe('--url=-m exec');
    expect(argv).not.toContain('-m exec');
    expect(argv.filter((arg) => arg.startsWith('--url'))).toHaveLength(1);
  });

  it('keeps everything wapiti writes inside the workspace', () => {
    const argv = buildWapitiArgv(DEFAULTS, url('https://shop.example/'), CONTEXT);
    const paths = argv.filter((arg) => /^--(output|store-session|store-config)=/.test(arg));
    expect(paths).toHaveLength(3);
    for (const arg of paths) {
      expect(arg.slice(arg.indexOf('=') + 1).startsWith(`${WS}/`)).toBe(true);
    }
  });

  it.each(['host', 'domain', 'ip', 'network', 'image'] as const)('refuses a %s target', (type) => {
    const target: ScanTarget = {
      type,
      value: 'example.com',
      host: 'example.com',
      hostIsAddress: false,
    };
    expect(() => buildWapitiArgv(DEFAULTS, target, CONTEXT)).toThrow(
      `wapiti does not scan ${type} targets`,
    );
  });
});

describe('modulesToRun and timeShares', () => {
  it('an absent list means the 11 default modules of 3.0.4', () => {
    expect(modulesToRun(null)).toEqual(WAPITI_DEFAULT_MODULES);
    expect(WAPITI_DEFAULT_MODULES).toHaveLength(11);
  });

  it('never gives a share below 1 s (wapiti ignores limits under 1 s)', () => {
    expect(timeShares(5, 11)).toEqual({ crawl: 1, perModule: 1 });
    expect(timeShares(3600, 1)).toEqual({ crawl: 1800, perModule: 1800 });
  });
});

describe('wapitiOptionsWithDefaults', () => {
  it('fills in the specification defaults', () => {
    expect(wapitiOptionsWithDefaults({})).toEqual({
      modules: null,
      scope: 'domain',
      maxDepth: 3,
      maxTimeSeconds: null,
    });
  });

  it('keeps given values and converts maxTime to seconds', () => {
    expect(
      wapitiOptionsWithDefaults({ modules: ['sql'], scope: 'url', maxDepth: 0, maxTime: '2h' }),
    ).toEqual({ modules: ['sql'], scope: 'url', maxDepth: 0, maxTimeSeconds: 7200 });
  });

  it.each([
    ['600s', 600],
    ['10m', 600],
    ['1h', 3600],
    ['999999s', 999999],
    ['10', null],
    ['0s', null],
    ['1d', null],
    [600, null],
  ])('durationSeconds(%j) is %j', (value, expected) => {
    expect(durationSeconds(value)).toBe(expected);
  });
});

describe('wapitiOptionsSchema', () => {
  const ajv = new Ajv({ strict: false, useDefaults: true });
  const validate = ajv.compile(wapitiOptionsSchema);

  it('fills in scope and depth, and leaves modules absent', () => {
    const input = {};
    expect(validate(input)).toBe(true);
    expect(input).toEqual({ scope: 'domain', maxDepth: 3 });
  });

  it.each([
    [{ modules: ['xss', 'sql'] }],
    [{ modules: [...WAPITI_MODULES] }],
    [{ scope: 'url', maxDepth: 0, maxTime: '90s' }],
    [{ scope: 'page', maxDepth: 20, maxTime: '1h' }],
  ])('accepts %j', (input) => {
    expect(validate(input)).toBe(true);
  });

  it.each([
    ['a module of a later version', { modules: ['timesql'] }],
    ['a comma list in one item', { modules: ['xss,exec'] }],
    ['a disabling prefix', { modules: ['-xss'] }],
    ['a method suffix', { modules: ['xss:get'] }],
    ['the all keyword', { modules: ['all'] }],
    ['upper case', { modules: ['XSS'] }],
    ['an empty list', { modules: [] }],
    ['a list longer than the module list', { modules: Array(23).fill('xss') }],
    ['the punk scope', { scope: 'punk' }],
    ['a scope with a flag', { scope: 'domain --tor' }],
    ['depth 21', { maxDepth: 21 }],
    ['a negative depth', { maxDepth: -1 }],
    ['a fractional depth', { maxDepth: 1.5 }],
    ['maxTime without unit', { maxTime: '600' }],
    ['maxTime with a flag', { maxTime: '10m --tor' }],
    ['an unknown option', { level: 2 }],
  ])('refuses %s', (_name, input) => {
    expect(validate(input)).toBe(false);
  });
});
