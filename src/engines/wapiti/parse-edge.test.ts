/** Hand-made inputs for the wapiti parser: broken, foreign and odd reports, and fingerprints. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedPath } from '../../../test/support/shared-dir.js';
import { finalizeFindings, fingerprintFinding } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { ParseContext } from '../engine.js';
import { createWapitiParser, parseWapitiReport } from './parse.js';
import { closeTruncatedXml } from './parse-xml.js';

const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'wapiti', name), 'utf8');

function urlContext(url: string): ParseContext {
  return { target: { type: 'url', value: url, host: new URL(url).hostname, hostIsAddress: false } };
}
const CTX = urlContext('http://127.0.0.1:8080/');
const parse = (text: string, ctx = CTX) => parseWapitiReport(text, ctx);

const SQL_CLASSIFICATION = {
  desc: 'SQL injection lets an attacker change queries.',
  sol: 'Use parameterized statements.',
  ref: {
    'CWE-89: Improper Neutralization of Special Elements used in an SQL Command':
      'https://cwe.mitre.org/data/definitions/89.html',
  },
};

interface EntryInput {
  method?: string;
  path?: string;
  info?: string;
  level?: unknown;
  parameter?: unknown;
  http_request?: string;
  curl_command?: string;
}

function entry(overrides: EntryInput = {}): EntryInput {
  return {
    method: 'GET',
    path: '/search',
    info: 'SQL Injection (DMBS: PostgreSQL) via injection in the parameter q',
    level: 4,
    parameter: 'q',
    http_request: 'GET /search?q=apple%C2%BF%27%22%28 HTTP/1.1\nHost: 127.0.0.1:8080',
    curl_command: 'curl "http://127.0.0.1:8080/search?q=apple%C2%BF%27%22%28"',
    ...overrides,
  };
}

/** A JSON report with its keys in the given order (3.0.4 writes classifications first). */
function report(
  parts: {
    classifications?: Record<string, unknown>;
    vulnerabilities?: Record<string, unknown[]>;
    anomalies?: Record<string, unknown[]>;
    additionals?: Record<string, unknown[]>;
    infos?: Record<string, unknown>;
  },
  order = ['classifications', 'vulnerabilities', 'anomalies', 'additionals', 'infos'],
): string {
  const full: Record<string, unknown> = {
    classifications: { 'SQL Injection': SQL_CLASSIFICATION },
    vulnerabilities: { 'SQL Injection': [entry()] },
    anomalies: {},
    additionals: {},
    infos: { target: 'http://127.0.0.1:8080/', version: 'Wapiti 3.0.4', scope: 'domain' },
    ...parts,
  };
  return JSON.stringify(Object.fromEntries(order.map((key) => [key, full[key]])), null, 2);
}

