import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvHeaderLine, csvRecordLine, escapeCsvField, renderCsv } from './csv.js';
import type { Finding } from './finding.js';

const HEADER =
  'id,scanId,engine,severity,toolSeverity,title,category,host,port,protocol,url,cve,cwe,' +
  'fingerprint,description,remediation,references,createdAt,issueId,triage,baselineState';

function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    id: 'fnd_1',
    scanId: 'scan_1',
    engine: 'nmap',
    ruleId: 'open-port',
    title: 'Open port 443/tcp',
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    location: { host: 'example.com', port: 443, protocol: 'tcp', url: null },
    identifiers: { cve: [], cwe: [] },
    description: null,
    evidence: null,
    remediation: null,
    references: [],
    raw: {},
    fingerprint: 'ab'.repeat(32),
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
    correlation: null,
    issue: null,
    ...overrides,
  };
}

/** A strict RFC 4180 reader for the tests: records of fields, CRLF between records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"' && field === '') {
      i += 1;
      for (;;) {
        const next = text.indexOf('"', i);
        if (next < 0) {
          throw new Error('unterminated quote');
        }
        field += text.slice(i, next);
        if (text[next + 1] === '"') {
          field += '"';
          i = next + 2;
        } else {
          i = next + 1;
          break;
        }
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        throw new Error(`text after closing quote at ${i}`);
      }
    } else if (char === ',') {
      fields.push(field);
      field = '';
      i += 1;
    } else if (char === '\r') {
      expect(text[i + 1], 'CR must be followed by LF').toBe('\n');
      fields.push(field);
      records.push(fields);
      fields = [];
      field = '';
      i += 2;
    } else {
      expect(char === '\n' || char === '"', `bare ${JSON.stringify(char)} at ${i}`).toBe(false);
      field += char;
      i += 1;
    }
  }
  expect(field, 'file ends with CRLF').toBe('');
  return records;
}

function cell(text: string, column: (typeof CSV_COLUMNS)[number], record = 1): string | undefined {
  return parseCsv(text)[record]?.[CSV_COLUMNS.indexOf(column)];
}

describe('renderCsv', () => {
  it('is its header line followed by each record line (what the streamed export writes)', () => {
    expect(csvHeaderLine()).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
    const findings = [finding(), finding({ title: '=cmd, "x"' })];
    expect(renderCsv(findings)).toBe(csvHeaderLine() + findings.map(csvRecordLine).join(''));
  });

  it('gives the header line alone for no findings', () => {
    expect(renderCsv([])).toBe(`${HEADER}\r\n`);
  });

  it('writes the header and one record per finding, every line ending in CRLF', () => {
    const text = renderCsv([finding(), finding({ id: 'fnd_2' })]);
    expect(text.split('\r\n')).toEqual([HEADER, expect.any(String), expect.any(String), '']);
    expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    const records = parseCsv(text);
    expect(records).toHaveLength(3);
    for (const record of records) {
      expect(record).toHaveLength(CSV_COLUMNS.length);
    }
  });

  it('writes every column of a finding in order', () => {
    const text = renderCsv([
      finding({
        severity: 'high',
        toolSeverity: '7.5',
        location: { host: 'example.com', port: 8443, protocol: 'tcp', url: 'https://example.com/' },
        identifiers: { cve: ['CVE-2024-0001', 'CVE-2024-0002'], cwe: ['CWE-79'] },
        description: 'desc',
        remediation: 'fix it',
        references: ['https://a.example', 'https://b.example'],
        issue: {
          id: 'issue-1',
          baselineState: 'updated',
          triage: { state: 'false_positive', reason: 'x', by: 'k', at: null, expiresAt: null },
        },
      }),
    ]);
    expect(parseCsv(text)[1]).toEqual([
      'fnd_1',
      'scan_1',
      'nmap',
      'high',
      '7.5',
      'Open port 443/tcp',
      'open-port',
      'example.com',
      '8443',
      'tcp',
      'https://example.com/',
      'CVE-2024-0001;CVE-2024-0002',
      'CWE-79',
      'ab'.repeat(32),
      'desc',
      'fix it',
      'https://a.example;https://b.example',
      '2026-01-02T03:04:05.006Z',
      'issue-1',
      'false_positive',
      'updated',
    ]);
  });

  it('writes nulls and empty lists as empty fields', () => {
    const text = renderCsv([
      finding({ location: { host: null, port: null, protocol: null, url: null } }),
    ]);
    const record = text.split('\r\n')[1];
    expect(record).toBe(
      `fnd_1,scan_1,nmap,info,,Open port 443/tcp,open-port,,,,,,,${'ab'.repeat(32)},,,,2026-01-02T03:04:05.006Z,,,`,
    );
  });

  it('quotes fields with commas and quotes, doubling the quotes', () => {
    const text = renderCsv([finding({ title: 'Server says "hello", twice' })]);
    expect(text).toContain(',"Server says ""hello"", twice",');
    expect(cell(text, 'title')).toBe('Server says "hello", twice');
  });

  it('keeps line breaks inside a quoted description', () => {
    const description = 'line one\nline two\r\nline three\rend';
    const text = renderCsv([finding({ description })]);
    expect(text).toContain('"line one\nline two\r\nline three\rend"');
    expect(cell(text, 'description')).toBe(description);
    expect(parseCsv(text)).toHaveLength(2);
  });

  it('quotes multi-value fields, whose separator Excel may split on', () => {
    const text = renderCsv([finding({ identifiers: { cve: ['CVE-1', 'CVE-2'], cwe: [] } })]);
    expect(text).toContain(',"CVE-1;CVE-2",');
  });

  it('writes an invalid createdAt as an empty field instead of throwing', () => {
    const text = renderCsv([finding({ createdAt: new Date(Number.NaN) })]);
    expect(cell(text, 'createdAt')).toBe('');
  });

  it.each([
    [
      '=HYPERLINK("http://evil.example","click")',
      `"'=HYPERLINK(""http://evil.example"",""click"")"`,
    ],
    ['+1', "'+1"],
    ['-1+2', "'-1+2"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\t=1+1', "'\t=1+1"],
    ['\r=1+1', `"'\r=1+1"`],
  ])('neutralizes the formula %j', (title, expected) => {
    const text = renderCsv([finding({ title })]);
    expect(text).toContain(`,${expected},`);
    expect(cell(text, 'title')).toBe(`'${title}`);
  });

  it('guards every column, not only free text', () => {
    const text = renderCsv([
      finding({
        toolSeverity: '-5',
        location: { host: '@evil', port: 1, protocol: 'tcp', url: '=cmd|x' },
        references: ['=HYPERLINK("x")', 'https://ok.example'],
      }),
    ]);
    expect(cell(text, 'toolSeverity')).toBe("'-5");
    expect(cell(text, 'host')).toBe("'@evil");
    expect(cell(text, 'url')).toBe("'=cmd|x");
    expect(cell(text, 'references')).toBe(`'=HYPERLINK("x");https://ok.example`);
  });
});

describe('escapeCsvField', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['a;b', '"a;b"'],
    ['say "hi"', '"say ""hi"""'],
    ['a\nb', '"a\nb"'],
    ["'already quoted", "'already quoted"],
    ['mid=dle', 'mid=dle'],
    [' =1+1', ' =1+1'],
  ])('%j → %j', (input, expected) => {
    expect(escapeCsvField(input)).toBe(expected);
  });
});
