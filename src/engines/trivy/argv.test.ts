import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { checkEngineOptions } from '../validate-options.js';
import { buildTrivyArgv, TRIVY_TIMEOUT } from './argv.js';
import { trivyEngine } from './engine.js';
import { type TrivyOptions, trivyOptionsWithDefaults } from './options.js';

const OUT = '/tmp/rampart-trivy-1/report.json';
const HEAD = ['--format', 'json', '--output', OUT, '--no-progress', '--timeout', '24h'];

const IMAGE: ScanTarget = {
  type: 'image',
  value: 'alpine:3.19',
  host: null,
  hostIsAddress: false,
};
const REPOSITORY: ScanTarget = {
  type: 'url',
  value: 'https://github.com/knqyf263/trivy-ci-test',
  host: 'github.com',
  hostIsAddress: false,
};

const DEFAULTS = trivyOptionsWithDefaults({});
const options = (overrides: Partial<TrivyOptions>): TrivyOptions => ({ ...DEFAULTS, ...overrides });
const build = (opts: TrivyOptions, target: ScanTarget) =>
  buildTrivyArgv(opts, target, { reportPath: OUT });

describe('buildTrivyArgv', () => {
  it('uses the largest scan timeout as trivy’s own', () => {
    expect(TRIVY_TIMEOUT).toBe('24h');
  });

  it.each<[string, TrivyOptions, ScanTarget, string[]]>([
    [
      'image, defaults: registry only, vulnerabilities of medium and up',
      DEFAULTS,
      IMAGE,
      [
        'image',
        ...HEAD,
        '--image-src',
        'remote',
        '--scanners=vuln',
        '--severity=CRITICAL,HIGH,MEDIUM',
        '--',
        'alpine:3.19',
      ],
    ],
    [
      'repository, defaults: no --image-src (trivy repository has no such flag)',
      DEFAULTS,
      REPOSITORY,
      [
        'repository',
        ...HEAD,
        '--scanners=vuln',
        '--severity=CRITICAL,HIGH,MEDIUM',
        '--',
        'https://github.com/knqyf263/trivy-ci-test',
      ],
    ],
    [
      'every option set, on a digest-pinned image',
      options({
        scanners: ['vuln', 'misconfig', 'secret', 'license'],
        severity: ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'],
        ignoreUnfixed: true,
        skipDirs: ['/usr/share/doc', '**/node_modules'],
        skipFiles: ['/app/test/fixtures/key.pem'],
      }),
      {
        ...IMAGE,
        value: `ghcr.io/acme/api@sha256:${'a'.repeat(64)}`,
        host: 'ghcr.io',
      },
      [
        'image',
        ...HEAD,
        '--image-src',
        'remote',
        '--scanners=vuln,misconfig,secret,license',
        '--severity=UNKNOWN,LOW,MEDIUM,HIGH,CRITICAL',
        '--ignore-unfixed',
        '--skip-dirs=/usr/share/doc',
        '--skip-dirs=**/node_modules',
        '--skip-files=/app/test/fixtures/key.pem',
        '--',
        `ghcr.io/acme/api@sha256:${'a'.repeat(64)}`,
      ],
    ],
    [
      'secrets and misconfigurations of a repository, critical only',
      options({ scanners: ['secret', 'misconfig'], severity: ['CRITICAL'] }),
      REPOSITORY,
      [
        'repository',
        ...HEAD,
        '--scanners=secret,misconfig',
        '--severity=CRITICAL',
        '--',
        'https://github.com/knqyf263/trivy-ci-test',
      ],
    ],
  ])('%s', (_name, opts, target, expected) => {
    expect(build(opts, target)).toEqual(expected);
  });

  it('puts the target alone after -- even if it looked like an option', () => {
    // Target validation already refuses a leading dash; this is the second fence.
    const argv = build(DEFAULTS, { ...IMAGE, value: '--input=/etc/shadow' });
    expect(argv.slice(-2)).toEqual(['--', '--input=/etc/shadow']);
    expect(argv.indexOf('--')).toBe(argv.length - 2);
  });

  it.each(['host', 'ip', 'domain', 'network'] as const)('refuses a %s target', (type) => {
    expect(() => build(DEFAULTS, { ...IMAGE, type, value: 'example.com' })).toThrow(
      `trivy does not scan ${type} targets`,
    );
  });

  it('is what the engine command builds from validated options', () => {
    const checked = checkEngineOptions(trivyEngine, { scanners: ['secret'], ignoreUnfixed: true });
    expect(checked.ok).toBe(true);
    const argv = trivyEngine.command?.buildArgv(checked.ok ? checked.options : {}, IMAGE, {
      reportPath: OUT,
      workDir: '/tmp/rampart-trivy-1',
      privileged: true,
      pin: { address: null, privateTargetsAllowed: false },
    });
    expect(argv).toEqual([
      'image',
      ...HEAD,
      '--image-src',
      'remote',
      '--scanners=secret',
      '--severity=CRITICAL,HIGH,MEDIUM',
      '--ignore-unfixed',
      '--',
      'alpine:3.19',
    ]);
  });
});

