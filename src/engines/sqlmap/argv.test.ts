import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { checkEngineOptions } from '../validate-options.js';
import { buildSqlmapArgv } from './argv.js';
import { sqlmapEngine } from './engine.js';
import { type SqlmapOptions, sqlmapOptionsWithDefaults } from './options.js';

const WORK = '/tmp/rampart-sqlmap-1';
const TAIL = [
  '--ignore-stdin',
  '--ignore-redirects',
  `--output-dir=${WORK}/out`,
  '--answers=extending=N,keep testing=Y,refresh intent=N',
  '--disable-coloring',
];

function urlTarget(value: string): ScanTarget {
  return { type: 'url', value, host: new URL(value).hostname, hostIsAddress: false };
}

const DEFAULTS = sqlmapOptionsWithDefaults({});
const options = (overrides: Partial<SqlmapOptions>): SqlmapOptions => ({
  ...DEFAULTS,
  ...overrides,
});

describe('buildSqlmapArgv', () => {
  it.each<[string, SqlmapOptions, string, string[]]>([
    [
      'defaults',
      DEFAULTS,
      'http://app.example/item?id=1',
      [
        '--url=http://app.example/item?id=1',
        '--batch',
        '--level=1',
        '--risk=1',
        '--technique=BEUSTQ',
        ...TAIL,
      ],
    ],
    [
      'every option set, with --dbs',
      options({ level: 5, risk: 3, technique: 'BEU', dbs: true }),
      'https://shop.example:8443/search?q=apple&page=2',
      [
        '--url=https://shop.example:8443/search?q=apple&page=2',
        '--batch',
        '--level=5',
        '--risk=3',
        '--technique=BEU',
        '--dbs',
        ...TAIL,
      ],
    ],
    [
      'one technique, dbs off',
      options({ level: 3, risk: 2, technique: 'T', dbs: false }),
      'http://127.0.0.1:8080/',
      [
        '--url=http://127.0.0.1:8080/',
        '--batch',
        '--level=3',
        '--risk=2',
        '--technique=T',
        ...TAIL,
      ],
    ],
    [
      'batch false (refused by the schema) still runs non-interactively',
      options({ batch: false }),
      'http://app.example/?id=1',
      [
        '--url=http://app.example/?id=1',
        '--batch',
        '--level=1',
        '--risk=1',
        '--technique=BEUSTQ',
        ...TAIL,
      ],
    ],
  ])('%s', (_name, opts, url, expected) => {
    expect(buildSqlmapArgv(opts, urlTarget(url), { workDir: WORK })).toEqual(expected);
  });

  it('glues the target to --url= so it can never be read as an option', () => {
    // Validation already refuses a leading dash and whitespace; this is the second fence.
    const target: ScanTarget = { type: 'url', value: '--eval=x', host: null, hostIsAddress: false };
    const argv = buildSqlmapArgv(DEFAULTS, target, { workDir: WORK });
    expect(argv[0]).toBe('--url=--eval=x');
    expect(argv.filter((arg) => arg.includes('--eval'))).toEqual(['--url=--eval=x']);
  });

  it.each(['host', 'ip', 'domain', 'network', 'image'] as const)('refuses a %s target', (type) => {
    const target: ScanTarget = {
      type,
      value: 'example.com',
      host: 'example.com',
      hostIsAddress: false,
    };
    expect(() => buildSqlmapArgv(DEFAULTS, target, { workDir: WORK })).toThrow(
      `sqlmap does not scan ${type} targets`,
    );
  });

  it('is what the engine command builds from validated options, writing into the workspace', () => {
    const check = checkEngineOptions(sqlmapEngine, { technique: 'BEU' });
    expect(check.ok).toBe(true);
    const command = sqlmapEngine.command;
    expect(command?.reportFile).toBe('out/*/log');
    const argv = command?.buildArgv(
      check.ok ? check.options : {},
      urlTarget('http://127.0.0.1:3000/search?q=apple'),
      {
        reportPath: `${WORK}/out/*/log`,
        workDir: WORK,
        privileged: false,
        pin: { address: null, privateTargetsAllowed: false },
      },
    );
    expect(argv).toEqual([
      '--url=http://127.0.0.1:3000/search?q=apple',
      '--batch',
      '--level=1',
      '--risk=1',
      '--technique=BEU',
      ...TAIL,
    ]);
  });
});

describe('sqlmapOptionsWithDefaults', () => {
  it('fills in the specification defaults', () => {
    expect(sqlmapOptionsWithDefaults({})).toEqual({
      level: 1,
      risk: 1,
      technique: 'BEUSTQ',
      dbs: false,
      batch: true,
    });
  });

  it('keeps given values', () => {
    const input = { level: 4, risk: 2, technique: 'EU', dbs: true, batch: true };
    expect(sqlmapOptionsWithDefaults(input)).toEqual(input);
  });
});

describe('sqlmapOptionsSchema', () => {
  const check = (input: Record<string, unknown>) => checkEngineOptions(sqlmapEngine, input);

  it.each([
    [{ technique: 'B' }],
    [{ technique: 'BEUSTQ' }],
    [{ technique: 'QTSUEB' }],
    [{ level: 5, risk: 3 }],
    [{ dbs: true, batch: true }],
  ])('accepts %j', (input) => {
    expect(check(input).ok).toBe(true);
  });

  it.each([
    ['an empty technique', { technique: '' }],
    ['an unknown letter', { technique: 'BX' }],
    ['lower case', { technique: 'beu' }],
    ['a repeated letter', { technique: 'BB' }],
    ['seven letters', { technique: 'BEUSTQB' }],
    ['an option', { technique: '-x' }],
    ['a long option', { technique: '--eval=1' }],
    ['a space', { technique: 'B E' }],
    ['a newline', { technique: 'B\n' }],
    ['a shell substitution', { technique: '$(id)' }],
    ['backticks', { technique: '`id`' }],
    ['a semicolon', { technique: 'B;id' }],
    ['a path', { technique: '../B' }],
    ['10 000 characters', { technique: 'B'.repeat(10_000) }],
    ['level 0', { level: 0 }],
    ['level 6', { level: 6 }],
    ['risk 4', { risk: 4 }],
    ['an unknown option', { tamper: 'space2comment' }],
  ])('refuses %s', (_name, input) => {
    const result = check(input);
    expect(result.ok === false && result.error.code).toBe('INVALID_FIELD_VALUE');
  });

  it('refuses batch: false, since a worker has no terminal to answer questions on', () => {
    const result = check({ batch: false });
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.error.message).toBe(
      'Invalid value for field options.batch: false is not one of true',
    );
  });

  it('refuses a technique given as a number', () => {
    const result = check({ technique: 5 });
    expect(result.ok === false && result.error.code).toBe('INVALID_FIELD_TYPE');
  });
});