describe('parseWapitiReport edge cases', () => {
  it.each([
    ['empty', ''],
    ['whitespace', ' \n\t\r\n '],
  ])('%s output: no findings, a warning', (_name, text) => {
    expect(parse(text)).toEqual({
      findings: [],
      warnings: ['wapiti wrote no report (the output is empty)'],
    });
  });

  it.each([
    ['plain text', 'Wapiti-3.0.4 (wapiti.sourceforge.io)\n[*] Saving scan state'],
    ['a JSON array', '[{"level": 4}]'],
    ['a JSON string', '"report"'],
  ])('%s: refused with a warning', (_name, text) => {
    expect(parse(text)).toEqual({
      findings: [],
      warnings: ['the output is not a wapiti report: neither a JSON object nor XML'],
    });
  });

  it('a JSON object of another tool: no findings, a warning', () => {
    expect(parse('{"SchemaVersion": 2, "Results": [{"Target": "x"}]}')).toEqual({
      findings: [],
      warnings: ['the JSON is not a wapiti report: it has no classifications, entries or infos'],
    });
  });

  it('XML of another tool (nmap): no findings, a warning', () => {
    expect(parse('<?xml version="1.0"?>\n<nmaprun scanner="nmap"></nmaprun>\n')).toEqual({
      findings: [],
      warnings: ['the XML is not a readable wapiti report (no <report> element)'],
    });
  });

  it('an old wapiti 2.x XML report is named as such', () => {
    const xml =
      '<report type="security"><generatedBy id="Wapiti 2.3.0"/><vulnerabilityTypeList>' +
      '<vulnerabilityType name="SQL Injection"></vulnerabilityType></vulnerabilityTypeList>';
    expect(parse(xml).warnings).toEqual([
      'the XML is an old wapiti 2.x report (<vulnerabilityTypeList>), which is not read',
    ]);
  });

  it('a truncated JSON report (a cancelled scan) keeps every entry completed before the cut', () => {
    const text = fixture('json-3.2.10-sqli-xss-csrf.json');
    const ctx = urlContext('http://testaspnet.vulnweb.com/');
    const full = parse(text, ctx).findings;
    const counts = new Set<number>();
    for (let cut = 1; cut < text.length; cut += 997) {
      const result = parse(text.slice(0, cut), ctx);
      expect(result.findings).toEqual(full.slice(0, result.findings.length));
      expect(result.warnings).toEqual([
        `the JSON report is truncated or not well-formed (the scan may not have finished): findings come from the ${result.findings.length} entr(y/ies) read before the break`,
      ]);
      counts.add(result.findings.length);
    }
    // Cuts inside the classifications give nothing, later cuts more and more entries.
    expect(counts.has(0)).toBe(true);
    expect(Math.max(...counts)).toBeGreaterThan(15);
  });

  it('invalid UTF-8 inside strings arrives as U+FFFD and is kept', () => {
    const bytes = Buffer.from(report({}), 'utf8');
    const at = bytes.indexOf('DMBS');
    const broken = Buffer.concat([
      bytes.subarray(0, at),
      Buffer.from([0xff, 0xfe]),
      bytes.subarray(at),
    ]);
    const text = new TextDecoder('utf-8').decode(broken);
    const result = parse(text);
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]?.evidence).toContain('\uFFFD\uFFFDDMBS');
  });

  it('invalid UTF-8 between tokens stops the reading with a warning, keeping what came before', () => {
    const text = report({
      vulnerabilities: { 'SQL Injection': [entry(), entry({ parameter: 'page' })] },
    });
    const at = text.indexOf('},', text.indexOf('"parameter": "q"')) + 2;
    const result = parse(`${text.slice(0, at)}\uFFFD${text.slice(at)}`);
    expect(result.findings.map((f) => f.ruleId)).toEqual(['sql-injection:GET:q']);
    expect(result.warnings[0]).toMatch(/^the JSON report is truncated or not well-formed/);
  });

  it('data after the end of the JSON is ignored with a warning', () => {
    const result = parse(`${report({})}\n{"more": 1}`);
    expect(result.findings).toHaveLength(1);
    expect(result.warnings).toEqual([
      'unexpected data after the end of the JSON report was ignored',
    ]);
  });

  it('reads a byte-order mark and leading whitespace', () => {
    expect(parse(`\uFEFF\n  ${report({})}`)).toEqual(parse(report({})));
  });

  it('does not depend on the order of the top-level keys', () => {
    const usual = parse(report({}));
    const reversed = parse(
      report({}, ['infos', 'additionals', 'anomalies', 'vulnerabilities', 'classifications']),
    );
    expect(reversed).toEqual(usual);
    expect(usual.findings[0]).toMatchObject({
      identifiers: { cwe: ['CWE-89'] },
      remediation: 'Use parameterized statements.',
    });
    expect(usual.findings[0]?.description).toBe(
      'wapiti (GET /search, parameter q): SQL Injection (DMBS: PostgreSQL) via injection in the parameter q\n\nSQL injection lets an attacker change queries.',
    );
  });

  it.each([
    ['Wapiti 3.0.4', 4, 'critical'],
    ['Wapiti 3.0.4', 3, 'high'],
    ['Wapiti 3.0.4', 1, 'low'],
    ['Wapiti 3.0.4', 0, 'info'],
    ['Wapiti 3.2.10', '2', 'medium'],
    ['Wapiti 3.0.4', 7, 'info'],
    // Before 3.0.4 the scale ran the other way: 1 high, 2 medium, 3 low.
    ['Wapiti 3.0.3', 1, 'high'],
    ['Wapiti 3.0.3', 3, 'low'],
    ['Wapiti-2.3.0', 2, 'medium'],
  ])('%s level %j is %s', (version, level, severity) => {
    const text = report({
      vulnerabilities: { 'SQL Injection': [entry({ level })] },
      infos: { target: 'http://127.0.0.1:8080/', version },
    });
    expect(parse(text).findings[0]?.severity).toBe(severity);
  });

  it('a vulnerability without a readable level is info, with a warning', () => {
    const result = parse(report({ vulnerabilities: { 'SQL Injection': [entry({ level: 'x' })] } }));
    expect(result.findings[0]).toMatchObject({ severity: 'info', toolSeverity: null });
    expect(result.warnings).toEqual([
      '1 vulnerability entr(y/ies) had no readable level: reported as info',
    ]);
  });

  it('anomalies and additionals are info whatever their level', () => {
    const result = parse(
      report({
        anomalies: { 'Internal Server Error': [entry({ level: 3 })] },
        additionals: { 'Fingerprint web technology': [entry({ level: 4, parameter: '' })] },
      }),
    );
    expect(result.findings.map((f) => [f.category, f.severity, f.toolSeverity])).toEqual([
      ['vulnerability', 'critical', '4'],
      ['anomaly', 'info', '3'],
      ['information', 'info', '4'],
    ]);
  });

  it('takes the origin from the curl command, else the target, else infos.target', () => {
    const sub = entry({ curl_command: 'curl "https://api.shop.example:8443/v1?q=1"' });
    const bare = entry({ curl_command: '' });
    const text = report({ vulnerabilities: { 'SQL Injection': [sub, bare] } });
    expect(
      parse(text, urlContext('https://shop.example/')).findings.map((f) => f.location),
    ).toEqual([
      {
        host: 'api.shop.example',
        port: 8443,
        protocol: 'tcp',
        url: 'https://api.shop.example:8443/search',
      },
      { host: 'shop.example', port: 443, protocol: 'tcp', url: 'https://shop.example/search' },
    ]);
    const hostTarget: ScanTarget = {
      type: 'host',
      value: 'shop',
      host: 'shop',
      hostIsAddress: false,
    };
    const viaInfos = parse(text, { target: hostTarget }).findings[1];
    expect(viaInfos?.location.url).toBe('http://127.0.0.1:8080/search');
    const nowhere = parse(report({ vulnerabilities: { 'SQL Injection': [bare] }, infos: {} }), {
      target: hostTarget,
    });
    expect(nowhere.findings[0]?.location).toEqual({
      host: null,
      port: null,
      protocol: null,
      url: null,
    });
    expect(nowhere.warnings).toContain(
      '1 entr(y/ies) could not be placed on a URL (no http(s) target or curl command): location is empty',
    );
  });

  it('finds CVE ids in the category or the info text', () => {
    const result = parse(
      report({
        vulnerabilities: {
          'Vulnerable software': [
            entry({
              parameter: '',
              info: 'jQuery 1.8.1 is vulnerable to cve-2020-11022 and CVE-2020-11023',
            }),
          ],
        },
      }),
    );
    expect(result.findings[0]?.identifiers.cve).toEqual(['CVE-2020-11022', 'CVE-2020-11023']);
  });

  it('never throws on odd input, whatever the chunking', () => {
    const inputs = [
      '{',
      '{"vulnerabilities": {"SQL Injection": [1, null, "x", {"level": []}]}}',
      '{"classifications": [], "vulnerabilities": [], "infos": 3}',
      '{"vulnerabilities": {"X": {"a": {"path": 5, "info": {}, "parameter": ["q"]}}}}',
      '<report><vulnerabilities><vulnerability name="X"><entries><entry><level>',
      '<report type="security"><![CDATA[',
      '<<<>>>',
      '{"a":1}}}}',
      `{"vulnerabilities": {"${'A'.repeat(10_000)}": [{"parameter": "${'p'.repeat(10_000)}"}]}}`,
    ];
    for (const text of inputs) {
      const whole = parse(text);
      expect(Array.isArray(whole.findings)).toBe(true);
      for (const size of [1, 3]) {
        const parser = createWapitiParser(CTX);
        for (let start = 0; start < text.length; start += size) {
          parser.write(text.slice(start, start + size));
        }
        expect(parser.end()).toEqual(whole);
      }
    }
  });
});

