import { describe, expect, it } from 'vitest';
import {
  type SourceOverrides as Overrides,
  sourceFinding,
} from '../../../test/support/sentinel-findings.js';
import { correlate, uncorrelated } from './correlate.js';
import type { CorrelatedFinding, SourceFinding } from './types.js';

const HOST = 'app.example.com';
const PAGE = `https://${HOST}/search?q=1`;

/** A web finding on PAGE unless overridden. */
function webFinding(overrides: Overrides): SourceFinding {
  return sourceFinding({
    ruleId: 'rule',
    title: 'web finding',
    category: 'vulnerability',
    severity: 'medium',
    ...overrides,
    location: { host: HOST, port: 443, protocol: null, url: PAGE, ...overrides.location },
  });
}

const zapXss = (overrides: Overrides = {}) =>
  webFinding({
    engine: 'zap',
    ruleId: '40012:q',
    title: 'Cross Site Scripting (Reflected) (q)',
    severity: 'high',
    toolSeverity: '3',
    identifiers: { cve: [], cwe: ['CWE-79'] },
    raw: { confidence: '2', instances: [{ param: 'q' }] },
    ...overrides,
  });

const wapitiXss = (overrides: Overrides = {}) =>
  webFinding({
    engine: 'wapiti',
    ruleId: 'cross-site-scripting:GET:q',
    title: 'Cross Site Scripting in /search (parameter q)',
    severity: 'medium',
    toolSeverity: '2',
    identifiers: { cve: [], cwe: ['CWE-79'] },
    raw: { parameter: 'q' },
    location: { url: `https://${HOST}/search` },
    ...overrides,
  });

const nmapCve = (overrides: Overrides = {}) =>
  sourceFinding({
    engine: 'nmap',
    ruleId: 'CVE-2018-15473',
    title: 'CVE-2018-15473 in OpenSSH 7.4 on 22/tcp',
    category: 'vulnerability',
    severity: 'medium',
    toolSeverity: '5.0',
    identifiers: { cve: ['CVE-2018-15473'], cwe: [] },
    ...overrides,
  });

const nucleiCve = (overrides: Overrides = {}) =>
  sourceFinding({
    engine: 'nuclei',
    ruleId: 'CVE-2018-15473',
    title: 'OpenSSH Username Enumeration',
    category: 'vulnerability',
    severity: 'medium',
    toolSeverity: 'medium',
    identifiers: { cve: ['CVE-2018-15473'], cwe: ['CWE-362'] },
    location: { protocol: 'tcp' },
    ...overrides,
  });

const ids = (finding: CorrelatedFinding) =>
  finding.sources.map((s) => `${s.engine}:${s.findingId}`);

