import { describe, expect, it } from 'vitest';
import { checkEngineOptions } from '../validate-options.js';
import { zapEngine } from './engine.js';
import { completeAuthentication, zapOptionsWithDefaults } from './options.js';

const valid = (options: Record<string, unknown>) => checkEngineOptions(zapEngine, options).ok;
const auth = (fields: Record<string, unknown>) => ({ authentication: fields });

describe('zapOptionsSchema (through the real validation path)', () => {
  it('fills in the specification defaults', () => {
    const check = checkEngineOptions(zapEngine, {});
    expect(check).toEqual({
      ok: true,
      options: {
        scanPolicy: 'standard',
        spiderMaxDepth: 3,
        ajaxSpider: false,
        activeScan: true,
        contextInclude: [],
        contextExclude: [],
      },
    });
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ['every policy', { scanPolicy: 'light' }, true],
    ['full policy', { scanPolicy: 'full' }, true],
    ['unknown policy', { scanPolicy: 'insane' }, false],
    ['depth 1', { spiderMaxDepth: 1 }, true],
    ['depth 10', { spiderMaxDepth: 10 }, true],
    ['depth 0 (ZAP: unlimited)', { spiderMaxDepth: 0 }, false],
    ['depth 11', { spiderMaxDepth: 11 }, false],
    [
      'regex with anchors and groups',
      { contextInclude: ['^https://app\\.example\\.com/(a|b)/.*$'] },
      true,
    ],
    ['regex with a quantifier', { contextExclude: ['.*/logout\\d{1,3}.*'] }, true],
    ['regex with $\u007b (ZAP variable)', { contextInclude: ['https://a/$\u007bHOME}'] }, false],
    ['regex with a space', { contextInclude: ['a b'] }, false],
    ['regex with a newline', { contextExclude: ['a\nb'] }, false],
    ['empty regex', { contextExclude: [''] }, false],
    ['513-character regex', { contextExclude: ['a'.repeat(513)] }, false],
    ['101 regexes', { contextExclude: Array.from({ length: 101 }, () => 'a') }, false],
    ['unknown key', { spider: true }, false],
    [
      'header auth',
      auth({ type: 'header', headerName: 'Authorization', headerValue: 'Bearer x.y.z' }),
      true,
    ],
    [
      'header value with CR LF',
      auth({ type: 'header', headerName: 'X-Key', headerValue: 'a\r\nHost: evil' }),
      false,
    ],
    [
      'header value with $\u007b',
      auth({ type: 'header', headerName: 'X-Key', headerValue: 'a$\u007bPATH}' }),
      false,
    ],
    [
      'Host as the auth header',
      auth({ type: 'header', headerName: 'Host', headerValue: 'evil' }),
      false,
    ],
    [
      'content-length as the auth header',
      auth({ type: 'header', headerName: 'CONTENT-LENGTH', headerValue: '1' }),
      false,
    ],
    [
      'header name with a colon',
      auth({ type: 'header', headerName: 'X-Key:', headerValue: 'a' }),
      false,
    ],
    [
      'cookie auth',
      auth({ type: 'cookie', cookieName: 'session', cookieValue: 'abc%3D123' }),
      true,
    ],
    [
      'cookie value with ;',
      auth({ type: 'cookie', cookieName: 'session', cookieValue: 'a;b=c' }),
      false,
    ],
    [
      'cookie value with a space',
      auth({ type: 'cookie', cookieName: 'session', cookieValue: 'a b' }),
      false,
    ],
    [
      'form auth',
      auth({
        type: 'form',
        loginUrl: 'https://app.example.com/login',
        usernameField: 'user[login]',
        passwordField: 'pass',
        username: 'alice',
        password: 'c0rrect horse "battery"',
      }),
      true,
    ],
    ['password with a newline', auth({ type: 'form', password: 'a\nb' }), false],
    ['password with $\u007b', auth({ type: 'form', password: 'x$\u007bHOME}' }), false],
    ['password of 256 characters', auth({ type: 'form', password: 'p'.repeat(256) }), false],
    ['ftp login URL', auth({ type: 'form', loginUrl: 'ftp://app.example.com/login' }), false],
    [
      'login URL with a brace',
      auth({ type: 'form', loginUrl: 'https://app.example.com/{x}' }),
      false,
    ],
    ['form field with a space', auth({ type: 'form', usernameField: 'user name' }), false],
    ['unknown auth type', auth({ type: 'oauth' }), false],
    ['unknown auth key', auth({ type: 'header', token: 'x' }), false],
  ])('%s → valid: %s', (_name, options, expected) => {
    expect(valid(options)).toBe(expected);
  });
});

describe('zapOptionsWithDefaults', () => {
  it('fills in the specification defaults', () => {
    expect(zapOptionsWithDefaults({})).toEqual({
      scanPolicy: 'standard',
      spiderMaxDepth: 3,
      ajaxSpider: false,
      activeScan: true,
      contextInclude: [],
      contextExclude: [],
      authentication: null,
    });
  });

  it('keeps given values, authentication as given', () => {
    const input = {
      scanPolicy: 'full',
      spiderMaxDepth: 7,
      ajaxSpider: true,
      activeScan: false,
      contextInclude: ['a'],
      contextExclude: ['b', 'c'],
      authentication: { type: 'cookie', cookieName: 'sid', cookieValue: 'v' },
    };
    expect(zapOptionsWithDefaults(input)).toEqual(input);
  });

  it('ignores values of the wrong type (validation already refused them)', () => {
    expect(
      zapOptionsWithDefaults({
        scanPolicy: 'extreme',
        spiderMaxDepth: '3',
        contextInclude: [1, 'x'],
        authentication: { type: 'kerberos' },
      }),
    ).toMatchObject({
      scanPolicy: 'standard',
      spiderMaxDepth: 3,
      contextInclude: ['x'],
      authentication: null,
    });
  });
});

describe('completeAuthentication', () => {
  it.each([
    [{ type: 'header' as const, headerName: 'X-Key' }, ['headerValue']],
    [{ type: 'cookie' as const }, ['cookieName', 'cookieValue']],
    [
      { type: 'form' as const, username: 'a', password: 'b' },
      ['loginUrl', 'usernameField', 'passwordField'],
    ],
  ])('names what %j lacks', (input, missing) => {
    expect(completeAuthentication(input)).toEqual({ missing });
  });

  it('returns the typed authentication, without fields of other types', () => {
    expect(
      completeAuthentication({
        type: 'header',
        headerName: 'X-Key',
        headerValue: 'v',
        cookieName: 'ignored',
      }),
    ).toEqual({ authentication: { type: 'header', headerName: 'X-Key', headerValue: 'v' } });
  });
});
