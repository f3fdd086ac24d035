import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding, ParseResult } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import { severityOf, stableUrl } from './alerts.js';
import { zapEngine } from './engine.js';
import { createZapParser, parseZapReport } from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'zap');
const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'zap', name), 'utf8');
const BASELINE = 'traditional-json-2.14-baseline.json';
const WEEKLY = 'traditional-json-weekly-2-sites-high.json';
const XML_216 = 'xml-2.16.1-with-requests-responses.xml';
const XML_211 = 'xml-2.11.1-localized-date.xml';
const XML_290 = 'xml-2.9.0-empty-site.xml';

/** The text written through the streaming parser in chunks of `size` characters. */
function streamed(text: string, size: number): ParseResult {
  const parser = createZapParser();
  for (let i = 0; i < text.length; i += size) {
    parser.write(text.slice(i, i + size));
  }
  return parser.end();
}

function bySeverity(findings: readonly DraftFinding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) {
    counts[finding.severity] = (counts[finding.severity] ?? 0) + 1;
  }
  return counts;
}

function find(result: ParseResult, ruleId: string, url?: string): DraftFinding | undefined {
  return result.findings.find(
    (f) => f.ruleId === ruleId && (url === undefined || f.location.url === url),
  );
}

/** A valid draft, and what ZAP's findings hold, field by field. */
function expectZapFinding(finding: DraftFinding): void {
  expectValidDraftFinding(finding);
  expect(finding.ruleId).toMatch(/^\S/);
  expect(finding.title).toMatch(/\S/);
  expect(finding.severity).not.toBe('critical');
  expect(['0', '1', '2', '3']).toContain(finding.toolSeverity);
  expect(['vulnerability', 'informational']).toContain(finding.category);
  expect(typeof finding.location.host).toBe('string');
  expect(Number.isInteger(finding.location.port)).toBe(true);
  expect(finding.location.protocol).toBeNull();
  expect(finding.location.url).toMatch(/^https?:\/\//);
  for (const cve of finding.identifiers.cve) {
    expect(cve).toMatch(/^CVE-\d{4}-\d{4,}$/);
  }
  for (const cwe of finding.identifiers.cwe) {
    expect(cwe).toMatch(/^CWE-[1-9]\d*$/);
  }
  expect(new Set(finding.identifiers.cwe).size).toBe(finding.identifiers.cwe.length);
  for (const reference of finding.references) {
    expect(reference).toMatch(/^https?:\/\/\S+$/);
  }
  for (const text of [finding.description, finding.remediation]) {
    expect(text === null || !/<\/?p>/.test(text)).toBe(true);
  }
  expect(JSON.stringify(finding.raw).length).toBeLessThan(8_000);
}

describe('parseZapReport on every ZAP fixture', () => {
  const names = readdirSync(FIXTURES).sort();

  it('covers the five fixture files', () => {
    expect(names).toEqual([BASELINE, WEEKLY, XML_211, XML_216, XML_290]);
  });

  it.each(names)('%s: valid findings, deterministic, the same in any chunking', (name) => {
    const text = fixture(name);
    const whole = parseZapReport(text);
    for (const finding of whole.findings) {
      expectZapFinding(finding);
    }
    expect(parseZapReport(text)).toEqual(whole);
    expect(zapEngine.command?.parse(text, { target: TARGET })).toEqual(whole);
    for (const size of [text.length + 1, 4096, 7]) {
      expect(streamed(text, size), `chunks of ${size}`).toEqual(whole);
    }
  });

  it.each(names)('%s cut in the middle: a prefix of the findings, a warning, no throw', (name) => {
    const text = fixture(name);
    const whole = parseZapReport(text);
    for (const cut of [0.3, 0.5, 0.9]) {
      const partial = parseZapReport(text.slice(0, Math.floor(text.length * cut)));
      expect(whole.findings.slice(0, partial.findings.length)).toEqual(partial.findings);
      expect(partial.warnings.join('\n')).toMatch(/cut off/);
      expect(streamed(text.slice(0, Math.floor(text.length * cut)), 7)).toEqual(partial);
    }
  });
});

const TARGET = {
  type: 'url' as const,
  value: 'https://app.example.com/',
  host: 'app.example.com',
  hostIsAddress: false,
};

describe('parseZapReport fixtures', () => {
  it('ZAP 2.14 baseline JSON: 13 alerts, 36 instances → 35 findings, no warnings', () => {
    const result = parseZapReport(fixture(BASELINE));
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(35);
    expect(bySeverity(result.findings)).toEqual({ medium: 6, low: 11, info: 18 });
    const site = 'https://vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca';
    const hsts = find(result, '10035-1', `${site}/robots.txt`);
    expect(hsts).toMatchObject({
      title: 'Strict-Transport-Security Header Not Set',
      severity: 'low',
      toolSeverity: '1',
      category: 'vulnerability',
      location: {
        host: 'vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca',
        port: 443,
        protocol: null,
        url: `${site}/robots.txt`,
      },
      identifiers: { cve: [], cwe: ['CWE-319'] },
      remediation:
        'Ensure that your web server, application server, load balancer, etc. is configured to enforce Strict-Transport-Security.',
      references: [
        'https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Strict_Transport_Security_Cheat_Sheet.html',
        'https://owasp.org/www-community/Security_Headers',
        'https://en.wikipedia.org/wiki/HTTP_Strict_Transport_Security',
        'https://caniuse.com/stricttransportsecurity',
        'https://datatracker.ietf.org/doc/html/rfc6797',
      ],
    });
    expect(hsts?.description).toMatch(/^HTTP Strict Transport Security \(HSTS\) is a web security/);
    expect(hsts?.raw).toMatchObject({
      pluginid: '10035',
      alertRef: '10035-1',
      count: 3,
      confidence: '3',
    });
    // A parameter makes its own rule id and title; its evidence lists the occurrence.
    const csp = find(result, '10055-4:content-security-policy', `${site}/`);
    expect(csp).toMatchObject({
      title: 'CSP: Wildcard Directive (content-security-policy)',
      severity: 'medium',
    });
    expect(csp?.evidence).toContain(
      `GET ${site}/ | param: content-security-policy | evidence: default-src 'none'`,
    );
    expect(csp?.evidence).toContain(
      'other info: The following directives either allow wildcard sources',
    );
    // cweid -1: no CWE.
    expect(find(result, '10112:b364a319754fe5d39a69505b59cbe7d8')?.identifiers.cwe).toEqual([]);
  });

  it('ZAP weekly 2020 JSON (no @programName, no alertRef): two sites, high alerts, short instance lists', () => {
    const result = parseZapReport(fixture(WEEKLY));
    expect(result.findings).toHaveLength(352);
    expect(bySeverity(result.findings)).toEqual({ high: 18, medium: 92, low: 141, info: 101 });
    expect(result.warnings).toEqual([
      '15 alert(s) list fewer instances than their count (300 of 3085 occurrences): findings cover the listed instances',
    ]);
    expect([
      ...new Set(result.findings.map((f) => `${f.location.host}:${f.location.port}`)),
    ]).toEqual(['bodgeit.demo-targets.svc:443', 'bodgeit.demo-targets.svc:8080']);
    // The https site's alert is about the http URL ZAP fell back to.
    expect(find(result, '10106')).toMatchObject({
      title: 'HTTP Only Site',
      severity: 'medium',
      location: {
        host: 'bodgeit.demo-targets.svc',
        port: 443,
        url: 'http://bodgeit.demo-targets.svc:8080',
      },
      identifiers: { cve: [], cwe: ['CWE-311'] },
      references: [
        'https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Protection_Cheat_Sheet.html',
        'https://letsencrypt.org/',
      ],
    });
    const csrf = result.findings.filter((f) => f.ruleId === '20012');
    expect(csrf).toHaveLength(18);
    expect(csrf.every((f) => f.severity === 'high' && f.toolSeverity === '3')).toBe(true);
    // Volatile parts are gone from the location, kept in the evidence.
    const put = find(
      result,
      '90028',
      'http://bodgeit.demo-targets.svc:8080/examples/jsp/jsp2/misc/EchoAttributesTag.java.html',
    );
    expect(put?.evidence).toContain('EchoAttributesTag.java.html/s8uclk08bz');
    const session = find(
      result,
      '20012',
      'http://bodgeit.demo-targets.svc:8080/examples/servlets/servlet/SessionExample?dataname=ZAP&datavalue=ZAP',
    );
    expect(session?.evidence).toContain(';jsessionid=6E125575EE927DEA79BD6D83AF048EC5');
    // One URL, two injected parameters: two findings.
    expect(
      result.findings.filter((f) => f.ruleId.startsWith('30002:')).map((f) => f.ruleId),
    ).toEqual(['30002:cookievalue', '30002:cookiename']);
    // Three alerts have no cweid key at all.
    expect([
      ...new Set(
        result.findings.filter((f) => f.identifiers.cwe.length === 0).map((f) => f.ruleId),
      ),
    ]).toEqual(['10104:Header User-Agent', '10108', '10109']);
  });

  it('ZAP 2.16.1 XML with requests and responses: tags give CWE ids and links, bodies are not read', () => {
    const result = parseZapReport(fixture(XML_216));
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(13);
    expect(bySeverity(result.findings)).toEqual({ info: 13 });
    const poisoning = find(result, '10029:clearCache');
    expect(poisoning).toMatchObject({
      title: 'Cookie Poisoning (clearCache)',
      toolSeverity: '0',
      category: 'informational',
      location: {
        host: 'example-domain.com',
        port: 443,
        url: 'https://example-domain.com/cpapi/api/redirect/getPrefillOtuTokenData?otuToken=otuToken&clearCache=true',
      },
      identifiers: { cve: [], cwe: ['CWE-565'] },
    });
    expect(poisoning?.references).toContain('https://en.wikipedia.org/wiki/HTTP_cookie');
    expect(poisoning?.references).toContain('https://cwe.mitre.org/data/definitions/565.html');
    expect(poisoning?.evidence).toContain(
      'other info: An attacker may be able to poison cookie values through URL parameters.',
    );
    expect(poisoning?.raw).toMatchObject({
      tags: expect.arrayContaining(['CWE-565', 'OWASP_2021_A03', 'OWASP_2017_A01']),
    });
    // Multi-line XML text is trimmed line by line.
    expect(find(result, '10111:user_identifier')?.evidence).toContain(
      'other info: userParam=user_identifier\nuserValue=string\npasswordParam=passwordless_code',
    );
    expect(JSON.stringify(result.findings)).not.toContain('HTTP/1.1 200');
  });

  it('ZAP 2.11.1 XML with a localized date: one medium alert, random PUT path removed', () => {
    const result = parseZapReport(fixture(XML_211));
    expect(result).toEqual({
      warnings: [],
      findings: [
        expect.objectContaining({
          ruleId: '90028',
          title: 'Insecure HTTP Method - PUT',
          severity: 'medium',
          toolSeverity: '2',
          location: {
            host: 'localhost',
            port: 8080,
            protocol: null,
            url: 'http://localhost:8080/bodgeit/js',
          },
          identifiers: { cve: [], cwe: ['CWE-200'] },
          remediation: 'TBA',
          references: ['http://projects.webappsec.org/Fingerprinting'],
        }),
      ],
    });
    expect(result.findings[0]?.evidence).toContain(
      'PUT http://localhost:8080/bodgeit/js/qndto7n63d | evidence: response code 403 for potentially insecure HTTP METHOD',
    );
  });

  it('ZAP 2.9.0 XML with one site and no alerts: clean, no warning', () => {
    expect(parseZapReport(fixture(XML_290))).toEqual({ findings: [], warnings: [] });
  });
});

/** A minimal traditional JSON report around the given alerts. */
function report(alerts: unknown[], site: Record<string, string> = {}): string {
  return JSON.stringify({
    '@programName': 'ZAP',
    '@version': '2.15.0',
    site: [
      {
        '@name': 'https://app.example.com',
        '@host': 'app.example.com',
        '@port': '443',
        '@ssl': 'true',
        ...site,
        alerts,
      },
    ],
  });
}

function alert(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    pluginid: '40012',
    alertRef: '40012',
    alert: 'Cross Site Scripting (Reflected)',
    riskcode: '3',
    confidence: '2',
    riskdesc: 'High (Medium)',
    desc: '<p>XSS</p>',
    instances: [
      {
        uri: 'https://app.example.com/search?q=%3CscrIpt%3Ealert%281%29%3B%3C%2FscRipt%3E&page=2',
        method: 'GET',
        param: 'q',
        attack: '<scrIpt>alert(1);</scRipt>',
        evidence: '<scrIpt>alert(1);</scRipt>',
        otherinfo: '',
      },
    ],
    count: '1',
    solution: '<p>Encode output.</p>',
    otherinfo: '',
    reference: '<p>https://owasp.org/www-community/attacks/xss/</p>',
    cweid: '79',
    wascid: '8',
    sourceid: '1',
    ...overrides,
  };
}