describe('trivyOptionsWithDefaults', () => {
  it('fills in the specification defaults', () => {
    expect(trivyOptionsWithDefaults({})).toEqual({
      scanners: ['vuln'],
      severity: ['CRITICAL', 'HIGH', 'MEDIUM'],
      ignoreUnfixed: false,
      skipDirs: [],
      skipFiles: [],
    });
  });

  it('keeps given values', () => {
    const input = {
      scanners: ['misconfig', 'license'],
      severity: ['LOW'],
      ignoreUnfixed: true,
      skipDirs: ['vendor'],
      skipFiles: ['a.lock', 'b.lock'],
    };
    expect(trivyOptionsWithDefaults(input)).toEqual(input);
  });

  it('falls back to the defaults for lists that hold nothing usable', () => {
    const typed = trivyOptionsWithDefaults({ scanners: [], severity: ['critical', 7] });
    expect(typed.scanners).toEqual(['vuln']);
    expect(typed.severity).toEqual(['CRITICAL', 'HIGH', 'MEDIUM']);
  });
});

describe('trivyOptionsSchema', () => {
  const check = (options: unknown) => checkEngineOptions(trivyEngine, options);

  it('fills in the defaults', () => {
    expect(check({})).toEqual({
      ok: true,
      options: {
        scanners: ['vuln'],
        severity: ['CRITICAL', 'HIGH', 'MEDIUM'],
        ignoreUnfixed: false,
        skipDirs: [],
        skipFiles: [],
      },
    });
  });

  it.each([
    [{ scanners: ['vuln', 'misconfig', 'secret', 'license'] }],
    [{ severity: ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] }],
    [
      {
        skipDirs: [
          '/var/lib/gems/2.5.0/gems/http_parser.rb-0.6.0',
          './testdata/*',
          '**/.terraform',
        ],
      },
    ],
    [{ skipFiles: ['/Gemfile.lock', 'package-dev.json', 'foo/**/*.tf', 'a/b...c', '@scope/x+y?'] }],
    [{ skipDirs: Array.from({ length: 100 }, (_, i) => `dir${i}`) }],
    [{ skipFiles: ['a'.repeat(255)] }],
  ])('accepts %j', (options) => {
    expect(check(options).ok).toBe(true);
  });

  it.each([
    ['an unknown scanner', { scanners: ['rbac'] }],
    ['the old scanner name', { scanners: ['config'] }],
    ['no scanner', { scanners: [] }],
    ['a repeated scanner', { scanners: ['vuln', 'vuln'] }],
    ['a comma list in one scanner item', { scanners: ['vuln,secret'] }],
    ['a lower-case severity', { severity: ['critical'] }],
    ['no severity', { severity: [] }],
    ['a non-boolean ignoreUnfixed', { ignoreUnfixed: 'yes' }],
    ['an unknown option', { format: 'table' }],
    ['a flag as a path', { skipDirs: ['--config=/etc/trivy.yaml'] }],
    ['a leading dash', { skipFiles: ['-x'] }],
    ['a comma (pflag would split it)', { skipDirs: ['a,b'] }],
    ['a space', { skipFiles: ['my file'] }],
    ['a newline', { skipFiles: ['a\nb'] }],
    ['a semicolon', { skipDirs: ['a;id'] }],
    ['command substitution', { skipDirs: ['$(id)'] }],
    ['backticks', { skipDirs: ['`id`'] }],
    ['a quote (pflag reads values as CSV)', { skipDirs: ['a"b'] }],
    ['a parent directory', { skipDirs: ['../etc'] }],
    ['a parent directory inside', { skipDirs: ['a/../../etc'] }],
    ['a trailing parent directory', { skipFiles: ['a/..'] }],
    ['an empty path', { skipFiles: [''] }],
    ['a 256-character path', { skipFiles: ['a'.repeat(256)] }],
    ['a 10 000-character path', { skipFiles: ['a'.repeat(10_000)] }],
    ['101 paths', { skipDirs: Array.from({ length: 101 }, (_, i) => `dir${i}`) }],
  ])('refuses %s', (_name, options) => {
    expect(check(options).ok).toBe(false);
  });
});