describe('correlate: the rules', () => {
  it('cve: merges the same CVE on the same host and port from two engines', () => {
    const nmap = nmapCve({ findingId: 'n1' });
    const nuclei = nucleiCve({ findingId: 'u1' });
    const [merged, ...rest] = correlate([nmap, nuclei]);
    expect(rest).toEqual([]);
    expect(merged?.correlatedBy).toEqual(['cve']);
    // nuclei's template match (high) outranks nmap's version guess (medium).
    expect(merged && ids(merged)).toEqual(['nuclei:u1', 'nmap:n1']);
    expect(merged?.sources.map((s) => s.confidence)).toEqual(['high', 'medium']);
    expect(merged?.fingerprint).toBe(nuclei.fingerprint);
    expect(merged?.engine).toBe('nuclei');
  });

  it('cve: keeps the same CVE apart on another port or another host', () => {
    expect(correlate([nmapCve(), nucleiCve({ location: { port: 2222 } })])).toHaveLength(2);
    expect(correlate([nmapCve(), nucleiCve({ location: { host: '203.0.113.11' } })])).toHaveLength(
      2,
    );
  });

  it('weakness: merges XSS from ZAP and wapiti on the same path and parameter', () => {
    const [merged, ...rest] = correlate([
      wapitiXss({ findingId: 'w1' }),
      zapXss({ findingId: 'z1' }),
    ]);
    expect(rest).toEqual([]);
    expect(merged?.correlatedBy).toEqual(['weakness']);
    // wapiti found it with a payload (high); ZAP rated its alert medium (confidence 2).
    expect(merged && ids(merged)).toEqual(['wapiti:w1', 'zap:z1']);
  });

  it('weakness: keeps XSS on another parameter or another path apart', () => {
    expect(correlate([zapXss(), wapitiXss({ raw: { parameter: 'page' } })])).toHaveLength(2);
    expect(
      correlate([zapXss(), wapitiXss({ location: { url: `https://${HOST}/other` } })]),
    ).toHaveLength(2);
    // Same place and parameter, but another weakness (SQL injection).
    expect(
      correlate([zapXss(), wapitiXss({ identifiers: { cve: [], cwe: ['CWE-89'] } })]),
    ).toHaveLength(2);
  });

  it('weakness: merges SQL injection from sqlmap and nuclei (CWE-89 and CWE-943), sqlmap primary', () => {
    const sqlmap = webFinding({
      engine: 'sqlmap',
      ruleId: 'sql-injection:GET:q',
      category: 'sql-injection',
      severity: 'high',
      identifiers: { cve: [], cwe: ['CWE-89'] },
      raw: { parameter: 'q' },
    });
    const nuclei = webFinding({
      engine: 'nuclei',
      ruleId: 'error-based-sqli',
      severity: 'critical',
      identifiers: { cve: [], cwe: ['CWE-943'] },
      raw: { matchedAt: [`https://${HOST}/search?q=1'`] },
      location: { url: `https://${HOST}/search` },
    });
    const [merged, ...rest] = correlate([nuclei, sqlmap]);
    expect(rest).toEqual([]);
    expect(merged?.engine).toBe('sqlmap');
    expect(merged?.sources.map((s) => s.confidence)).toEqual(['confirmed', 'high']);
    // The severity is the primary's, not the highest of the group.
    expect(merged?.severity).toBe('high');
    expect(merged?.identifiers.cwe).toEqual(['CWE-89', 'CWE-943']);
  });

  it('service: merges an nmap open port with nuclei detections on that port, nmap primary', () => {
    const port = sourceFinding({ engine: 'nmap', location: { host: HOST, port: 443 } });
    const apache = webFinding({
      engine: 'nuclei',
      ruleId: 'apache-detect',
      category: 'technology',
      severity: 'info',
      location: { url: `https://${HOST}/` },
    });
    const php = webFinding({
      engine: 'nuclei',
      ruleId: 'tech-detect:php',
      category: 'technology',
      severity: 'info',
      location: { url: `https://${HOST}/` },
    });
    const [merged, ...rest] = correlate([php, apache, port]);
    expect(rest).toEqual([]);
    expect(merged?.correlatedBy).toEqual(['service']);
    expect(merged?.engine).toBe('nmap');
    expect(merged?.sources).toHaveLength(3);
    // Without nmap the two nuclei detections are two findings: nothing of another engine links them.
    expect(correlate([php, apache])).toHaveLength(2);
  });

  it('hostname: merges the same name from theHarvester and sublist3r', () => {
    const location = { host: 'API.example.com', port: null, protocol: null, url: null };
    const harvester = sourceFinding({
      engine: 'harvester',
      ruleId: 'host',
      category: 'host',
      location,
    });
    const sublist3r = sourceFinding({
      engine: 'sublist3r',
      ruleId: 'subdomain',
      category: 'subdomain',
      location: { ...location, host: 'api.example.com' },
    });
    const [merged, ...rest] = correlate([sublist3r, harvester]);
    expect(rest).toEqual([]);
    expect(merged?.correlatedBy).toEqual(['hostname']);
    expect(merged?.engine).toBe('harvester');
  });
});

