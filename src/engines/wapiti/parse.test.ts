import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { ParseContext } from '../engine.js';
import { createWapitiParser, parseWapitiReport } from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'wapiti');
const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'wapiti', name), 'utf8');

function context(url: string): ParseContext {
  const target: ScanTarget = {
    type: 'url',
    value: url,
    host: new URL(url).hostname,
    hostIsAddress: false,
  };
  return { target };
}

/** The scanned URL of each fixture (its `infos.target`, cleaned up). */
const TARGETS: Readonly<Record<string, string>> = {
  'json-3.0.4-debian-no-findings.json': 'http://127.0.0.1:18080/',
  'json-3.0.4-headers-old-infos.json': 'https://sudo.co.il/xss/level0.php',
  'json-3.2.10-sqli-xss-csrf.json': 'http://testaspnet.vulnweb.com/',
  'json-generator-golden-synthetic.json': 'http://perdu.com/',
  'xml-3.0.4-juiceshop.xml': 'https://juice-shop.herokuapp.com/',
};
const parseFixture = (name: string) =>
  parseWapitiReport(fixture(name), context(TARGETS[name] ?? ''));
const CTX = context('http://127.0.0.1:8080/');

function streamed(text: string, chunkSize: number, ctx = CTX) {
  const parser = createWapitiParser(ctx);
  for (let start = 0; start < text.length; start += chunkSize) {
    parser.write(text.slice(start, start + chunkSize));
  }
  return parser.end();
}

const CATEGORIES = ['vulnerability', 'misconfiguration', 'anomaly', 'information'];

