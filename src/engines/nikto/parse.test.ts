import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding, ParseResult } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { ParseContext } from '../engine.js';
import { createNiktoParser, parseNiktoReport } from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'nikto');
const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'nikto', name), 'utf8');

function urlContext(value: string): ParseContext {
  const target: ScanTarget = {
    type: 'url',
    value,
    host: new URL(value).hostname.replace(/^\[|\]$/g, ''),
    hostIsAddress: false,
  };
  return { target };
}

/** The URL each fixture's scan was run against (from the report itself). */
const REQUESTED: Readonly<Record<string, string>> = {
  'empty-array.json': 'http://juice-shop.demo-targets.svc:3000/',
  'juice-shop-2.5-array.json': 'http://juice-shop.demo-targets.svc:3000/',
  'localhost-2.1.5-flat.xml': 'http://127.0.0.1:8070/',
  'tdh-2.1.6-nested.xml': 'https://www.tdh.com/',
  'tdh-2.1.6-object.json': 'https://www.tdh.com/',
  'unresolvable-host-error.json': 'http://unresolvable.example.com/',
};

const parseFixture = (name: string) =>
  parseNiktoReport(fixture(name), urlContext(REQUESTED[name] ?? 'http://example.com/'));

/** Writes `text` through the streaming parser in pieces of `size` characters. */
function parseInChunks(text: string, context: ParseContext, size: number): ParseResult {
  const parser = createNiktoParser(context);
  for (let i = 0; i < text.length; i += size) {
    parser.write(text.slice(i, i + size));
  }
  return parser.end();
}

const CATEGORIES = [
  'default-credentials',
  'outdated-software',
  'http-method',
  'sensitive-file',
  'admin-interface',
  'security-header',
  'information-disclosure',
  'vulnerability',
  'interesting-content',
  'information',
];

/** A valid draft, and what nikto's findings hold, field by field. */
function expectNiktoFinding(finding: DraftFinding): void {
  expectValidDraftFinding(finding);
  expect(finding.ruleId).toMatch(/^\d{6}(:.+)?$/);
  expect(finding.title).toMatch(/\S/);
  expect(finding.title.length).toBeLessThanOrEqual(200);
  expect(finding.toolSeverity).toBeNull();
  expect(CATEGORIES).toContain(finding.category);
  const { host, port, protocol, url } = finding.location;
  expect(host).toMatch(/\S/);
  expect(port === null || (Number.isInteger(port) && port > 0 && port <= 65535)).toBe(true);
  expect(protocol).toBe('tcp');
  expect(url).toMatch(/^https?:\/\/[^/]+\//);
  expect(new URL(url ?? '').hostname.replace(/^\[|\]$/g, '')).toBe(host);
  for (const cve of finding.identifiers.cve) {
    expect(cve).toMatch(/^CVE-\d{4}-\d{4,}$/);
  }
  for (const cwe of finding.identifiers.cwe) {
    expect(cwe).toMatch(/^CWE-\d+$/);
  }
  for (const reference of finding.references) {
    expect(reference).toMatch(/^https?:\/\/\S+$/);
  }
  expect(JSON.stringify(finding.raw).length).toBeLessThan(3000);
}

function bySeverity(findings: readonly DraftFinding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) {
    counts[finding.severity] = (counts[finding.severity] ?? 0) + 1;
  }
  return counts;
}

describe('parseNiktoReport on every nikto fixture', () => {
  const names = readdirSync(FIXTURES).sort();

  it('covers the six fixture files', () => {
    expect(names).toEqual(Object.keys(REQUESTED).sort());
  });

  it.each(names)('%s: valid findings, deterministic', (name) => {
    const first = parseFixture(name);
    for (const finding of first.findings) {
      expectNiktoFinding(finding);
    }
    expect(parseFixture(name)).toEqual(first);
  });

  it.each(names)('%s: the streaming parser agrees in any chunking', (name) => {
    const text = fixture(name);
    const context = urlContext(REQUESTED[name] ?? '');
    const whole = parseNiktoReport(text, context);
    for (const size of [1, 7, 64, 1000, text.length]) {
      expect(parseInChunks(text, context, size), `chunks of ${size}`).toEqual(whole);
    }
  });
});