describe('correlate: what is never merged', () => {
  it('does not merge two findings of one engine that share a key', () => {
    const passive = zapXss({
      ruleId: '10202',
      raw: { confidence: '2', instances: [{ param: '' }] },
    });
    const active = zapXss({
      ruleId: '20012',
      raw: { confidence: '2', instances: [{ param: '' }] },
    });
    const csrf = { cve: [], cwe: ['CWE-352'] };
    const [a, b] = [
      { ...passive, identifiers: csrf },
      { ...active, identifiers: csrf },
    ];
    expect(correlate([a, b])).toHaveLength(2);
    // A finding of another engine on the same key links all three.
    const wapiti = wapitiXss({ identifiers: csrf, raw: { parameter: '' } });
    const [merged, ...rest] = correlate([a, b, wapiti]);
    expect(rest).toEqual([]);
    expect(merged?.sources.map((s) => s.engine).sort()).toEqual(['wapiti', 'zap', 'zap']);
    expect(merged?.correlatedBy).toEqual(['weakness']);
  });

  it('does not merge trivy package CVEs with network findings', () => {
    const trivy = sourceFinding({
      engine: 'trivy',
      ruleId: 'CVE-2018-15473|openssh@7.4',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2018-15473'], cwe: [] },
      location: { host: null, port: null, protocol: null, url: null },
    });
    expect(
      correlate([trivy, nmapCve(), nucleiCve()])
        .map((f) => f.sources.length)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('does not merge findings without a host', () => {
    const nowhere = { host: null, port: null, protocol: null, url: null };
    expect(
      correlate([nmapCve({ location: nowhere }), nucleiCve({ location: nowhere })]),
    ).toHaveLength(2);
  });
});

describe('correlate: merging', () => {
  it('follows shared keys transitively and names every rule that linked', () => {
    const zap = zapXss({ identifiers: { cve: ['CVE-2020-0001'], cwe: ['CWE-79'] } });
    const wapiti = wapitiXss();
    const nikto = webFinding({
      engine: 'nikto',
      ruleId: '000834',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2020-0001'], cwe: [] },
      location: { url: `https://${HOST}/cgi/x` },
    });
    const [merged, ...rest] = correlate([nikto, zap, wapiti]);
    expect(rest).toEqual([]);
    expect(merged?.correlatedBy).toEqual(['cve', 'weakness']);
    expect(merged?.sources.map((s) => s.engine)).toEqual(['wapiti', 'zap', 'nikto']);
  });

  it("takes the primary's fields, unites ids and references, fills empty texts in source order", () => {
    const wapiti = wapitiXss({
      description: null,
      evidence: null,
      remediation: 'Encode output.',
      references: ['https://owasp.org/xss', 'https://cwe.mitre.org/data/definitions/79.html'],
      identifiers: { cve: ['CVE-2020-0002'], cwe: ['CWE-79'] },
    });
    const zap = zapXss({
      description: 'ZAP says XSS.',
      evidence: 'GET /search?q=<x>',
      remediation: 'Validate input.',
      references: ['https://owasp.org/xss', 'https://a.example/ref'],
      identifiers: { cve: ['CVE-2020-0001'], cwe: ['CWE-80', 'CWE-79'] },
    });
    const [merged] = correlate([zap, wapiti]);
    expect(merged).toMatchObject({
      ruleId: wapiti.ruleId,
      title: wapiti.title,
      severity: 'medium',
      toolSeverity: '2',
      category: wapiti.category,
      location: wapiti.location,
      raw: wapiti.raw,
      fingerprint: wapiti.fingerprint,
      engine: 'wapiti',
      identifiers: { cve: ['CVE-2020-0001', 'CVE-2020-0002'], cwe: ['CWE-79', 'CWE-80'] },
      references: [
        'https://a.example/ref',
        'https://cwe.mitre.org/data/definitions/79.html',
        'https://owasp.org/xss',
      ],
      description: 'ZAP says XSS.',
      evidence: 'GET /search?q=<x>',
      remediation: 'Encode output.',
    });
    expect(merged?.sources.map((s) => s.finding)).toEqual([wapiti, zap]);
    expect(merged?.sources[1]).toEqual({
      engine: 'zap',
      scanId: zap.scanId,
      findingId: zap.findingId,
      confidence: 'medium',
      finding: zap,
    });
    expect(Object.keys(merged ?? {}).sort()).toEqual(
      [
        'category',
        'correlatedBy',
        'description',
        'engine',
        'evidence',
        'fingerprint',
        'identifiers',
        'location',
        'raw',
        'references',
        'remediation',
        'ruleId',
        'severity',
        'sources',
        'title',
        'toolSeverity',
      ].sort(),
    );
  });

  it('orders sources by confidence, severity, engine, fingerprint, scanId, findingId', () => {
    // Linked through an nmap open port on 443 and a CVE, with ties on every level of the order.
    const port = sourceFinding({
      engine: 'nmap',
      findingId: 'n',
      location: { host: HOST, port: 443 },
    });
    const detection = (findingId: string, fingerprint: string, scanId = 'scan-nuclei') =>
      webFinding({
        engine: 'nuclei',
        ruleId: 'tech-detect',
        category: 'technology',
        severity: 'info',
        findingId,
        fingerprint,
        scanId,
        location: { url: `https://${HOST}/` },
      });
    const critical = webFinding({
      engine: 'nuclei',
      ruleId: 'CVE-2021-44228',
      severity: 'critical',
      findingId: 'c',
      identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
      raw: { interaction: { protocol: 'dns' } },
    });
    const nmapLog4j = sourceFinding({
      engine: 'nmap',
      ruleId: 'CVE-2021-44228',
      category: 'vulnerability',
      severity: 'critical',
      findingId: 'v',
      identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
      location: { host: HOST, port: 443 },
    });
    // A nuclei detection that also names the CVE joins the service group and the CVE group.
    const bridge = webFinding({
      engine: 'nuclei',
      ruleId: 'waf-detect',
      severity: 'info',
      findingId: 'b',
      fingerprint: 'b',
      identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
      location: { url: `https://${HOST}/` },
    });
    const input = [
      detection('d2', 'same', 'scan-2'),
      detection('d1', 'same', 'scan-2'),
      detection('d0', 'same', 'scan-1'),
      detection('e', 'aaa'),
      port,
      nmapLog4j,
      critical,
      bridge,
    ];
    const [merged, ...rest] = correlate(input);
    expect(rest).toEqual([]);
    expect(merged?.sources.map((s) => `${s.engine}:${s.findingId}`)).toEqual([
      'nuclei:c', // confirmed
      'nmap:n', // high, info, nmap before nuclei
      'nuclei:e', // high, info, nuclei: fingerprint aaa
      'nuclei:b', // fingerprint b
      'nuclei:d0', // fingerprint same, scan-1
      'nuclei:d1', // scan-2, d1 before d2
      'nuclei:d2',
      'nmap:v', // medium (a vulners guess), although critical
    ]);
    expect(merged?.correlatedBy).toEqual(['cve', 'service']);
  });
});

describe('correlate: output', () => {
  it('is ordered by severity, primary engine, fingerprint, scanId, findingId', () => {
    const findings = [
      sourceFinding({
        engine: 'nuclei',
        severity: 'low',
        category: 'x',
        fingerprint: 'b',
        findingId: '1',
      }),
      sourceFinding({
        engine: 'nmap',
        severity: 'low',
        category: 'x',
        fingerprint: 'z',
        findingId: '2',
      }),
      sourceFinding({
        engine: 'zap',
        severity: 'critical',
        category: 'x',
        fingerprint: 'z',
        findingId: '3',
      }),
      sourceFinding({
        engine: 'nuclei',
        severity: 'low',
        category: 'x',
        fingerprint: 'a',
        findingId: '4',
      }),
      sourceFinding({
        engine: 'nuclei',
        severity: 'low',
        category: 'x',
        fingerprint: 'a',
        findingId: '0',
        scanId: 's2',
      }),
      sourceFinding({
        engine: 'nuclei',
        severity: 'low',
        category: 'x',
        fingerprint: 'a',
        findingId: '5',
        scanId: 's1',
      }),
    ];
    expect(correlate(findings).map((f) => f.sources[0]?.findingId)).toEqual(
      // scanId s1 < s2 < scan-nuclei
      ['3', '2', '5', '0', '4', '1'],
    );
    expect(uncorrelated([...findings].reverse()).map((f) => f.sources[0]?.findingId)).toEqual(
      correlate(findings).map((f) => f.sources[0]?.findingId),
    );
  });

  it('gives an empty list for no findings', () => {
    expect(correlate([])).toEqual([]);
    expect(uncorrelated([])).toEqual([]);
  });

  it('takes correlated findings in the input apart, so correlating twice changes nothing', () => {
    const nmap = nmapCve();
    const zap = zapXss();
    const nuclei = nucleiCve();
    const wapiti = wapitiXss();
    const first = correlate([nmap, zap]);
    expect(first).toHaveLength(2);
    expect(correlate(first)).toEqual(first);
    const again = correlate([...first, nuclei, wapiti]);
    expect(again).toEqual(correlate([nmap, zap, nuclei, wapiti]));
    expect(again.map((f) => f.correlatedBy)).toEqual([['cve'], ['weakness']]);
  });

  it('does not modify its input', () => {
    const input = [nmapCve(), nucleiCve(), zapXss(), wapitiXss()];
    const copy = structuredClone(input);
    correlate(input);
    uncorrelated(input);
    expect(input).toEqual(copy);
  });
});

describe('uncorrelated', () => {
  it('gives one finding per source, never merged, shaped like a lone correlated finding', () => {
    const input = [nmapCve(), nucleiCve(), zapXss(), wapitiXss()];
    const result = uncorrelated(input);
    expect(result).toHaveLength(4);
    expect(result.every((f) => f.sources.length === 1 && f.correlatedBy.length === 0)).toBe(true);
    const lone = sourceFinding({ engine: 'trivy', category: 'vulnerability' });
    expect(uncorrelated([lone])).toEqual(correlate([lone]));
  });

  it('takes correlated findings apart', () => {
    const merged = correlate([nmapCve(), nucleiCve()]);
    expect(merged).toHaveLength(1);
    expect(uncorrelated(merged)).toHaveLength(2);
  });
});