describe('parseZapReport edge cases', () => {
  it.each<[string, string, string[]]>([
    ['empty', '', ['ZAP wrote an empty report']],
    ['whitespace', ' \n\t\r\n ', ['ZAP wrote an empty report']],
    [
      'plain text',
      'Found Java version 17\nZAP is starting',
      ['the report is neither ZAP JSON nor ZAP XML'],
    ],
    [
      'nmap XML',
      '<?xml version="1.0"?><nmaprun args="nmap"><host/></nmaprun>',
      ['the XML is not a ZAP report: no <OWASPZAPReport> element'],
    ],
    [
      'a JSON array',
      '[]',
      ['the JSON is not a ZAP traditional report: no @version and no site list'],
    ],
    [
      'an empty object',
      '{}',
      ['the JSON is not a ZAP traditional report: no @version and no site list'],
    ],
    [
      'nuclei JSON lines',
      '{"template-id":"x","info":{"severity":"high"}}\n{"template-id":"y"}\n',
      [
        'the ZAP JSON report has data after its end; that data was not read',
        'the JSON is not a ZAP traditional report: no @version and no site list',
      ],
    ],
    [
      'a ZAP report with no site',
      '{"@programName":"ZAP","@version":"2.15.0","site":[]}',
      ['the ZAP report lists no site: ZAP reached nothing of the target'],
    ],
    [
      'XML without alerts or sites',
      '<OWASPZAPReport version="2.15.0"></OWASPZAPReport>',
      ['the ZAP report lists no site: ZAP reached nothing of the target'],
    ],
  ])('%s → no findings, warnings %j', (_name, text, warnings) => {
    const result = parseZapReport(text);
    expect(result).toEqual({ findings: [], warnings });
    expect(streamed(text, 3)).toEqual(result);
  });

  it('damaged JSON: the alerts before the damage, a warning that does not depend on chunking', () => {
    const text = report([alert(), alert({ alertRef: '40012-2' })]).replace(
      '"alertRef":"40012-2"',
      '"alertRef":"40012-2",,',
    );
    const result = parseZapReport(text);
    expect(result.findings.map((f) => f.ruleId)).toEqual(['40012:q']);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^the ZAP JSON report is cut off or damaged: it is not well-formed JSON( at character \d+)?; findings come from the 1 alert\(s\) read completely before that point \(the alert being read then is left out\)$/,
    );
    for (const size of [1, 5, 64]) {
      expect(streamed(text, size)).toEqual(result);
    }
  });

  it('a byte-order mark and invalid UTF-8 (U+FFFD) are read', () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(report([alert({ desc: '<p>bad \u0000X byte</p>' })]).replace('\\u0000X', '@@')),
    ]);
    const at = bytes.indexOf('@@');
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    const result = parseZapReport(new TextDecoder('utf-8').decode(bytes));
    expect(result.warnings).toEqual([]);
    expect(result.findings[0]?.description).toBe('bad \uFFFD\uFFFD byte');
  });

  it('a huge evidence string is capped in evidence and raw', () => {
    const huge = 'A'.repeat(5_000_000);
    const text = report([
      alert({
        instances: [
          { uri: 'https://app.example.com/', method: 'GET', param: '', attack: '', evidence: huge },
        ],
      }),
    ]);
    const result = streamed(text, 1 << 16);
    const [finding] = result.findings;
    expect(finding?.evidence?.length).toBeLessThan(5_000);
    expect(JSON.stringify(finding?.raw).length).toBeLessThan(2_000);
  });

  it('false positives (confidence 0) are left out and counted', () => {
    const result = parseZapReport(
      report([alert({ confidence: '0' }), alert({ alertRef: '40012-1' })]),
    );
    expect(result.findings.map((f) => f.ruleId)).toEqual(['40012-1:q']);
    expect(result.warnings).toEqual([
      '1 alert(s) marked as false positive by ZAP (confidence 0) are not reported',
    ]);
  });

  it('severity from riskcode, else from riskdesc, else info with a warning', () => {
    const result = parseZapReport(
      report([
        alert({ alertRef: 'a', riskcode: '1', riskdesc: 'High (High)' }),
        alert({ alertRef: 'b', riskcode: '', riskdesc: 'Medium (Low)' }),
        alert({ alertRef: 'c', riskcode: '7', riskdesc: 'Extreme' }),
      ]),
    );
    expect(result.findings.map((f) => [f.ruleId, f.severity])).toEqual([
      ['a:q', 'low'],
      ['b:q', 'medium'],
      ['c:q', 'info'],
    ]);
    expect(result.warnings).toEqual([
      '1 alert(s) had no readable riskcode and are reported as info',
    ]);
    expect(severityOf({ riskcode: '3', riskdesc: '' })).toBe('high');
    expect(severityOf({ riskcode: '0', riskdesc: '' })).toBe('info');
  });

  it('an alert without instances is one finding at the site; CVE ids come from the texts', () => {
    const result = parseZapReport(
      report([
        alert({
          pluginid: '40043',
          alertRef: '40043',
          alert: 'Log4Shell (cve-2021-44228)',
          reference:
            '<p>https://nvd.nist.gov/vuln/detail/CVE-2021-44228</p><p>https://nvd.nist.gov/vuln/detail/CVE-2021-45046</p>',
          cweid: '117',
          instances: [],
          count: '',
        }),
      ]),
    );
    expect(result.findings).toEqual([
      expect.objectContaining({
        ruleId: '40043',
        location: {
          host: 'app.example.com',
          port: 443,
          protocol: null,
          url: 'https://app.example.com',
        },
        identifiers: { cve: ['CVE-2021-44228', 'CVE-2021-45046'], cwe: ['CWE-117'] },
        evidence: null,
      }),
    ]);
  });

  it('instances beyond 10 000 per alert are counted, not kept', () => {
    const instances = Array.from({ length: 10_005 }, () => ({
      uri: 'https://app.example.com/',
      method: 'GET',
      param: 'x-frame-options',
    }));
    const result = parseZapReport(report([alert({ instances, count: '10005' })]));
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]?.raw).toMatchObject({ occurrences: 10_000 });
    expect(result.warnings).toEqual([
      '1 alert(s) list fewer instances than their count (10000 of 10005 occurrences): findings cover the listed instances',
      '5 instance(s) beyond 10000 per alert were not read',
    ]);
  });

  it('XML: DTD entities are never expanded, external ones refused, bad XML gives a warning', () => {
    const withEntity = (declaration: string) => `<?xml version="1.0"?><!DOCTYPE r [${declaration}]>
<OWASPZAPReport version="2.15.0"><site name="https://a.example" host="a.example" port="443" ssl="true"><alerts>
<alertitem><pluginid>1</pluginid><alert>A &x; &amp;amp; B</alert><riskcode>1</riskcode><confidence>2</confidence><instances><instance><uri>https://a.example/</uri><method>GET</method></instance></instances></alertitem>
</alerts></site></OWASPZAPReport>`;
    const internal = parseZapReport(withEntity('<!ENTITY x "EXPANDED">'));
    expect(internal.findings.map((f) => f.title)).toEqual(['A &x; &amp; B']);
    expect(internal.warnings).toEqual([]);
    const external = parseZapReport(withEntity('<!ENTITY x SYSTEM "file:///etc/passwd">'));
    expect(external).toEqual({
      findings: [],
      warnings: ['the ZAP XML report is not well-formed: External entities are not supported'],
    });
    expect(parseZapReport('<OWASPZAPReport><site><alerts></site></OWASPZAPReport>')).toEqual({
      findings: [],
      warnings: [
        "the ZAP XML report is not well-formed: Expected closing tag 'alerts' (opened in line 1, col 23) instead of closing tag 'site'. (line 1)",
      ],
    });
    expect(
      parseZapReport(
        '<OWASPZAPReport><site><alerts><alertitem><x/></alertitem></alerts></site></OWASPZAPReport>',
      ),
    ).toEqual({
      findings: [],
      warnings: ['1 alert(s) had neither a rule id nor a name and were skipped'],
    });
  });
});