describe('parseNiktoReport fixtures', () => {
  it('nikto 2.5 array (juice-shop): every item a finding, backup files medium', () => {
    const text = fixture('juice-shop-2.5-array.json');
    const [host] = JSON.parse(text) as [{ vulnerabilities: Array<{ id: string }> }];
    const backupFiles = host.vulnerabilities.filter((item) => item.id === '740001').length;
    expect(backupFiles).toBe(160);
    const result = parseFixture('juice-shop-2.5-array.json');
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(host.vulnerabilities.length);
    expect(bySeverity(result.findings)).toEqual({ medium: backupFiles + 1, low: 4, info: 3 });
    const backup = result.findings.find((f) => f.location.url?.endsWith('/dump.tar.lzma'));
    expect(backup).toMatchObject({
      ruleId: '740001',
      title: 'Potentially interesting backup/cert file found. .',
      severity: 'medium',
      toolSeverity: null,
      category: 'sensitive-file',
      location: {
        host: 'juice-shop.demo-targets.svc',
        port: 3000,
        protocol: 'tcp',
        url: 'http://juice-shop.demo-targets.svc:3000/dump.tar.lzma',
      },
      identifiers: { cve: [], cwe: ['CWE-530'] },
      references: ['https://cwe.mitre.org/data/definitions/530.html'],
    });
    expect(backup?.evidence).toContain(
      'HEAD http://juice-shop.demo-targets.svc:3000/dump.tar.lzma',
    );
    // nikto prefixes the message with the path it tested: dropped from the title.
    const frame = result.findings.find((f) => f.ruleId === '999978');
    expect(frame).toMatchObject({ severity: 'low', category: 'security-header' });
    expect(frame?.title).toMatch(/^X-Frame-Options header is deprecated/);
    expect(result.findings.find((f) => f.location.url?.endsWith('/.htpasswd'))).toMatchObject({
      ruleId: '002739',
      severity: 'medium',
      category: 'sensitive-file',
    });
  });

  it('nikto 2.1.6 object (tdh): https from port 443, default account high', () => {
    const result = parseFixture('tdh-2.1.6-object.json');
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(8);
    expect(bySeverity(result.findings)).toEqual({ info: 6, low: 1, high: 1 });
    expect(result.findings.find((f) => f.severity === 'high')).toMatchObject({
      ruleId: '700007:Restricted',
      category: 'default-credentials',
      location: { host: 'www.tdh.com', port: 443, url: 'https://www.tdh.com/status' },
      remediation: 'Change or disable the default account.',
    });
    // Three "uncommon header" items of one test: told apart by the header they name.
    expect(
      result.findings.filter((f) => f.ruleId.startsWith('999100:')).map((f) => f.ruleId),
    ).toEqual(['999100:x-cacheable', '999100:x-cache', '999100:x-redirect-by']);
    expect(result.findings[0]?.evidence).toContain('server banner: nginx');
  });

  it('nikto 2.1.6 nested XML (tdh): the inner <niktoscan> is read, https from <ssl>', () => {
    const result = parseFixture('tdh-2.1.6-nested.xml');
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => [f.ruleId, f.severity, f.location.url])).toEqual([
      ['999100:x-cache', 'info', 'https://www.tdh.com/'],
      ['999100:x-cacheable', 'info', 'https://www.tdh.com/'],
      ['999100:x-redirect-by', 'info', 'https://www.tdh.com/iqeVqbOU.'],
      ['999997:/wp-admin/', 'info', 'https://www.tdh.com/wp-admin/'],
      ['999996', 'info', 'https://www.tdh.com/robots.txt'],
      ['999966', 'low', 'https://www.tdh.com/'],
    ]);
    expect(result.findings[0]?.location).toEqual({
      host: 'www.tdh.com',
      port: 443,
      protocol: 'tcp',
      url: 'https://www.tdh.com/',
    });
  });

  it('nikto 2.1.5 flat XML (localhost): 13 items, OSVDB kept, empty namelink rebuilt', () => {
    const result = parseFixture('localhost-2.1.5-flat.xml');
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(13);
    expect(bySeverity(result.findings)).toEqual({ medium: 6, low: 5, info: 2 });
    expect(result.findings.map((f) => f.ruleId)).toContain('000366');
    const put = result.findings.find((f) => f.title.includes("'PUT'"));
    expect(put).toMatchObject({
      ruleId: '999978:Allow',
      severity: 'medium',
      category: 'http-method',
      location: { host: 'localhost', port: 8070, url: 'http://localhost:8070/' },
    });
    expect(put?.description).toContain('OSVDB-397');
    // Item 500008 has an empty <namelink>: the URL comes from scandetails and <uri>.
    expect(result.findings.find((f) => f.ruleId === '500008')?.location.url).toBe(
      'http://localhost:8070/favicon.ico',
    );
    const xss = result.findings.find((f) => f.ruleId === '000834');
    expect(xss).toMatchObject({ severity: 'medium', category: 'vulnerability' });
    expect(xss?.title).toBe('myphpnuke is vulnerable to Cross Site Scripting (XSS). CA-2000-02.');
    expect(result.findings.find((f) => f.ruleId === '006525')).toMatchObject({
      severity: 'medium',
      category: 'admin-interface',
      location: { url: 'http://localhost:8070/manager/html' },
    });
  });

  it('[] (nikto 2.5 with nothing to report) is clean: no findings, no warnings', () => {
    expect(parseFixture('empty-array.json')).toEqual({ findings: [], warnings: [] });
  });

  it('the ERROR pseudo-item with id 0 is a warning, not a finding', () => {
    expect(parseFixture('unresolvable-host-error.json')).toEqual({
      findings: [],
      warnings: [
        "nikto reported an error for unresolvable.example.com: ERROR: Cannot resolve hostname 'unresolvable.example.com' because 'Name does not resolve'.",
      ],
    });
  });
});

