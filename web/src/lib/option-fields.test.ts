import { describe, expect, it } from 'vitest';
import { harvesterOptionsSchema } from '../../../src/engines/harvester/options.js';
import { niktoOptionsSchema } from '../../../src/engines/nikto/options.js';
import { nmapOptionsSchema } from '../../../src/engines/nmap/options.js';
import { nucleiOptionsSchema } from '../../../src/engines/nuclei/options.js';
import { sentinelOptionsSchema } from '../../../src/engines/sentinel/options.js';
import { sqlmapOptionsSchema } from '../../../src/engines/sqlmap/options.js';
import { sublist3rOptionsSchema } from '../../../src/engines/sublist3r/options.js';
import { trivyOptionsSchema } from '../../../src/engines/trivy/options.js';
import { wapitiOptionsSchema } from '../../../src/engines/wapiti/options.js';
import { zapOptionsSchema } from '../../../src/engines/zap/options.js';
import {
  asSentence,
  type FormValues,
  labelOf,
  leafFields,
  type OptionField,
  optionFields,
  optionsFromForm,
  shownValue,
  splitList,
} from './option-fields.js';

/**
 * Each engine's options schema as GET /api/v1/engines serves it (plain JSON). That these are all
 * the engines, and that the options built here pass each engine's own validation, is checked in
 * test/engine-option-forms.test.ts (this file is compiled for the browser, without Node's types).
 */
const served = new Map<string, unknown>(
  Object.entries({
    nmap: nmapOptionsSchema,
    zap: zapOptionsSchema,
    trivy: trivyOptionsSchema,
    nuclei: nucleiOptionsSchema,
    nikto: niktoOptionsSchema,
    sqlmap: sqlmapOptionsSchema,
    wapiti: wapitiOptionsSchema,
    harvester: harvesterOptionsSchema,
    sublist3r: sublist3rOptionsSchema,
    sentinel: sentinelOptionsSchema,
  }).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema))]),
);
const schemaOf = (name: string): unknown => served.get(name);
const fieldsOf = (name: string) => optionFields(schemaOf(name));
const field = (fields: readonly OptionField[], path: string): OptionField => {
  const found = leafFields(fields).find((candidate) => candidate.path === path);
  if (found === undefined) {
    throw new Error(`no field ${path}`);
  }
  return found;
};

describe('optionFields', () => {
  it('nmap: a pattern string with a default, an enum, booleans, a free list, an integer', () => {
    const fields = fieldsOf('nmap');
    expect(field(fields, 'ports')).toMatchObject({
      kind: 'text',
      label: 'Ports',
      placeholder: '1-1024',
      maxLength: 512,
      required: false,
      secret: false,
      help: expect.stringContaining('22,80,443'),
    });
    expect(field(fields, 'timing')).toMatchObject({
      kind: 'select',
      choices: ['T0', 'T1', 'T2', 'T3', 'T4', 'T5'],
      defaultChoice: 'T3',
    });
    expect(field(fields, 'serviceDetection')).toMatchObject({
      kind: 'checkbox',
      label: 'Service detection',
      defaultValue: true,
    });
    expect(field(fields, 'scripts')).toMatchObject({
      kind: 'list',
      placeholder: '',
      itemHelp: expect.stringContaining('NSE category'),
    });
    expect(field(fields, 'topPorts')).toMatchObject({
      kind: 'number',
      integer: true,
      min: 1,
      max: 65535,
      placeholder: '',
    });
  });

  it('nikto: a boolean without a default is unset, yes or no', () => {
    expect(field(fieldsOf('nikto'), 'ssl')).toMatchObject({ kind: 'tristate' });
    expect(field(fieldsOf('nikto'), 'maxTime')).toMatchObject({ kind: 'text', placeholder: '' });
  });

  it('sqlmap: a value the schema allows only one of is shown fixed', () => {
    expect(field(fieldsOf('sqlmap'), 'batch')).toMatchObject({ kind: 'fixed', value: 'true' });
    expect(field(fieldsOf('sqlmap'), 'level')).toMatchObject({
      kind: 'number',
      min: 1,
      max: 5,
      placeholder: '1',
    });
  });

  it('arrays of enumerated strings become checkboxes, with or without a default', () => {
    expect(field(fieldsOf('trivy'), 'scanners')).toMatchObject({
      kind: 'multi',
      choices: ['vuln', 'misconfig', 'secret', 'license'],
      defaultValue: ['vuln'],
    });
    expect(field(fieldsOf('wapiti'), 'modules')).toMatchObject({
      kind: 'multi',
      defaultValue: null,
    });
    expect(field(fieldsOf('sentinel'), 'engines')).toMatchObject({ kind: 'multi' });
  });

  it('zap: a nested object is a group; its required field and credentials are marked', () => {
    const auth = fieldsOf('zap').find((f) => f.path === 'authentication');
    expect(auth).toMatchObject({ kind: 'group', label: 'Authentication', required: false });
    const fields = fieldsOf('zap');
    expect(field(fields, 'authentication.type')).toMatchObject({
      kind: 'select',
      required: true,
      choices: ['form', 'header', 'cookie'],
      defaultChoice: null,
    });
    expect(field(fields, 'authentication.password')).toMatchObject({ kind: 'text', secret: true });
    expect(field(fields, 'authentication.username')).toMatchObject({ secret: false });
    expect(field(fields, 'contextInclude')).toMatchObject({ kind: 'list' });
  });

  it('an unknown shape is typed as JSON; a schema that is no object has no fields', () => {
    const fields = optionFields({
      type: 'object',
      properties: { weird: { type: 'array', items: { type: 'integer' } }, any: {} },
    });
    expect(fields.map((f) => f.kind)).toEqual(['json', 'json']);
    expect(optionFields(null)).toEqual([]);
    expect(optionFields({ type: 'string' })).toEqual([]);
  });

  it('labels camelCase and snake_case names as words', () => {
    expect(labelOf('spiderMaxDepth')).toBe('Spider max depth');
    expect(labelOf('dns_lookup')).toBe('Dns lookup');
    expect(labelOf('ports')).toBe('Ports');
  });
});

