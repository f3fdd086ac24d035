import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../domain/targets/target.js';
import { checkEngineConfig } from '../validate-options.js';
import { configFor } from '../web-config.js';
import { niktoEngine } from './engine.js';

const target = { type: 'url', value: 'http://app.test:8080/shop/' } as ScanTarget;
const context = {
  reportPath: '/ws/report.json',
  workDir: '/ws',
  privileged: false,
  pin: { address: null, privateTargetsAllowed: false },
  toolVersion: '2.1.5',
};

function rejection(config: unknown): { code: string; message: string } | null {
  const checked = checkEngineConfig(niktoEngine, config);
  return checked.ok ? null : { code: checked.error.code, message: checked.error.message };
}

describe('nikto config: schema', () => {
  it('takes cookies, basic auth and a user agent', () => {
    const checked = checkEngineConfig(niktoEngine, {
      cookies: { session: 's3ssion', lang: 'en' },
      auth: { type: 'basic', username: 'alice', password: 'pa55 word' },
      userAgent: 'Mozilla/5.0 (Rampart)',
    });
    expect(checked.ok).toBe(true);
    expect(checkEngineConfig(niktoEngine, {}).ok).toBe(true);
  });

  it.each([
    ['headers (nikto 2.1.5 sends none of its own)', { headers: { 'X-Api-Key': 'k' } }],
    ['exclude (nikto does not crawl)', { exclude: ['/reset'] }],
    ['an unknown key', { proxy: 'http://p' }],
  ])('refuses %s as nuclei refuses exclude', (_what, config) => {
    expect(rejection(config)?.code).toBe('INVALID_FIELD_VALUE');
  });

  it('refuses bearer authentication, which would be a header', () => {
    const refused = rejection({ auth: { type: 'bearer', token: 't0ken' } });
    expect(refused).toMatchObject({
      code: 'INVALID_FIELD_VALUE',
      message: expect.stringContaining('config.auth.type'),
    });
  });

  it('refuses what nikto would misread, without repeating the credential', () => {
    const colon = rejection({ auth: { type: 'basic', username: 'a', password: 'x:s3cret' } });
    expect(colon).toMatchObject({ message: expect.stringContaining('config.auth.password') });
    expect(JSON.stringify(colon)).not.toContain('s3cret');
    const hash = rejection({ cookies: { session: 'ab#s3cret' } });
    expect(hash).toMatchObject({ message: expect.stringContaining('config.cookies.session') });
    expect(JSON.stringify(hash)).not.toContain('s3cret');
    expect(rejection({ cookies: { 'a#b': 'v' } })).toMatchObject({
      message: expect.stringContaining('config.cookies.a#b'),
    });
    expect(rejection({ userAgent: 'agent #1' })).toMatchObject({
      message: expect.stringContaining('config.userAgent'),
    });
  });

  it('is what sentinel hands a nikto child: cookies, auth and user agent only', () => {
    const schema = niktoEngine.configSchema ?? { properties: {} };
    expect(
      configFor(schema, {
        cookies: { a: 'b' },
        headers: { 'X-A': 'b' },
        exclude: ['/reset'],
        userAgent: 'ua',
      }),
    ).toEqual({ cookies: { a: 'b' }, userAgent: 'ua' });
  });
});

describe('nikto config: files and argv', () => {
  const config = {
    cookies: { session: 's3ssion=x', lang: 'en' },
    auth: { type: 'basic', username: 'alice', password: 'pa55 word' },
    userAgent: 'Mozilla/5.0 (Rampart)',
  };

  it('writes cookies and user agent to nikto.conf, read after the system config', () => {
    const files = niktoEngine.command.inputFiles?.({}, target, { ...context, config }) ?? [];
    expect(files).toEqual([
      {
        path: 'nikto.conf',
        content: [
          'STATIC-COOKIE="session"="s3ssion=x";"lang"="en"',
          'USERAGENT=Mozilla/5.0 (Rampart)',
          '',
        ].join('\n'),
      },
    ]);
  });

  it('puts only the basic credentials on the argv (-id, nikto has no other way)', () => {
    const plain = niktoEngine.command.buildArgv({}, target, { ...context, config: {} });
    const argv = niktoEngine.command.buildArgv({}, target, { ...context, config });
    expect(argv).toEqual([...plain, '-id', 'alice:pa55 word']);
    expect(argv.join(' ')).not.toContain('s3ssion');
    expect(argv.join(' ')).not.toContain('Rampart');
    // No -config: it would replace the system config file (plugin and database directories).
    expect(argv).not.toContain('-config');
  });

  it('writes no file and adds nothing without config', () => {
    expect(niktoEngine.command.inputFiles?.({}, target, { ...context, config: {} })).toEqual([]);
    expect(niktoEngine.command.inputFiles?.({}, target, context)).toEqual([]);
    const argv = niktoEngine.command.buildArgv({}, target, context);
    expect(argv).not.toContain('-id');
  });

  it('leaves out what nikto cannot take from a sentinel parent (checked as a web config only)', () => {
    const parent = {
      cookies: { ok: 'v', bad: 'a#b' },
      auth: { type: 'bearer', token: 't0ken' },
      userAgent: 'agent #1',
    };
    expect(niktoEngine.command.inputFiles?.({}, target, { ...context, config: parent })).toEqual([
      { path: 'nikto.conf', content: 'STATIC-COOKIE="ok"="v"\n' },
    ]);
    const argv = niktoEngine.command.buildArgv({}, target, { ...context, config: parent });
    expect(argv.join(' ')).not.toContain('t0ken');
    const colon = { auth: { type: 'basic', username: 'a', password: 'x:y' } };
    expect(niktoEngine.command.buildArgv({}, target, { ...context, config: colon })).not.toContain(
      '-id',
    );
  });
});