const TARGET = urlContext('https://shop.example.com/');

/** A nikto 2.5 report with the given items for shop.example.com:443. */
function report(items: readonly object[], host: Record<string, string> = {}): string {
  return JSON.stringify([
    {
      host: 'shop.example.com',
      ip: '192.0.2.20',
      port: '443',
      banner: 'nginx/1.25',
      ...host,
      vulnerabilities: items,
    },
  ]);
}

const HEADER = {
  id: '999100',
  method: 'GET',
  url: '/',
  msg: "Uncommon header 'x-cache' found, with contents: HIT",
};

describe('parseNiktoReport edge cases', () => {
  it.each([
    ['an empty string', '', 'nikto wrote an empty report'],
    ['whitespace', ' \n\t\r\n ', 'nikto wrote an empty report'],
    ['a byte-order mark only', '\uFEFF', 'nikto wrote an empty report'],
    [
      'plain text',
      '+ ERROR: Cannot resolve hostname',
      'the report is not nikto JSON or XML (it starts with "+ ERROR: Cannot resolve hostname")',
    ],
    ['a JSON number', '42', 'the report is not nikto JSON or XML (it starts with "42")'],
    [
      'binary noise',
      '\u0000\u00ff\ufffd',
      'the report is not nikto JSON or XML (it starts with "\\u0000ÿ�")',
    ],
    [
      'nmap XML',
      '<?xml version="1.0"?><nmaprun scanner="nmap"><host/></nmaprun>',
      'the XML is not a nikto report: no <niktoscan> element',
    ],
    [
      'an unrelated JSON object',
      '{"SchemaVersion": 2, "Results": []}',
      'the JSON holds no nikto host record (it starts with "{\\"SchemaVersion\\": 2, \\"Results\\": []}")',
    ],
  ])('%s: no findings and one warning', (_name, input, warning) => {
    expect(parseNiktoReport(input, TARGET)).toEqual({ findings: [], warnings: [warning] });
  });

  it('a host tested without items is clean', () => {
    expect(parseNiktoReport(report([]), TARGET)).toEqual({ findings: [], warnings: [] });
  });

  it('truncated JSON (a cancelled scan) keeps every complete item and says so', () => {
    const text = fixture('juice-shop-2.5-array.json');
    const cut = text.slice(0, text.indexOf('/dump.tar.lzma'));
    const result = parseNiktoReport(cut, urlContext(REQUESTED['juice-shop-2.5-array.json'] ?? ''));
    // Items before the cut: 5 header/robots items and 8 backup files; the 9th is half-written.
    expect(result.findings).toHaveLength(13);
    expect(result.findings.at(-1)?.location.url).toBe(
      'http://juice-shop.demo-targets.svc:3000/168.tar.lzma',
    );
    expect(result.warnings).toEqual([
      'nikto JSON is truncated (the scan did not finish): findings come from the 13 complete item(s)',
    ]);
  });

  it('JSON cut right after "[" as nikto 2.5 leaves it before the first host', () => {
    expect(parseNiktoReport('[', TARGET)).toEqual({
      findings: [],
      warnings: [
        'nikto JSON is truncated (the scan did not finish): findings come from the 0 complete item(s)',
        'the JSON holds no nikto host record (it starts with "[")',
      ],
    });
  });

  it('malformed JSON keeps the items before the error', () => {
    // nikto 2.5 writes the banner without JSON escaping; a backslash in it breaks the document.
    const text = `${report([HEADER]).slice(0, -2)},{"id":"999986","msg":"bad \\q escape"}]}]`;
    const result = parseNiktoReport(text, TARGET);
    expect(result.findings.map((f) => f.ruleId)).toEqual(['999100:x-cache']);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^nikto JSON is malformed \(.+\): findings come from the 1 item\(s\) read before that point$/,
    );
  });

  it('reads nikto 2.1.6 output for two hosts: bare objects one after another', () => {
    const first = JSON.stringify({
      host: 'a.example.com',
      ip: '192.0.2.1',
      port: '80',
      banner: '',
      vulnerabilities: [HEADER],
    });
    const second = JSON.stringify({
      host: 'b.example.com',
      ip: '192.0.2.2',
      port: '8443',
      banner: '',
      vulnerabilities: [HEADER],
    });
    const result = parseNiktoReport(`${first}\n${second}\n`, TARGET);
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => f.location)).toEqual([
      { host: 'a.example.com', port: 80, protocol: 'tcp', url: 'http://a.example.com/' },
      { host: 'b.example.com', port: 8443, protocol: 'tcp', url: 'https://b.example.com:8443/' },
    ]);
  });

  it('invalid UTF-8 bytes (decoded as U+FFFD) do not stop the parse', () => {
    const before = Buffer.from(
      report([{ ...HEADER, msg: "Uncommon header 'x-caf" }]).split('x-caf')[0] ?? '',
    );
    const text = Buffer.concat([
      before,
      Buffer.from('x-caf'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from(`' found"}]}]`),
    ]).toString('utf8');
    const result = parseNiktoReport(text, TARGET);
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => f.ruleId)).toEqual(['999100:x-caf\ufffd\ufffd']);
  });

  it("undoes nikto's double escaping of quotes in messages", () => {
    const result = parseNiktoReport(
      report([
        {
          id: '999996',
          method: 'GET',
          url: '/robots.txt',
          msg: '\\"robots.txt\\" contains 2 entries.',
        },
      ]),
      TARGET,
    );
    expect(result.findings[0]?.title).toBe('"robots.txt" contains 2 entries.');
  });

  it('takes the path from the message when url is empty, and the scheme from the requested URL', () => {
    const result = parseNiktoReport(
      report(
        [
          {
            id: '999957',
            method: 'GET',
            url: '',
            msg: '/admin/: The anti-clickjacking X-Frame-Options header is not present.',
          },
        ],
        { port: '8080' },
      ),
      urlContext('https://shop.example.com:8080/'),
    );
    expect(result.findings[0]).toMatchObject({
      title: 'The anti-clickjacking X-Frame-Options header is not present.',
      severity: 'low',
      location: { port: 8080, url: 'https://shop.example.com:8080/admin/' },
    });
  });

  it('falls back to the IP, then to the requested host, when nikto names no host', () => {
    const byIp = parseNiktoReport(report([HEADER], { host: '' }), TARGET);
    expect(byIp.findings[0]?.location).toMatchObject({
      host: '192.0.2.20',
      url: 'https://192.0.2.20/',
    });
    const byTarget = parseNiktoReport(report([HEADER], { host: '', ip: '' }), TARGET);
    expect(byTarget.findings[0]?.location).toMatchObject({ host: 'shop.example.com' });
  });

  it('reads numeric ids and ports of old output, padding ids to six digits', () => {
    const text =
      '[{"host":"shop.example.com","ip":"192.0.2.20","port":443,"banner":"","vulnerabilities":[{"id":366,"OSVDB":0,"method":"GET","url":"/examples/","msg":"Apache Tomcat default JSP pages present."}]}]';
    const [finding] = parseNiktoReport(text, TARGET).findings;
    expect(finding).toMatchObject({ ruleId: '000366', severity: 'low', location: { port: 443 } });
  });

  it('skips a vulnerability entry that is not an object, with a warning', () => {
    const result = parseNiktoReport(report(['text', HEADER] as object[]), TARGET);
    expect(result.findings).toHaveLength(1);
    expect(result.warnings).toEqual([
      'nikto JSON has a vulnerability entry that is not an object; it is skipped',
    ]);
  });

  it('extracts CVE ids from messages and references', () => {
    const [finding] = parseNiktoReport(
      report([
        {
          id: '001234',
          method: 'GET',
          url: '/cgi-bin/test.cgi',
          msg: 'Test CGI; see cve-2014-6271.',
          references: 'https://nvd.nist.gov/vuln/detail/CVE-2014-6278 https://example.org/a',
        },
      ]),
      TARGET,
    ).findings;
    expect(finding).toMatchObject({
      severity: 'medium',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2014-6271', 'CVE-2014-6278'], cwe: [] },
      references: ['https://nvd.nist.gov/vuln/detail/CVE-2014-6278', 'https://example.org/a'],
    });
  });

  it('truncated XML keeps the complete items', () => {
    const xml = fixture('localhost-2.1.5-flat.xml');
    const result = parseNiktoReport(xml.slice(0, xml.indexOf('<item id="000834"') + 30), TARGET);
    expect(result.findings).toHaveLength(7);
    expect(result.warnings).toEqual([
      'nikto XML is truncated (no closing </niktoscan>): findings come from the 7 complete <item> element(s)',
    ]);
  });

  it('XML cut before its first item gives a warning only', () => {
    const xml = fixture('tdh-2.1.6-nested.xml');
    expect(parseNiktoReport(xml.slice(0, xml.indexOf('<item')), TARGET)).toEqual({
      findings: [],
      warnings: ['nikto XML is truncated before its first complete <item>: nothing was read'],
    });
  });

  it('refuses an XML DOCTYPE with an external entity instead of loading it', () => {
    const xml = `<?xml version="1.0"?>
<!DOCTYPE niktoscan [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<niktoscan><scandetails targethostname="a.example.com" targetport="80"><item id="999100" method="GET"><description>&xxe;</description><uri>/</uri></item></scandetails></niktoscan>`;
    const result = parseNiktoReport(xml, TARGET);
    expect(result.findings).toEqual([]);
    expect(result.warnings).toEqual([
      'nikto XML is not well-formed: External entities are not supported',
    ]);
  });

  it('decodes XML entities outside CDATA and keeps CDATA literal', () => {
    const xml =
      '<niktoscan><scandetails targethostname="a.example.com" targetport="80" targetbanner="A &amp; B"><item id="999100" method="GET"><description>Uncommon header &apos;x-a&amp;b&apos; <![CDATA[&amp; more]]></description><uri><![CDATA[/]]></uri></item></scandetails></niktoscan>';
    const [finding] = parseNiktoReport(xml, TARGET).findings;
    // Text outside CDATA is decoded (and trimmed by the XML parser); CDATA stays as written.
    expect(finding?.title).toBe("Uncommon header 'x-a&b'&amp; more");
    expect(finding?.ruleId).toBe('999100:x-a&b');
    expect(finding?.evidence).toContain('server banner: A & B');
  });
  it('streams a large report in linear time: 20,000 items in 64 KiB chunks', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({
      id: '740001',
      method: 'HEAD',
      url: `/backup-${i}.tar`,
      msg: 'Potentially interesting backup/cert file found. .',
    }));
    const text = report(items);
    const started = performance.now();
    const result = parseInChunks(text, TARGET, 64 * 1024);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(20_000);
    expect(result.findings.at(-1)?.location.url).toBe('https://shop.example.com/backup-19999.tar');
  });
});