describe('shownValue', () => {
  const fields = fieldsOf('nmap');
  it('shows the person’s value, else the template’s, else the default', () => {
    const ports = field(fields, 'ports');
    expect(shownValue(ports, {})).toBe('');
    expect(shownValue(ports, {}, { ports: '80' })).toBe('80');
    expect(shownValue(ports, { ports: '22' }, { ports: '80' })).toBe('22');
    expect(shownValue(field(fields, 'timing'), {})).toBe('T3');
    expect(shownValue(field(fields, 'serviceDetection'), {})).toBe(true);
    expect(shownValue(field(fields, 'serviceDetection'), {}, { serviceDetection: false })).toBe(
      false,
    );
    expect(shownValue(field(fields, 'scripts'), {}, { scripts: ['vuln', 'http-title'] })).toBe(
      'vuln, http-title',
    );
    expect(shownValue(field(fieldsOf('trivy'), 'scanners'), {})).toEqual(['vuln']);
    expect(shownValue(field(fieldsOf('nikto'), 'ssl'), {}, { ssl: false })).toBe('false');
    expect(
      shownValue(
        field(fieldsOf('zap'), 'authentication.type'),
        {},
        {
          authentication: { type: 'header' },
        },
      ),
    ).toBe('header');
  });
});

describe('optionsFromForm', () => {
  it('sends only the changed fields, converted to their JSON types', () => {
    const values: FormValues = {
      ports: '22,80',
      timing: 'T4',
      serviceDetection: false,
      scripts: 'vuln,  http-title\nssl-cert',
      topPorts: '100',
    };
    expect(optionsFromForm(fieldsOf('nmap'), values)).toEqual({
      ports: '22,80',
      timing: 'T4',
      serviceDetection: false,
      scripts: ['vuln', 'http-title', 'ssl-cert'],
      topPorts: 100,
    });
    expect(optionsFromForm(fieldsOf('nmap'), {})).toEqual({});
  });

  it('leaves out emptied text and numbers, and an unset tristate', () => {
    expect(optionsFromForm(fieldsOf('nikto'), { tuning: '  ', maxTime: '', ssl: '' })).toEqual({});
    expect(optionsFromForm(fieldsOf('nikto'), { ssl: 'true' })).toEqual({ ssl: true });
    expect(optionsFromForm(fieldsOf('nikto'), { ssl: 'false' })).toEqual({ ssl: false });
    expect(optionsFromForm(fieldsOf('sqlmap'), { level: '', batch: 'true' })).toEqual({});
  });

  it('sends a number that does not read as one as typed, for the service to refuse', () => {
    expect(optionsFromForm(fieldsOf('sqlmap'), { level: 'two' })).toEqual({ level: 'two' });
  });

  it('checkbox lists: nothing chosen is the tool’s own set without a default, [] with one', () => {
    expect(optionsFromForm(fieldsOf('wapiti'), { modules: [] })).toEqual({});
    expect(optionsFromForm(fieldsOf('wapiti'), { modules: ['xss', 'sql'] })).toEqual({
      modules: ['xss', 'sql'],
    });
    expect(optionsFromForm(fieldsOf('trivy'), { scanners: [] })).toEqual({ scanners: [] });
  });

  it('nests the fields of a group, and leaves an untouched group out', () => {
    expect(
      optionsFromForm(fieldsOf('zap'), {
        'authentication.type': 'header',
        'authentication.headerName': 'X-Api-Key',
        'authentication.headerValue': 's3cret',
        'authentication.username': '',
      }),
    ).toEqual({
      authentication: { type: 'header', headerName: 'X-Api-Key', headerValue: 's3cret' },
    });
    expect(optionsFromForm(fieldsOf('zap'), { ajaxSpider: true })).toEqual({ ajaxSpider: true });
  });

  it('parses a JSON field, and sends text that is no JSON as text', () => {
    const fields = optionFields({ type: 'object', properties: { extra: {} } });
    expect(optionsFromForm(fields, { extra: '{"a":[1]}' })).toEqual({ extra: { a: [1] } });
    expect(optionsFromForm(fields, { extra: 'nope' })).toEqual({ extra: 'nope' });
  });
});

describe('splitList', () => {
  it('splits on commas and lines, trimming and dropping blanks', () => {
    expect(splitList(' a, b ,,\n c \n')).toEqual(['a', 'b', 'c']);
    expect(splitList('')).toEqual([]);
  });
});

describe('asSentence', () => {
  it('ends help text with a full stop, once', () => {
    expect(asSentence('Crawl depth')).toBe('Crawl depth.');
    expect(asSentence('Crawl depth.')).toBe('Crawl depth.');
    expect(asSentence('1 to 5 (inclusive)')).toBe('1 to 5 (inclusive)');
    expect(asSentence('  ')).toBe('');
  });
});