describe('fingerprints', () => {
  /** The weekly report with every volatile value changed, as a rescan would write it. */
  function rescanned(text: string): string {
    const data = JSON.parse(text) as {
      '@generated': string;
      site: Array<{
        alerts: Array<Record<string, unknown> & { instances: Array<Record<string, string>> }>;
      }>;
    };
    data['@generated'] = 'Tue, 1 Jul 2025 10:00:00';
    let n = 0;
    for (const site of data.site) {
      for (const a of site.alerts) {
        a.count = String(Number(a.count) + 3);
        a.otherinfo = `<p>seen at ${n}</p>`;
        a.riskcode = a.riskcode === '3' ? '2' : a.riskcode;
        for (const instance of a.instances) {
          n += 1;
          instance.uri = (instance.uri ?? '')
            .replace(/;jsessionid=[0-9A-F]+/g, `;jsessionid=${n.toString(16).toUpperCase()}ABCDEF`)
            .replace(/\/[a-z0-9]{10}$/, (segment) =>
              a.pluginid === '90028' ? `/${`r${n}`.padEnd(10, 'x').slice(0, 10)}` : segment,
            );
          instance.evidence = `evidence ${n}`;
          instance.attack = instance.attack === undefined ? '' : `attack ${n}`;
        }
      }
    }
    return JSON.stringify(data);
  }

  it('a rescan with new session ids, random paths, payloads, counts and texts keeps every fingerprint', () => {
    const text = fixture(WEEKLY);
    const first = finalizeFindings('zap', parseZapReport(text).findings).map((f) => f.fingerprint);
    const again = finalizeFindings('zap', parseZapReport(rescanned(text)).findings).map(
      (f) => f.fingerprint,
    );
    expect(again).toEqual(first);
    expect(first.length).toBeGreaterThan(300);
  });

  it('the attacked parameter value is not part of the location; other query values are', () => {
    const url = 'https://a.example/s?q=%3Cx%3E&page=2';
    expect(stableUrl({ uri: url, param: 'q', attack: '<x>' }, '40012')).toBe(
      'https://a.example/s?q=&page=2',
    );
    expect(stableUrl({ uri: url, param: 'q', attack: '' }, '10010')).toBe(url);
    expect(
      stableUrl({ uri: 'https://a.example/x/abcdefghij', param: '', attack: '' }, '10020'),
    ).toBe('https://a.example/x/abcdefghij');
    const payloads = ['<scrIpt>alert(1);</scRipt>', '"><img src=x onerror=prompt(8317)>'].map(
      (attack) =>
        finalizeFindings(
          'zap',
          parseZapReport(
            report([
              alert({
                instances: [
                  {
                    uri: `https://app.example.com/search?q=${encodeURIComponent(attack)}&page=2`,
                    method: 'GET',
                    param: 'q',
                    attack,
                  },
                ],
              }),
            ]),
          ).findings,
        )[0]?.fingerprint,
    );
    expect(payloads[0]).toBeDefined();
    expect(payloads[1]).toBe(payloads[0]);
  });

  it('distinct issues differ: another parameter, another variant, another URL, another site', () => {
    const findings = finalizeFindings(
      'zap',
      parseZapReport(
        report([
          alert(),
          alert({
            instances: [
              {
                uri: 'https://app.example.com/search?q=1&page=2',
                method: 'GET',
                param: 'page',
                attack: 'x',
              },
            ],
          }),
          alert({ alertRef: '40012-1' }),
          alert({
            instances: [
              { uri: 'https://app.example.com/other?q=1', method: 'GET', param: 'q', attack: 'x' },
            ],
          }),
        ]),
      ).findings,
    );
    const other = finalizeFindings(
      'zap',
      parseZapReport(
        report([alert()], { '@name': 'https://b.example.com', '@host': 'b.example.com' }),
      ).findings,
    );
    const all = [...findings, ...other].map((f) => f.fingerprint);
    expect(all).toHaveLength(5);
    expect(new Set(all).size).toBe(5);
  });

  it('the methods of one URL and parameter are one finding', () => {
    const result = parseZapReport(
      report([
        alert({
          alertRef: '10015',
          instances: ['GET', 'PUT', 'DELETE'].map((method) => ({
            uri: 'https://app.example.com/key',
            method,
            param: 'cache-control',
          })),
        }),
      ]),
    );
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]?.evidence?.split('\n').slice(0, 3)).toEqual([
      'GET https://app.example.com/key | param: cache-control',
      'PUT https://app.example.com/key | param: cache-control',
      'DELETE https://app.example.com/key | param: cache-control',
    ]);
  });
});