describe('nikto fingerprints', () => {
  const fingerprints = (findings: readonly DraftFinding[]) =>
    finalizeFindings('nikto', findings).map((f) => f.fingerprint);

  it('a rescan with changed volatile text keeps every fingerprint', () => {
    const first = parseNiktoReport(
      report([
        HEADER,
        {
          id: '999984',
          method: 'GET',
          url: '/favicon.ico',
          msg: 'Server leaks inodes via ETags, header found with file /favicon.ico, fields: 0xW/21630 0x1602011686000',
        },
        {
          id: '999996',
          method: 'GET',
          url: '/robots.txt',
          msg: 'contains 1 entry which should be manually viewed.',
        },
      ]),
      TARGET,
    );
    const rescan = parseNiktoReport(
      report(
        [
          { ...HEADER, msg: "Uncommon header 'x-cache' found, with contents: MISS" },
          {
            id: '999984',
            method: 'HEAD',
            url: '/favicon.ico',
            msg: 'Server leaks inodes via ETags, header found with file /favicon.ico, fields: 0xW/9 0x99',
          },
          {
            id: '999996',
            method: 'GET',
            url: '/robots.txt',
            msg: 'contains 7 entries which should be manually viewed.',
          },
        ],
        { ip: '192.0.2.99', banner: 'nginx/1.27' },
      ),
      TARGET,
    );
    expect(fingerprints(rescan.findings)).toEqual(fingerprints(first.findings));
  });

  it('the same issue from JSON and from XML of one scan has one fingerprint', () => {
    const json = parseFixture('tdh-2.1.6-object.json').findings.find(
      (f) => f.ruleId === '999997:/wp-admin/',
    );
    const xml = parseFixture('tdh-2.1.6-nested.xml').findings.find(
      (f) => f.ruleId === '999997:/wp-admin/',
    );
    expect(json).toBeDefined();
    expect(fingerprints([json as DraftFinding])).toEqual(fingerprints([xml as DraftFinding]));
  });

  it('distinct issues stay distinct: other header, other path, other test, other port', () => {
    const result = parseNiktoReport(
      report([
        HEADER,
        { ...HEADER, msg: "Uncommon header 'x-cacheable' found, with contents: YES" },
        { ...HEADER, url: '/shop/' },
        { ...HEADER, id: '999986', msg: 'Retrieved access-control-allow-origin header: *.' },
      ]),
      TARGET,
    );
    const other = parseNiktoReport(report([HEADER], { port: '8443' }), TARGET);
    const all = fingerprints([...result.findings, ...other.findings]);
    expect(new Set(all).size).toBe(5);
  });

  it('nikto 2.6: five missing security headers (one test id) are five findings, stable on a rescan', () => {
    const headers = [
      'content-security-policy',
      'permissions-policy',
      'referrer-policy',
      'strict-transport-security',
      'x-content-type-options',
    ];
    const items = (see: boolean) =>
      headers.map((header) => ({
        id: '013587',
        method: 'GET',
        url: '/',
        msg: `Suggested security header missing: ${header}.${see ? ` See: https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/${header}` : ''}`,
      }));
    const first = parseNiktoReport(report(items(true)), TARGET).findings;
    expect(first.map((f) => f.ruleId)).toEqual(headers.map((header) => `013587:${header}`));
    expect(new Set(fingerprints(first)).size).toBe(5);
    expect(finalizeFindings('nikto', first)).toHaveLength(5);
    // A rescan (here without the "See:" link, and in reverse order) gives the same five.
    const rescan = parseNiktoReport(report(items(false).reverse()), TARGET).findings;
    expect(fingerprints(rescan).sort()).toEqual(fingerprints(first).sort());
  });

  it('headers named without quotes: the name is the subject, in lower case', () => {
    const retrieved = (header: string) => ({
      ...HEADER,
      id: '999986',
      msg: `Retrieved ${header} header: value.`,
    });
    const { findings } = parseNiktoReport(
      report([retrieved('X-Powered-By'), retrieved('access-control-allow-origin')]),
      TARGET,
    );
    expect(findings.map((f) => f.ruleId)).toEqual([
      '999986:x-powered-by',
      '999986:access-control-allow-origin',
    ]);
  });

  it('an item whose test id names the header keeps its rule id (2.1.5 X-Frame-Options)', () => {
    const { findings } = parseNiktoReport(
      report([
        {
          id: '999976',
          method: 'GET',
          url: '/',
          msg: 'The anti-clickjacking X-Frame-Options header is not present.',
        },
      ]),
      TARGET,
    );
    expect(findings.map((f) => f.ruleId)).toEqual(['999976']);
  });

  it('keeps all 168 juice-shop items apart (no two share a fingerprint)', () => {
    const { findings } = parseFixture('juice-shop-2.5-array.json');
    expect(finalizeFindings('nikto', findings)).toHaveLength(findings.length);
  });
});