describe('parseWapitiReport XML edge cases', () => {
  const xml = fixture('xml-3.0.4-juiceshop.xml');
  const ctx = urlContext('https://juice-shop.herokuapp.com/');

  it('a cut-off XML report keeps every complete entry, with a warning', () => {
    const full = parse(xml, ctx).findings;
    for (let cut = 1; cut < xml.length; cut += 1201) {
      const result = parse(xml.slice(0, cut), ctx);
      expect(result.findings).toEqual(full.slice(0, result.findings.length));
      expect(result.warnings).toHaveLength(1);
    }
    const afterTenEntries = xml.indexOf('</entry>', xml.indexOf('HTTP Secure Headers')) + 8;
    const result = parse(xml.slice(0, afterTenEntries + 20), ctx);
    expect(result.findings).toHaveLength(6);
    expect(result.warnings).toEqual([
      'the XML report is truncated (no </report>): the scan may not have finished; findings come from the 6 complete entr(y/ies)',
    ]);
  });

  it('closes a cut-off document after its last complete element, ignoring tags in CDATA', () => {
    expect(
      closeTruncatedXml(
        '<report><a><entries><entry><x><![CDATA[<entry></entries>]]></x></entry><entry><x>',
      ),
    ).toBe(
      '<report><a><entries><entry><x><![CDATA[<entry></entries>]]></x></entry></entries></a></report>',
    );
    expect(closeTruncatedXml('<report><report_infos><info>')).toBeNull();
  });

  const withDoctype = (doctype: string, info: string) => `<?xml version="1.0"?>
${doctype}
<report type="security"><report_infos><info name="generatorVersion">Wapiti 3.0.4</info></report_infos>
<vulnerabilities><vulnerability name="SQL Injection"><description>&lol;&lol;</description><entries>
<entry><method>GET</method><path>/a</path><level>4</level><parameter>q</parameter><info>${info}</info>
<http_request></http_request><curl_command></curl_command></entry></entries></vulnerability></vulnerabilities></report>`;

  it('refuses a DOCTYPE with an external entity instead of loading it', () => {
    const evil = withDoctype(
      '<!DOCTYPE report [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>',
      '&xxe;',
    );
    expect(parse(evil)).toEqual({
      findings: [],
      warnings: ['the XML report could not be read: External entities are not supported'],
    });
  });

  it('never expands internal DTD entities, decodes the XML ones', () => {
    const laughs = withDoctype(
      '<!DOCTYPE report [ <!ENTITY lol "lol"> <!ENTITY lol2 "&lol;&lol;&lol;&lol;"> ]>',
      '&lol2; &amp; &#65;&#x42; &lt;b&gt;',
    );
    const result = parse(laughs);
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]?.evidence).toBe('info: &lol2; & AB <b>');
    expect(result.findings[0]?.description).toContain('&lol;&lol;');
  });
});

