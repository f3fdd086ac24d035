// `yaml` (eemeli/yaml) is the reference reader here: it implements YAML 1.1 (ZAP's SnakeYAML)
// and 1.2. It is installed through @fastify/swagger; only this test uses it.

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderYaml, yamlString } from './yaml.js';

/** Every kind of character that could end a scalar, start a line or be folded. */
const HOSTILE = [
  '',
  'plain',
  '"',
  '\\',
  '\\"',
  "'",
  ': ',
  '#',
  '- x',
  '---',
  '...',
  '{a: 1}',
  '[1, 2]',
  '&anchor *alias',
  '!!python/object',
  '%TAG',
  '@`',
  '\n',
  '\r\n',
  '\t',
  '\u0000\u0007\u001b',
  '\u007f\u0085\u00a0',
  '\u2028\u2029',
  '\ufeff',
  'é ß 中文',
  '😀',
  '\ud800',
  '$\u007bHOME}',
  'a\n  b: c\n- d',
  '"\nkey: value\n"',
  'x'.repeat(10_000),
];

describe('yamlString', () => {
  it.each(HOSTILE.map((value) => [JSON.stringify(value).slice(0, 40), value]))(
    '%s is read back unchanged by YAML 1.1 and 1.2, as one quoted ASCII line',
    (_name, value) => {
      const quoted = yamlString(value);
      expect(quoted).toMatch(/^"[\x20-\x7e]*"$/);
      for (const version of ['1.1', '1.2'] as const) {
        expect(parse(`key: ${quoted}\n`, { version })).toEqual({ key: value });
      }
    },
  );

  it('escapes quote and backslash, and everything outside printable ASCII', () => {
    expect(yamlString('a"b\\c\nd\u00e9\u{1f600}')).toBe('"a\\"b\\\\c\\u000Ad\\u00E9\\U0001F600"');
  });
});

describe('renderYaml', () => {
  it('writes block mappings and sequences, empty ones in flow style', () => {
    const text = renderYaml({
      env: { contexts: [{ name: 'c', urls: ['u'], includePaths: [] }], parameters: {} },
      jobs: [{ type: 'spider', parameters: { maxDepth: 3, flag: false } }, ['nested'], []],
      'odd key': 1,
    });
    expect(text).toBe(
      [
        'env:',
        '  contexts:',
        '    - name: "c"',
        '      urls:',
        '        - "u"',
        '      includePaths: []',
        '  parameters: {}',
        'jobs:',
        '  - type: "spider"',
        '    parameters:',
        '      maxDepth: 3',
        '      flag: false',
        '  -',
        '    - "nested"',
        '  - []',
        '"odd key": 1',
        '',
      ].join('\n'),
    );
    expect(parse(text)).toEqual({
      env: { contexts: [{ name: 'c', urls: ['u'], includePaths: [] }], parameters: {} },
      jobs: [{ type: 'spider', parameters: { maxDepth: 3, flag: false } }, ['nested'], []],
      'odd key': 1,
    });
  });

  it('refuses numbers YAML cannot hold', () => {
    expect(() => renderYaml({ a: Number.NaN })).toThrow('not a finite number');
  });
});