/** A valid draft, and what wapiti's findings hold, field by field. */
function expectWapitiFinding(finding: DraftFinding): void {
  expectValidDraftFinding(finding);
  expect(finding.ruleId).toMatch(/^[a-z0-9-]+(:\S.*)?$/);
  expect(finding.title).toMatch(/\S/);
  expect(finding.title.length).toBeLessThanOrEqual(200);
  expect(finding.toolSeverity === null || /^-?\d+$/.test(finding.toolSeverity)).toBe(true);
  expect(CATEGORIES).toContain(finding.category);
  const { host, port, protocol, url } = finding.location;
  expect(host).toMatch(/^[a-z0-9.-]+$/);
  expect(Number.isInteger(port)).toBe(true);
  expect(protocol).toBe('tcp');
  expect(url).toMatch(/^https?:\/\/[^/]+\//);
  for (const cwe of finding.identifiers.cwe) {
    expect(cwe).toMatch(/^CWE-\d+$/);
  }
  for (const reference of finding.references) {
    expect(reference).toMatch(/^https?:\/\/\S+$/);
  }
  expect((finding.evidence ?? '').length).toBeLessThanOrEqual(4000);
  expect(JSON.stringify(finding.raw).length).toBeLessThan(3000);
}

function countBy(findings: readonly DraftFinding[], key: (f: DraftFinding) => string) {
  const counts: Record<string, number> = {};
  for (const finding of findings) {
    counts[key(finding)] = (counts[key(finding)] ?? 0) + 1;
  }
  return counts;
}

describe('parseWapitiReport on every wapiti fixture', () => {
  const names = readdirSync(FIXTURES);

  it('covers the five fixture files', () => {
    expect(names.sort()).toEqual(Object.keys(TARGETS).sort());
  });

  it.each(names)('%s: valid findings, no warnings, deterministic', (name) => {
    const first = parseFixture(name);
    expect(first.warnings).toEqual([]);
    for (const finding of first.findings) {
      expectWapitiFinding(finding);
    }
    expect(parseFixture(name)).toEqual(first);
  });

  it.each(names)('%s: streamed in chunks of 1, 7, 100, 4096 characters gives the same', (name) => {
    const text = fixture(name);
    const ctx = context(TARGETS[name] ?? '');
    const whole = parseWapitiReport(text, ctx);
    for (const size of [1, 7, 100, 4096]) {
      expect(streamed(text, size, ctx)).toEqual(whole);
    }
  });
});

describe('parseWapitiReport fixtures', () => {
  it('3.0.4 with no findings (every category empty): nothing, and no warning', () => {
    expect(parseFixture('json-3.0.4-debian-no-findings.json')).toEqual({
      findings: [],
      warnings: [],
    });
  });

  it('3.0.4 headers: 40 low misconfigurations that are 5 distinct issues', () => {
    const { findings } = parseFixture('json-3.0.4-headers-old-infos.json');
    expect(findings).toHaveLength(40);
    expect(countBy(findings, (f) => f.ruleId)).toEqual({
      'content-security-policy-configuration:csp-is-not-set': 8,
      'http-secure-headers:x-frame-options-is-not-set': 8,
      'http-secure-headers:x-xss-protection-is-not-set': 8,
      'http-secure-headers:x-content-type-options-is-not-set': 8,
      'http-secure-headers:strict-transport-security-is-not-set': 8,
    });
    expect(findings[0]).toMatchObject({
      title: 'Content Security Policy Configuration: CSP is not set',
      severity: 'low',
      toolSeverity: '1',
      category: 'misconfiguration',
      // The path ends in a backslash (the target was typed so); it stays a path character.
      location: {
        host: 'sudo.co.il',
        port: 443,
        protocol: 'tcp',
        url: 'https://sudo.co.il/xss/level0.php%5C',
      },
    });
    expect(finalizeFindings('wapiti', findings)).toHaveLength(5);
  });

  it('3.2.10: SQL injection, XSS and CSRF with levels 4 and 2, anomalies and additionals as info', () => {
    const { findings } = parseFixture('json-3.2.10-sqli-xss-csrf.json');
    expect(findings).toHaveLength(23);
    expect(countBy(findings, (f) => f.category)).toEqual({
      vulnerability: 12,
      anomaly: 3,
      information: 8,
    });
    expect(countBy(findings, (f) => f.severity)).toEqual({ critical: 8, medium: 4, info: 11 });
    const sqli = findings.find((f) => f.ruleId === 'sql-injection:GET:id');
    expect(sqli).toMatchObject({
      title: 'SQL Injection in /Comments.aspx (parameter id)',
      severity: 'critical',
      toolSeverity: '4',
      category: 'vulnerability',
      location: {
        host: 'testaspnet.vulnweb.com',
        port: 80,
        protocol: 'tcp',
        url: 'http://testaspnet.vulnweb.com/Comments.aspx',
      },
      identifiers: { cve: [], cwe: ['CWE-89'] },
      raw: {
        section: 'vulnerabilities',
        category: 'SQL Injection',
        method: 'GET',
        path: '/Comments.aspx',
        parameter: 'id',
        level: 4,
        module: 'sql',
        wstg: ['WSTG-INPV-05'],
      },
    });
    expect(sqli?.description).toContain('wapiti (GET /Comments.aspx, parameter id)');
    expect(sqli?.description).toContain('SQL injection vulnerabilities allow');
    expect(sqli?.remediation).toMatch(/^To protect against SQL injection/);
    expect(sqli?.references).toContain('https://cwe.mitre.org/data/definitions/89.html');
    expect(sqli?.evidence).toContain(
      'curl: curl "http://testaspnet.vulnweb.com/Comments.aspx?id=2',
    );
    const xss = findings.filter((f) => f.ruleId === 'cross-site-scripting:GET:NewsAd');
    expect(xss).toHaveLength(3);
    expect(xss[0]).toMatchObject({
      severity: 'medium',
      identifiers: { cwe: ['CWE-79'] },
      location: { url: 'http://testaspnet.vulnweb.com/ReadNews.aspx' },
    });
    const anomaly = findings.find((f) => f.category === 'anomaly');
    expect(anomaly).toMatchObject({
      ruleId: 'internal-server-error:GET:NewsAd',
      severity: 'info',
      toolSeverity: '3',
    });
    // The error-based and the time-based hit on one parameter are one finding per page.
    const merged = finalizeFindings('wapiti', findings);
    expect(merged.filter((f) => f.ruleId === 'sql-injection:GET:id')).toHaveLength(2);
    expect(merged).toHaveLength(13);
  });

  it('the wapiti writer golden file: levels 1/2/3 on vulnerability, anomaly, additional', () => {
    const { findings } = parseFixture('json-generator-golden-synthetic.json');
    expect(findings.map((f) => [f.ruleId, f.severity, f.toolSeverity, f.location.url])).toEqual([
      ['cross-site-scripting:GET:foo', 'low', '1', 'http://perdu.com/riri'],
      ['internal-server-error', 'info', '2', 'http://perdu.com/fifi'],
      ['fingerprint-web-technology:GET:foo', 'info', '3', 'http://perdu.com/'],
    ]);
    // `parameter: null` (3.2) reads as no parameter.
    expect(findings[1]?.title).toBe('Internal Server Error: This is the way');
  });

  it('3.0.4 XML (juice shop): 15 entries, CDATA texts, same mapping as JSON', () => {
    const { findings } = parseFixture('xml-3.0.4-juiceshop.xml');
    expect(findings).toHaveLength(15);
    expect(countBy(findings, (f) => f.ruleId)).toEqual({
      'content-security-policy-configuration:csp-is-not-set': 5,
      'http-secure-headers:x-xss-protection-is-not-set': 5,
      'http-secure-headers:strict-transport-security-is-not-set': 5,
    });
    expect(findings[0]).toMatchObject({
      severity: 'low',
      toolSeverity: '1',
      category: 'misconfiguration',
      location: {
        host: 'juice-shop.herokuapp.com',
        port: 443,
        protocol: 'tcp',
        url: 'https://juice-shop.herokuapp.com/',
      },
      references: [
        'https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP',
        'https://cheatsheetseries.owasp.org/cheatsheets/Content_Security_Policy_Cheat_Sheet.html',
        'https://owasp.org/www-pdf-archive/2019-02-22_-_How_do_I_Content_Security_Policy_-_Print.pdf',
      ],
    });
    expect(findings[0]?.description).toContain('Content Security Policy (CSP) is an added layer');
    expect(findings[0]?.remediation).toMatch(/^Configuring Content Security Policy/);
    expect(findings[0]?.evidence).toBe(
      'info: CSP is not set\ncurl: curl "https://juice-shop.herokuapp.com/"\nrequest:\nGET / HTTP/1.1\nHost: juice-shop.herokuapp.com',
    );
    expect(finalizeFindings('wapiti', findings)).toHaveLength(3);
  });
});
