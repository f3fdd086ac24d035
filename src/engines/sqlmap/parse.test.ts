import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { sqlmapEngine } from './engine.js';
import {
  createSqlmapParser,
  MAX_LINE_CHARS,
  parseSqlmapReport,
  type SqlmapParseResult,
} from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'sqlmap');
const fixture = (name: string) => readFileSync(`${FIXTURES}/${name}`, 'utf8');

function urlTarget(value: string): ScanTarget {
  const host = new URL(value).hostname.replace(/^\[(.*)\]$/, '$1');
  return { type: 'url', value, host, hostIsAddress: /^[\d.]+$|:/.test(host) };
}

/** The URL the fixtures' lab scan requested (the CSV names it; the log does not). */
const LAB_URL = 'http://wave3sqli:5000/two?id=1&name=widget';
const LAB = urlTarget(LAB_URL);
const parse = (text: string, target: ScanTarget = LAB) => parseSqlmapReport(text, { target });

function streamed(text: string, size: number, target: ScanTarget = LAB): SqlmapParseResult {
  const parser = createSqlmapParser({ target });
  for (let i = 0; i < text.length; i += size) {
    parser.write(text.slice(i, i + size));
  }
  return parser.end();
}

/** A valid draft, and what sqlmap's findings hold, field by field. */
function expectSqlmapFinding(finding: DraftFinding): void {
  expectValidDraftFinding(finding);
  expect(finding.ruleId).toMatch(/^sql-injection:[^:]+:.+$/);
  expect(finding.title).toMatch(/^SQL injection in .+ parameter `.+`$/);
  expect(finding.severity).toBe('high');
  expect(finding.toolSeverity).toBeNull();
  expect(finding.category).toBe('sql-injection');
  const { host, port, protocol, url } = finding.location;
  expect(typeof host).toBe('string');
  expect(port !== null && Number.isInteger(port) && port > 0 && port <= 65535).toBe(true);
  expect(protocol).toBeNull();
  expect(url).toMatch(/^https?:\/\//);
  expect(finding.identifiers).toEqual({ cve: [], cwe: ['CWE-89'] });
  expect(finding.description).toContain('injectable');
  expect(finding.evidence).toMatch(/\S/);
  expect(finding.remediation).toContain('bound parameter');
  expect(finding.references).toContain('https://cwe.mitre.org/data/definitions/89.html');
  expect(JSON.stringify(finding.raw).length).toBeLessThan(4000);
}

const ruleIds = (result: SqlmapParseResult) => result.findings.map((f) => f.ruleId);
const fingerprints = (result: SqlmapParseResult) =>
  finalizeFindings('sqlmap', result.findings)
    .map((f) => f.fingerprint)
    .sort();

/**
 * The log a real sqlmap 1.7.2 wrote (`--technique=BEUSTQ --dbs`, the argv of buildSqlmapArgv)
 * against test/support/vulnerable-app.ts `/search?q=apple`: PostgreSQL (PGlite), four
 * techniques, the database list of --dbs.
 */
const REAL_POSTGRES_LOG = [
  'sqlmap identified the following injection point(s) with a total of 45 HTTP(s) requests:',
  '---',
  'Parameter: q (GET)',
  '    Type: boolean-based blind',
  '    Title: AND boolean-based blind - WHERE or HAVING clause',
  "    Payload: q=apple' AND 1965=1965 AND 'UVxK'='UVxK",
  '',
  '    Type: error-based',
  '    Title: PostgreSQL AND error-based - WHERE or HAVING clause',
  "    Payload: q=apple' AND 8327=CAST((CHR(113)||CHR(106)||CHR(118)||CHR(112)||CHR(113))||(SELECT (CASE WHEN (8327=8327) THEN 1 ELSE 0 END))::text||(CHR(113)||CHR(113)||CHR(98)||CHR(112)||CHR(113)) AS NUMERIC) AND 'CfPD'='CfPD",
  '',
  '    Type: time-based blind',
  '    Title: PostgreSQL > 8.1 AND time-based blind',
  "    Payload: q=apple' AND 9981=(SELECT 9981 FROM PG_SLEEP(5)) AND 'UlwV'='UlwV",
  '',
  '    Type: UNION query',
  '    Title: Generic UNION query (NULL) - 2 columns',
  "    Payload: q=apple' UNION ALL SELECT (CHR(113)||CHR(106)||CHR(118)||CHR(112)||CHR(113))||(CHR(117)||CHR(116)||CHR(100)||CHR(118)||CHR(97)||CHR(81)||CHR(98)||CHR(120)||CHR(74)||CHR(83)||CHR(71)||CHR(99)||CHR(80)||CHR(100)||CHR(120)||CHR(79)||CHR(97)||CHR(80)||CHR(116)||CHR(119)||CHR(100)||CHR(82)||CHR(77)||CHR(112)||CHR(74)||CHR(97)||CHR(107)||CHR(118)||CHR(99)||CHR(89)||CHR(79)||CHR(120)||CHR(110)||CHR(99)||CHR(121)||CHR(104)||CHR(90)||CHR(65)||CHR(83)||CHR(81))||(CHR(113)||CHR(113)||CHR(98)||CHR(112)||CHR(113)),NULL-- WGVL",
  '---',
  'back-end DBMS: PostgreSQL',
  'available databases [3]:',
  '[*] information_schema',
  '[*] pg_catalog',
  '[*] public',
  '',
  '',
].join('\n');

/** A one-parameter log block, for hand-made cases. */
function block(parameterLine: string, extra: string[] = []): string {
  return [
    'sqlmap identified the following injection point(s) with a total of 12 HTTP(s) requests:',
    '---',
    parameterLine,
    '    Type: boolean-based blind',
    '    Title: AND boolean-based blind - WHERE or HAVING clause',
    '    Payload: x=1 AND 1=1',
    ...extra,
    '---',
    'back-end DBMS: MySQL',
    '',
  ].join('\n');
}

describe('parseSqlmapReport on every sqlmap fixture', () => {
  const names = readdirSync(FIXTURES).sort();

  it('covers the five fixture files', () => {
    expect(names).toEqual([
      'log-empty.txt',
      'log-resumed-session.txt',
      'log-two-params.txt',
      'results-header-only.csv',
      'results-two-params.csv',
    ]);
  });

  it.each(names)('%s: valid findings, deterministic, no warnings', (name) => {
    const first = parse(fixture(name));
    for (const finding of first.findings) {
      expectSqlmapFinding(finding);
    }
    expect(first.warnings).toEqual([]);
    expect(first.complete).toBe(true);
    expect(parse(fixture(name))).toEqual(first);
  });

  it.each(names.flatMap((name) => [1, 2, 7, 64, 1000, 1 << 20].map((size) => [name, size])))(
    '%s streamed in chunks of %i equals the whole parse',
    (name, size) => {
      const text = fixture(String(name));
      expect(streamed(text, Number(size))).toEqual(parse(text));
    },
  );

  it('the engine command streams with the same parser', () => {
    const text = fixture('log-two-params.txt');
    const parser = sqlmapEngine.command?.createParser?.({ target: LAB });
    parser?.write(text);
    expect(parser?.end()).toEqual(sqlmapEngine.command?.parse(text, { target: LAB }));
  });
});

describe('parseSqlmapReport fixtures', () => {
  it('log-empty: a zero-byte log is a clean run, not a failure', () => {
    expect(parse(fixture('log-empty.txt'))).toEqual({
      findings: [],
      warnings: [],
      format: 'empty',
      complete: true,
    });
  });

  it('log-two-params: one finding per injectable parameter, at the requested URL', () => {
    const result = parse(fixture('log-two-params.txt'));
    expect(result.format).toBe('log');
    expect(ruleIds(result)).toEqual(['sql-injection:GET:name', 'sql-injection:GET:id']);
    const [name, id] = result.findings;
    expect(id).toMatchObject({
      title: 'SQL injection in GET parameter `id`',
      severity: 'high',
      toolSeverity: null,
      category: 'sql-injection',
      location: { host: 'wave3sqli', port: 5000, protocol: null, url: LAB_URL },
      identifiers: { cve: [], cwe: ['CWE-89'] },
      raw: {
        source: 'log',
        place: 'GET',
        parameter: 'id',
        techniques: [
          {
            type: 'boolean-based blind',
            title: 'AND boolean-based blind - WHERE or HAVING clause',
          },
          {
            type: 'time-based blind',
            title: 'SQLite > 2.0 AND time-based blind (heavy query)',
          },
          { type: 'UNION query', title: 'Generic UNION query (NULL) - 2 columns' },
        ],
        dbms: 'SQLite',
      },
    });
    expect(id?.description).toContain(
      `the GET parameter \`id\` of ${LAB_URL} is injectable (boolean-based blind, time-based blind, UNION query). Back-end DBMS: SQLite.`,
    );
    expect(id?.evidence).toContain(
      'Type: boolean-based blind\nTitle: AND boolean-based blind - WHERE or HAVING clause\nPayload: id=1 AND 7904=7904-- czBM&name=widget',
    );
    expect(id?.evidence?.endsWith('\n\nback-end DBMS: SQLite')).toBe(true);
    expect(name?.title).toBe('SQL injection in GET parameter `name`');
    expect(name?.evidence).toContain(
      "Payload: id=1&name=-7710' OR CASE WHEN 1218=1218 THEN 1218 ELSE JSON(CHAR(115,110,116,103)) END-- BEou",
    );
    expect(name?.evidence).not.toContain('UNION');
  });

  it('log-resumed-session: the repeated block gives one finding per (place, parameter)', () => {
    const result = parse(fixture('log-resumed-session.txt'));
    expect(ruleIds(result)).toEqual(['sql-injection:GET:id', 'sql-injection:GET:name']);
    expect(finalizeFindings('sqlmap', result.findings)).toHaveLength(2);
    // The first block's payloads are kept, each technique once.
    const id = result.findings[0];
    expect(id?.evidence?.match(/Type: /g)).toHaveLength(3);
    expect(id?.evidence).toContain('Payload: id=1 AND 5923=5923-- XZLv&name=widget');
  });

  it('results-header-only.csv: a header without rows is a clean run', () => {
    expect(parse(fixture('results-header-only.csv'))).toEqual({
      findings: [],
      warnings: [],
      format: 'csv',
      complete: true,
    });
  });

  it('results-two-params.csv: one finding per row, at the Target URL of the row', () => {
    // A different requested target proves the location comes from the CSV.
    const result = parse(fixture('results-two-params.csv'), urlTarget('http://elsewhere.example/'));
    expect(result.format).toBe('csv');
    expect(ruleIds(result)).toEqual(['sql-injection:GET:id', 'sql-injection:GET:name']);
    expect(result.findings.map((f) => f.location)).toEqual([
      { host: 'wave3sqli', port: 5000, protocol: null, url: LAB_URL },
      { host: 'wave3sqli', port: 5000, protocol: null, url: LAB_URL },
    ]);
    expect(result.findings.map((f) => f.evidence)).toEqual([
      'Technique(s): BTU (boolean-based blind, time-based blind, UNION query)',
      'Technique(s): BT (boolean-based blind, time-based blind)',
    ]);
    expect(result.findings[0]?.raw).toEqual({
      source: 'csv',
      place: 'GET',
      parameter: 'id',
      url: LAB_URL,
      techniques: [
        { type: 'boolean-based blind', title: null },
        { type: 'time-based blind', title: null },
        { type: 'UNION query', title: null },
      ],
      dbms: null,
    });
  });
});

describe('fingerprints', () => {
  it('a rerun with other random payloads keeps every fingerprint', () => {
    const first = parse(fixture('log-two-params.txt'));
    const rerun = parse(fixture('log-resumed-session.txt'));
    expect(first.findings[1]?.evidence).not.toEqual(rerun.findings[0]?.evidence);
    expect(fingerprints(rerun)).toEqual(fingerprints(first));
    expect(finalizeFindings('sqlmap', [...first.findings, ...rerun.findings])).toHaveLength(2);
  });

  it('the log and the CSV of the same scan give the same fingerprints', () => {
    expect(fingerprints(parse(fixture('results-two-params.csv')))).toEqual(
      fingerprints(parse(fixture('log-two-params.txt'))),
    );
  });

  it('parameters, places and URLs tell findings apart', () => {
    const text = [
      block('Parameter: id (GET)'),
      block('Parameter: id (POST)'),
      block('Parameter: name (GET)'),
    ].join('');
    const result = parse(text);
    expect(new Set(fingerprints(result)).size).toBe(3);
    const elsewhere = parse(block('Parameter: id (GET)'), urlTarget('http://other.example/?id=1'));
    expect(fingerprints(result)).not.toContain(fingerprints(elsewhere)[0]);
  });
});

describe('parseSqlmapReport, hand-made cases', () => {
  it('a real sqlmap 1.7.2 log with --dbs: PostgreSQL, four techniques, the database list', () => {
    const target = urlTarget('http://127.0.0.1:41234/search?q=apple');
    const result = parse(REAL_POSTGRES_LOG, target);
    expect(result).toMatchObject({ warnings: [], format: 'log', complete: true });
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      ruleId: 'sql-injection:GET:q',
      title: 'SQL injection in GET parameter `q`',
      location: { host: '127.0.0.1', port: 41234, protocol: null, url: target.value },
      raw: {
        dbms: 'PostgreSQL',
        databases: ['information_schema', 'pg_catalog', 'public'],
      },
    });
    expect(finding?.evidence?.match(/^Type: .*$/gm)).toEqual([
      'Type: boolean-based blind',
      'Type: error-based',
      'Type: time-based blind',
      'Type: UNION query',
    ]);
    expect(finding?.evidence).toContain(
      'back-end DBMS: PostgreSQL\ndatabases: information_schema, pg_catalog, public',
    );
    expectSqlmapFinding(finding as DraftFinding);
    for (const size of [1, 5, 333]) {
      expect(streamed(REAL_POSTGRES_LOG, size, target)).toEqual(result);
    }
  });

  it.each([
    ['nothing', ''],
    ['blank lines', '\n\n  \n'],
    ['whitespace', ' \t \r\n '],
  ])('%s: a clean run without warnings', (_name, text) => {
    expect(parse(text)).toEqual({ findings: [], warnings: [], format: 'empty', complete: true });
  });

  it.each([
    [
      'nmap XML',
      readFileSync(
        sharedPath('fixtures', 'scanner-output', 'nmap', 'ipv6-single-host.xml'),
        'utf8',
      ),
    ],
    ['JSON', '{"findings":[{"id":1}]}'],
    ['random text', 'hello world\nthis is not sqlmap\n'],
    ['a CSV with another header', 'url,param\nhttp://x/,id\n'],
    [
      'binary noise decoded as UTF-8',
      new TextDecoder().decode(new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0x0a, 0xc3])),
    ],
  ])('%s: no findings and a warning that it is not sqlmap output', (_name, text) => {
    const result = parse(text);
    expect(result.findings).toEqual([]);
    expect(result.format).toBe('unknown');
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^the report is neither a sqlmap log nor a sqlmap results CSV/,
    );
  });

  it('invalid UTF-8 inside a payload arrives as U+FFFD and the finding is kept', () => {
    const bytes = Buffer.from(fixture('log-two-params.txt'), 'utf8');
    const at = bytes.indexOf('czBM');
    bytes[at] = 0xff;
    bytes[at + 1] = 0xc3;
    const result = parse(new TextDecoder().decode(bytes));
    expect(result.warnings).toEqual([]);
    expect(ruleIds(result)).toEqual(['sql-injection:GET:name', 'sql-injection:GET:id']);
    expect(result.findings[1]?.evidence).toContain('-- \uFFFD\uFFFDBM&name=widget');
  });

  it('every prefix of a log (a cancelled scan) parses, and a cut block is reported', () => {
    const text = fixture('log-two-params.txt');
    const full = parse(text);
    const blockStart = text.indexOf('---\n') + 4;
    const blockEnd = text.lastIndexOf('---\n');
    for (let length = 0; length <= text.length; length += 1) {
      const result = parse(text.slice(0, length));
      expect(result.findings.length).toBeLessThanOrEqual(2);
      for (const finding of result.findings) {
        expect(ruleIds(full)).toContain(finding.ruleId);
      }
      if (length > blockStart + 'Parameter: name (GET)\n'.length && length <= blockEnd) {
        expect(result.complete, `prefix ${length}`).toBe(false);
        expect(result.findings.length).toBeGreaterThan(0);
        expect(result.warnings.some((w) => w.startsWith('the sqlmap log is truncated'))).toBe(true);
      }
      if (length >= blockEnd + 4) {
        expect(ruleIds(result)).toEqual(ruleIds(full));
        expect(result.complete).toBe(true);
      }
    }
  });

  it('a log cut inside a block says how many injection points it could read', () => {
    const text = fixture('log-two-params.txt');
    const result = parse(text.slice(0, text.indexOf('Parameter: id')));
    expect(ruleIds(result)).toEqual(['sql-injection:GET:name']);
    expect(result.warnings).toEqual([
      "the sqlmap log is truncated inside an injection-point block (no closing '---'): the run did not finish writing it; 1 injection point(s) were read",
    ]);
  });

  it('CRLF line ends and a byte-order mark change nothing', () => {
    const log = fixture('log-two-params.txt');
    expect(parse(`\uFEFF${log.replaceAll('\n', '\r\n')}`)).toEqual(parse(log));
    const csv = fixture('results-two-params.csv');
    expect(parse(`\uFEFF${csv.replaceAll('\n', '\r\n')}`)).toEqual(parse(csv));
    expect(streamed(log.replaceAll('\n', '\r\n'), 1)).toEqual(parse(log));
  });

  it.each([
    ['Parameter: #1* (URI)', 'URI', '#1*'],
    ['Parameter: JSON id ((custom) POST)', '(custom) POST', 'JSON id'],
    ['Parameter: User-Agent (User-Agent)', 'User-Agent', 'User-Agent'],
    ['Parameter: filter[name] (Cookie)', 'Cookie', 'filter[name]'],
    ['Parameter: sort (by) (GET)', 'GET', 'sort (by)'],
    ['Parameter: id (PUT)', 'PUT', 'id'],
  ])('reads %j as place %j, parameter %j', (line, place, parameter) => {
    const result = parse(block(line));
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => [f.ruleId, f.title])).toEqual([
      [
        `sql-injection:${place}:${parameter}`,
        `SQL injection in ${place} parameter \`${parameter}\``,
      ],
    ]);
  });

  it('keeps the fingerprint lines of the block they follow, and a multi-line payload', () => {
    const text = [
      block('Parameter: id (GET)', ['    Payload: continues', 'on the next line']),
      'web server operating system: Linux Debian 10 (buster)',
      'web application technology: Nginx 1.18.0, PHP 7.4.3',
      'banner: anything sqlmap adds later is skipped',
      'sqlmap resumed the following injection point(s) from stored session:',
      '---',
      'Parameter: token (Cookie)',
      '    Type: time-based blind',
      '    Title: SQLite > 2.0 AND time-based blind (heavy query)',
      '    Payload: token=1 AND 1=LIKE(1)',
      '---',
      'back-end DBMS: SQLite',
      '',
    ].join('\n');
    const result = parse(text);
    expect(result.warnings).toEqual([]);
    const [id, token] = result.findings;
    expect(id?.evidence).toContain('Payload: continues\non the next line');
    expect(id?.evidence).toContain(
      'back-end DBMS: MySQL\nweb server operating system: Linux Debian 10 (buster)\nweb application technology: Nginx 1.18.0, PHP 7.4.3',
    );
    expect(id?.raw).toMatchObject({ dbms: 'MySQL' });
    expect(token).toMatchObject({ ruleId: 'sql-injection:Cookie:token', raw: { dbms: 'SQLite' } });
    expect(token?.evidence).not.toContain('MySQL');
  });

  it('a line longer than the limit is cut with a warning, the rest of the log still read', () => {
    const payload = `x=${'A'.repeat(MAX_LINE_CHARS + 10)}`;
    const text = block('Parameter: x (GET)').replace('Payload: x=1 AND 1=1', `Payload: ${payload}`);
    const result = parse(text);
    expect(ruleIds(result)).toEqual(['sql-injection:GET:x']);
    expect(result.findings[0]?.raw).toMatchObject({ dbms: 'MySQL' });
    expect(result.warnings).toEqual([
      `1 line(s) longer than ${MAX_LINE_CHARS} characters were cut`,
    ]);
    expect(result.findings[0]?.evidence?.length).toBeLessThan(3000);
    expect(streamed(text, 4096)).toEqual(result);
  });

  it('keeps at most 1000 injection points', () => {
    const lines = [
      'sqlmap identified the following injection point(s) with a total of 1 HTTP(s) requests:',
      '---',
    ];
    for (let i = 0; i < 1001; i += 1) {
      lines.push(`Parameter: p${i} (GET)`, '    Type: boolean-based blind', '');
    }
    lines.push('---', '');
    const result = parse(lines.join('\n'));
    expect(result.findings).toHaveLength(1000);
    expect(result.warnings).toEqual(['more than 1000 injection points: 1 more were not reported']);
  });

  it('an https URL without a port and an IPv6 URL get their hosts and ports', () => {
    const https = parse(block('Parameter: q (GET)'), urlTarget('https://Shop.example/search?q=1'));
    expect(https.findings[0]?.location).toEqual({
      host: 'shop.example',
      port: 443,
      protocol: null,
      url: 'https://Shop.example/search?q=1',
    });
    const v6 = parse(block('Parameter: q (GET)'), urlTarget('http://[::1]:8080/?q=1'));
    expect(v6.findings[0]?.location).toMatchObject({ host: '::1', port: 8080 });
  });
});