describe('wapiti fingerprints', () => {
  const xss = (overrides: EntryInput) =>
    entry({
      path: '/hello',
      parameter: 'name',
      level: 2,
      info: 'XSS vulnerability found via injection in the parameter name',
      ...overrides,
    });
  const drafts = (entries: EntryInput[], category = 'Cross Site Scripting') =>
    parse(report({ vulnerabilities: { [category]: entries } })).findings;

  it('the same flaw found with another payload keeps its fingerprint (one finding)', () => {
    const first = xss({
      info: "XSS with payload <ScRiPt>alert('wl5jju2odr')</sCrIpT>",
      http_request: 'GET /hello?name=%3CScRiPt%3Ealert%28%27wl5jju2odr%27%29 HTTP/1.1',
      curl_command:
        'curl "http://127.0.0.1:8080/hello?name=%3CScRiPt%3Ealert%28%27wl5jju2odr%27%29"',
    });
    const rescan = xss({
      info: 'XSS with payload <svg onload=alert(1)>',
      http_request: 'GET /hello?name=%3Csvg%20onload%3Dalert%281%29%3E HTTP/1.1',
      curl_command: 'curl "http://127.0.0.1:8080/hello?name=%3Csvg%20onload%3Dalert%281%29%3E"',
    });
    const [a] = drafts([first]);
    const [b] = drafts([rescan]);
    expect(a && b && fingerprintFinding('wapiti', a)).toBe(b && fingerprintFinding('wapiti', b));
    expect(finalizeFindings('wapiti', drafts([first, rescan]))).toHaveLength(1);
  });

  it('distinct parameters, paths and methods are distinct findings', () => {
    const findings = finalizeFindings(
      'wapiti',
      drafts([
        xss({}),
        xss({ parameter: 'greeting' }),
        xss({ path: '/bye' }),
        xss({ method: 'POST' }),
        xss({ parameter: 'QUERY_STRING' }),
      ]),
    );
    expect(findings.map((f) => [f.ruleId, f.location.url])).toEqual([
      ['cross-site-scripting:GET:name', 'http://127.0.0.1:8080/hello'],
      ['cross-site-scripting:GET:greeting', 'http://127.0.0.1:8080/hello'],
      ['cross-site-scripting:GET:name', 'http://127.0.0.1:8080/bye'],
      ['cross-site-scripting:POST:name', 'http://127.0.0.1:8080/hello'],
      ['cross-site-scripting:GET:QUERY_STRING', 'http://127.0.0.1:8080/hello'],
    ]);
    expect(findings[4]?.title).toBe('Cross Site Scripting in /hello (query string)');
  });

  it('3.0.4 "Cross Site Scripting" and 3.2 "Reflected Cross Site Scripting" share a rule id', () => {
    const [old] = drafts([xss({})]);
    const [renamed] = drafts([xss({})], 'Reflected Cross Site Scripting');
    expect(old?.ruleId).toBe('cross-site-scripting:GET:name');
    expect(renamed?.ruleId).toBe(old?.ruleId);
  });

  it('parameter-less configuration entries differ by what info names', () => {
    const header = (info: string) => entry({ parameter: '', level: 1, info, path: '/' });
    const findings = finalizeFindings(
      'wapiti',
      drafts(
        [
          header('X-Frame-Options is not set'),
          header('X-Content-Type-Options is not set'),
          header('X-Frame-Options is not set'),
        ],
        'HTTP Secure Headers',
      ),
    );
    expect(findings.map((f) => f.ruleId)).toEqual([
      'http-secure-headers:x-frame-options-is-not-set',
      'http-secure-headers:x-content-type-options-is-not-set',
    ]);
  });

  it('a technology keeps its fingerprint when its version changes', () => {
    const tech = (versions: string[]) =>
      entry({
        parameter: '',
        level: 0,
        path: '/',
        info: JSON.stringify({ name: 'Nginx', versions, categories: ['Web servers'] }),
      });
    const result = parse(
      report({
        additionals: { 'Fingerprint web technology': [tech(['1.18.0']), tech(['1.25.3'])] },
      }),
    ).findings.filter((f) => f.category === 'information');
    expect(result.map((f) => [f.ruleId, f.title])).toEqual([
      ['fingerprint-web-technology:nginx', 'Fingerprint web technology: Nginx 1.18.0'],
      ['fingerprint-web-technology:nginx', 'Fingerprint web technology: Nginx 1.25.3'],
    ]);
    expect(finalizeFindings('wapiti', result)).toHaveLength(1);
  });
});
