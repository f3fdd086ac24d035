import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../domain/targets/target.js';
import { nucleiEngine } from './nuclei/engine.js';
import { sqlmapEngine } from './sqlmap/engine.js';
import { checkEngineConfig } from './validate-options.js';
import { cookieDomainKey } from './wapiti/config.js';
import { wapitiEngine } from './wapiti/engine.js';
import { configFor, excludedUrlRegex, webConfigOf } from './web-config.js';

const target = { type: 'url', value: 'http://app.test:8080/auth/search?q=1' } as ScanTarget;
const context = {
  reportPath: '/ws/report.json',
  workDir: '/ws',
  privileged: false,
  pin: { address: null, privateTargetsAllowed: false },
};
const SECRETS = ['s3ssion', 'k3y-value', 'pa55word'];
const config = {
  cookies: { session: 's3ssion', lang: 'en' },
  headers: { 'X-Api-Key': 'k3y-value' },
  auth: { type: 'basic', username: 'alice', password: 'pa55word' },
  exclude: ['/auth/reset*', 'http://app.test:8080/logout'],
  userAgent: 'Rampart test',
};

describe('sqlmap config', () => {
  it('goes through a -c file in the workspace: no credential on the argv', () => {
    const argv = sqlmapEngine.command.buildArgv({}, target, { ...context, config });
    expect(argv.slice(-2)).toEqual(['-c', '/ws/sqlmap.conf']);
    for (const secret of SECRETS) {
      expect(argv.join(' ')).not.toContain(secret);
    }
    const files = sqlmapEngine.command.inputFiles?.({}, target, { ...context, config }) ?? [];
    expect(files).toEqual([
      {
        path: 'sqlmap.conf',
        content: [
          '[Target]',
          '',
          '[Request]',
          'cookie = session=s3ssion; lang=en',
          'headers = X-Api-Key: k3y-value',
          'authType = basic',
          'authCred = alice:pa55word',
          'agent = Rampart test',
          '',
          '[General]',
          'scope = ^(?!(?:http://app\\.test:8080/auth/reset.*|http://app\\.test:8080/logout)$)',
          '',
        ].join('\n'),
      },
    ]);
  });

  it('without config: no file and no -c, the argv as before', () => {
    expect(sqlmapEngine.command.buildArgv({}, target, context)).not.toContain('-c');
    expect(sqlmapEngine.command.inputFiles?.({}, target, { ...context, config: {} })).toEqual([]);
  });

  it('bearer authentication', () => {
    const files =
      sqlmapEngine.command.inputFiles?.({}, target, {
        ...context,
        config: { auth: { type: 'bearer', token: 'abc.def' } },
      }) ?? [];
    expect(files[0]?.content).toContain('authType = bearer\nauthCred = abc.def\n');
  });
});

describe('wapiti config', () => {
  it('cookies through a JSON cookie file; headers, auth, agent and exclusions as glued flags', () => {
    const argv = wapitiEngine.command.buildArgv({}, target, { ...context, config });
    expect(argv.slice(argv.indexOf('--verbose=1') + 1)).toEqual([
      '--cookie=/ws/cookies.json',
      '--header=X-Api-Key: k3y-value',
      '--user-agent=Rampart test',
      '--auth-type=basic',
      '--auth-cred=alice%pa55word',
      '--exclude=http://app.test:8080/auth/reset*',
      '--exclude=http://app.test:8080/logout',
    ]);
    expect(argv.join(' ')).not.toContain('s3ssion');
    const files = wapitiEngine.command.inputFiles?.({}, target, { ...context, config }) ?? [];
    expect(JSON.parse(files[0]?.content ?? '')).toEqual({
      '.app.test': {
        '/': {
          session: { value: 's3ssion', version: 0, expires: null, secure: false, port: null },
          lang: { value: 'en', version: 0, expires: null, secure: false, port: null },
        },
      },
    });
    // The exclusion fix for wapiti 3.0.4 on Python >= 3.11, in the user site under HOME.
    expect(files.map((file) => file.path)).toContain(
      '.local/lib/python3.11/site-packages/usercustomize.py',
    );
  });

  it('keys cookies the way wapiti looks them up', () => {
    expect(cookieDomainKey('http://127.0.0.2:8080/')).toBe('127.0.0.2');
    expect(cookieDomainKey('http://intranet/')).toBe('.intranet.local');
    expect(cookieDomainKey('http://[::1]:80/')).toBe('[::1].local');
  });
});

describe('config validation', () => {
  it('accepts the full config and types it', () => {
    const checked = checkEngineConfig(wapitiEngine, config);
    expect(checked.ok).toBe(true);
    expect(webConfigOf(config).auth).toEqual({
      type: 'basic',
      username: 'alice',
      password: 'pa55word',
    });
  });

  it.each([
    { cookies: { 'a b': 'x' } },
    { cookies: { a: 'x y' } },
    { headers: { A: 'x\ny' } },
    { headers: { Cookie: 'a=b' } },
    { auth: { type: 'digest' } },
    { auth: { type: 'bearer' } },
    { exclude: ['relative'] },
    { exclude: ['/a b'] },
    { userAgent: '' },
    { other: true },
  ])('refuses %j', (bad) => {
    const checked = checkEngineConfig(sqlmapEngine, bad);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? null : checked.error.code).toBe('INVALID_FIELD_VALUE');
  });

  it('nuclei takes no exclude (it crawls nothing); sentinel hands it only what it takes', () => {
    const checked = checkEngineConfig(nucleiEngine, { exclude: ['/reset'] });
    expect(checked.ok ? null : checked.error.code).toBe('INVALID_FIELD_VALUE');
    expect(checkEngineConfig(nucleiEngine, { cookies: { a: 'b' } }).ok).toBe(true);
    const schema = nucleiEngine.configSchema ?? { properties: {} };
    expect(configFor(schema, { cookies: { a: 'b' }, exclude: ['/reset'] })).toEqual({
      cookies: { a: 'b' },
    });
  });

  it('turns an exclusion into an anchored-literal regular expression', () => {
    expect(excludedUrlRegex('/a.b*?x', 'https://h.test/')).toBe('https://h\\.test/a\\.b.*\\?x');
  });
});