describe('nikto items with an absolute URL', () => {
  const SHOP = urlContext('https://shop.example.com/shop');
  const item = (url: string) => ({ id: '999990', method: 'GET', url, msg: 'A page was found.' });
  const urlOf = (url: string, context = SHOP) =>
    parseNiktoReport(report([item(url)]), context).findings[0]?.location.url;

  it.each([
    // nikto 2.6 puts its -root before a URL it found: the URL is kept as it is.
    ['/shophttp://other.example.com/login?next=1', 'http://other.example.com/login?next=1'],
    ['/shophttps://shop.example.com:8443/a', 'https://shop.example.com:8443/a'],
    ['http://shop.example.com/x', 'http://shop.example.com/x'],
    // A path is joined onto the tested host as before.
    ['/shop/admin/', 'https://shop.example.com/shop/admin/'],
    // A URL in the query is not the item's URL.
    [
      '/shop/go?to=http://elsewhere.example/',
      'https://shop.example.com/shop/go?to=http://elsewhere.example/',
    ],
  ])('%s → %s', (path, expected) => {
    expect(urlOf(path)).toBe(expected);
  });

  it('the absolute URL wins over the XML namelink nikto built from it', () => {
    const xml = `<?xml version="1.0" ?>
<niktoscan version="2.1.5">
<scandetails targetip="192.0.2.20" targethostname="shop.example.com" targetport="443" sitename="https://shop.example.com:443/">
<item id="999990" osvdbid="0" method="GET">
<description><![CDATA[A page was found.]]></description>
<uri><![CDATA[/shophttp://other.example.com/x]]></uri>
<namelink><![CDATA[https://shop.example.com:443/shophttp://other.example.com/x]]></namelink>
</item>
</scandetails>
</niktoscan>`;
    const { findings } = parseNiktoReport(xml, SHOP);
    expect(findings.map((f) => f.location.url)).toEqual(['http://other.example.com/x']);
  });
});