describe('parseSqlmapReport, CSV cases', () => {
  const HEADER = 'Target URL,Place,Parameter,Technique(s),Note(s)';

  it('reads a quoted URL, and a parameter name holding a comma', () => {
    const result = parse(
      [
        HEADER,
        '"http://x.example/a?b=1,2&c=""d""",GET,b,B,',
        'http://x.example/form,POST,a,b,BE,',
        '',
      ].join('\n'),
    );
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => [f.location.url, f.ruleId, f.evidence])).toEqual([
      [
        'http://x.example/a?b=1,2&c="d"',
        'sql-injection:GET:b',
        'Technique(s): B (boolean-based blind)',
      ],
      [
        'http://x.example/form',
        'sql-injection:POST:a,b',
        'Technique(s): BE (boolean-based blind, error-based)',
      ],
    ]);
  });

  it('merges the duplicate rows of repeated runs, and keeps URLs apart', () => {
    const result = parse(
      [
        HEADER,
        'http://x.example/?id=1,GET,id,BT,',
        'http://x.example/?id=1,GET,id,BTU,',
        'http://y.example/?id=1,GET,id,E,',
      ].join('\n'),
    );
    expect(result.findings.map((f) => [f.location.host, f.evidence])).toEqual([
      ['x.example', 'Technique(s): BTU (boolean-based blind, time-based blind, UNION query)'],
      ['y.example', 'Technique(s): E (error-based)'],
    ]);
    expect(new Set(fingerprints(result)).size).toBe(2);
  });

  it('leaves out rows sqlmap marked as false positive, as its log does, with a warning', () => {
    const result = parse(
      [HEADER, 'http://x.example/?id=1,GET,id,B,false positive or unexploitable', ''].join('\n'),
    );
    expect(result.findings).toEqual([]);
    expect(result.warnings).toEqual([
      '1 row(s) of the sqlmap results CSV were marked by sqlmap as false positive or unexploitable and are not reported',
    ]);
  });

  it('skips incomplete and malformed rows with a warning (a cut-off file)', () => {
    const result = parse(
      [
        HEADER,
        'http://x.example/?id=1,GET,id,B,',
        '"http://x.example/?a=1,GET,a,B,',
        'http://x.example/?n=1,GET,n',
      ].join('\n'),
    );
    expect(ruleIds(result)).toEqual(['sql-injection:GET:id']);
    expect(result.warnings).toEqual([
      '2 row(s) of the sqlmap results CSV were incomplete or malformed and skipped',
    ]);
  });
});
