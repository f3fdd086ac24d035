import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding, ParseResult } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { createNucleiParser, MAX_LINE_CHARS, parseNucleiOutput } from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'nuclei');
const fixture = (name: string): string => readFileSync(`${FIXTURES}/${name}`, 'utf8');

const DVWA: ScanTarget = {
  type: 'url',
  value: 'http://dvwa_dvwa_1/',
  host: 'dvwa_dvwa_1',
  hostIsAddress: false,
};
const DOMAIN: ScanTarget = {
  type: 'domain',
  value: 'www.asdf.de',
  host: 'www.asdf.de',
  hostIsAddress: false,
};

const parse = (text: string, target: ScanTarget = DVWA): ParseResult =>
  parseNucleiOutput(text, { target });

/** The same text through the streaming parser in chunks of `size` characters. */
function parseInChunks(text: string, size: number, target: ScanTarget = DVWA): ParseResult {
  const parser = createNucleiParser({ target });
  for (let at = 0; at < text.length; at += size) {
    parser.write(text.slice(at, at + size));
  }
  return parser.end();
}

function byRule(result: ParseResult, ruleId: string): DraftFinding {
  const found = result.findings.find((finding) => finding.ruleId === ruleId);
  if (found === undefined) {
    throw new Error(`no finding ${ruleId}`);
  }
  return found;
}

function severities(result: ParseResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of result.findings) {
    counts[finding.severity] = (counts[finding.severity] ?? 0) + 1;
  }
  return counts;
}

/** A JSONL result line with the given fields over a minimal v3 record. */
function line(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    'template-id': 'git-config',
    info: { name: 'Git Config', severity: 'medium' },
    type: 'http',
    'matched-at': 'http://dvwa_dvwa_1/.git/config',
    timestamp: '2026-01-12T13:46:54Z',
    ...fields,
  });
}

describe('parseNucleiOutput on the shared fixtures', () => {
  it('covers every fixture file', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual([
      'dvwa-mixed-severities-with-req-resp.jsonl',
      'empty.jsonl',
      'json-export-array-dns-ssl.json',
      'legacy-v2-templateID-matched.jsonl',
      'log4shell-critical-oast.jsonl',
    ]);
  });

  it.each(readdirSync(FIXTURES).sort())('%s: every finding is a valid draft', (name) => {
    for (const finding of parse(fixture(name)).findings) {
      expectValidDraftFinding(finding);
    }
  });

  it('dvwa-mixed-severities-with-req-resp.jsonl: 27 v3 lines, 27 findings', () => {
    const result = parse(fixture('dvwa-mixed-severities-with-req-resp.jsonl'));
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(27);
    expect(severities(result)).toEqual({ critical: 1, medium: 2, low: 1, info: 23 });
    expect(byRule(result, 'dvwa-default-login')).toMatchObject({
      title: 'DVWA Default Login',
      severity: 'critical',
      toolSeverity: 'critical',
      category: 'default-login',
      location: {
        host: 'dvwa_dvwa_1',
        port: 80,
        protocol: null,
        url: 'http://dvwa_dvwa_1/index.php',
      },
      identifiers: { cve: [], cwe: ['CWE-798'] },
      references: [
        'https://opensourcelibs.com/lib/dvwa',
        'https://cloud.projectdiscovery.io/public/dvwa-default-login',
      ],
    });
    expect(byRule(result, 'dvwa-default-login').evidence).toContain(
      'meta: username=admin, password=password',
    );
    expect(byRule(result, 'git-config')).toMatchObject({
      severity: 'medium',
      category: 'exposure',
      identifiers: { cve: [], cwe: ['CWE-200'] },
      location: { url: 'http://dvwa_dvwa_1/.git/config' },
    });
    expect(byRule(result, 'git-config').evidence).toContain(
      'cvss: 5.3 CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
    );
  });

  it('dvwa: one finding per missing header (matcher name), with remediation and impact', () => {
    const result = parse(fixture('dvwa-mixed-severities-with-req-resp.jsonl'));
    const headers = result.findings.filter((finding) =>
      finding.ruleId.startsWith('http-missing-security-headers:'),
    );
    expect(headers).toHaveLength(11);
    expect(byRule(result, 'http-missing-security-headers:x-frame-options').title).toBe(
      'HTTP Missing Security Headers (x-frame-options)',
    );
    const cookies = byRule(result, 'cookies-without-httponly');
    expect(cookies.remediation).toMatch(/^Ensure that all cookies are set with the HttpOnly/);
    expect(cookies.description).toContain('\n\nImpact: Lack of HttpOnly flag');
  });

  it('dvwa: lines without matched-at take the url field (javascript) or the target (dns)', () => {
    const result = parse(fixture('dvwa-mixed-severities-with-req-resp.jsonl'));
    expect(byRule(result, 'cookies-without-httponly')).toMatchObject({
      location: { host: 'dvwa_dvwa_1', port: 80, url: 'http://dvwa_dvwa_1/' },
      raw: { locationSource: 'url', type: 'javascript' },
    });
    expect(byRule(result, 'nameserver-fingerprint')).toMatchObject({
      category: 'dns',
      location: { host: 'dvwa_dvwa_1', url: 'http://dvwa_dvwa_1/' },
      raw: { locationSource: 'target' },
    });
  });

  it('dvwa: the 149 KB line leaves a small raw record and a capped evidence', () => {
    const text = fixture('dvwa-mixed-severities-with-req-resp.jsonl');
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeGreaterThan(140_000);
    for (const finding of parse(text).findings) {
      expect(JSON.stringify(finding.raw).length).toBeLessThan(2_000);
      expect((finding.evidence ?? '').length).toBeLessThanOrEqual(4_097);
      expect(JSON.stringify(finding.raw)).not.toContain('curl');
    }
  });

  it('empty.jsonl: a clean scan, no warnings', () => {
    expect(parse(fixture('empty.jsonl'))).toEqual({ findings: [], warnings: [] });
  });

  it('json-export-array-dns-ssl.json: the array layout; tls-version lines merged', () => {
    const result = parse(fixture('json-export-array-dns-ssl.json'), DOMAIN);
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((finding) => finding.ruleId)).toEqual([
      'dns-saas-service-detection:wix',
      'caa-fingerprint',
      'ssl-issuer',
      'ssl-dns-names',
      'tls-version',
    ]);
    expect(byRule(result, 'caa-fingerprint')).toMatchObject({
      severity: 'info',
      category: 'dns',
      location: { host: 'www.asdf.de', port: null, protocol: null, url: null },
      identifiers: { cve: [], cwe: ['CWE-200'] },
    });
    const tls = byRule(result, 'tls-version');
    expect(tls).toMatchObject({
      category: 'ssl',
      location: { host: 'www.asdf.de', port: 443, protocol: 'tcp', url: null },
      raw: { extractedResults: ['tls12', 'tls13'], results: 2 },
    });
    expect(tls.evidence).toContain('extracted: tls12, tls13');
  });

  it('legacy-v2-templateID-matched.jsonl: v2 keys, comma strings and YAML-list references', () => {
    const result = parse(fixture('legacy-v2-templateID-matched.jsonl'));
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(18);
    expect(severities(result)).toEqual({ low: 1, medium: 1, info: 16 });
    expect(byRule(result, 'openssh5.3-detect')).toMatchObject({
      severity: 'low',
      location: { host: 'nuclei-example.com', port: 22, protocol: 'tcp', url: null },
      references: [
        'http://seclists.org/fulldisclosure/2016/Jul/51',
        'https://security-tracker.debian.org/tracker/CVE-2016-6210',
        'http://openwall.com/lists/oss-security/2016/08/01/2',
      ],
      raw: { tags: ['network', 'openssh'] },
    });
    expect(byRule(result, 'nginx-version').evidence).toContain('extracted: nginx/1.14.2');
    expect(byRule(result, 'phpmyadmin-panel').category).toBe('exposed-panel');
    // tech-detect:bootstrap matched on three different hosts/ports: three findings.
    expect(result.findings.filter((f) => f.ruleId === 'tech-detect:bootstrap')).toHaveLength(3);
  });

  it('log4shell-critical-oast.jsonl: CVE id from the template id, interaction in evidence', () => {
    const result = parse(fixture('log4shell-critical-oast.jsonl'));
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      ruleId: 'CVE-2021-44228',
      title: 'Remote code injection in Log4j',
      severity: 'critical',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
      location: { host: '10.1.6.107', port: 8080, url: 'http://10.1.6.107:8080/' },
    });
    expect(finding?.evidence).toContain('out-of-band interaction: dns from 172.253.10.194');
    expect(finding?.evidence).toContain('extracted: vuln-log4j-vulnerable-log4j-74bbf59745-h2kqj');
    expect(finding?.references).toHaveLength(3);
  });

  it.each(readdirSync(sharedPath('fixtures', 'scanner-output', 'nuclei')))(
    '%s: streaming in chunks of 4 KiB and 7 characters gives the same result',
    (name) => {
      const text = fixture(name);
      const target = name.includes('dns') ? DOMAIN : DVWA;
      const whole = parse(text, target);
      expect(parseInChunks(text, text.length + 1, target)).toEqual(whole);
      expect(parseInChunks(text, 4096, target)).toEqual(whole);
      expect(parseInChunks(text, 7, target)).toEqual(whole);
    },
  );
});

describe('parseNucleiOutput on hand-made input', () => {
  it.each([
    ['whitespace and blank lines', ' \n\r\n\t\n'],
    ['a byte-order mark', '\uFEFF'],
    ['an empty array', '[]'],
    ['an empty array with whitespace', '\n [ \n ] \n'],
  ])('%s: clean, no findings, no warnings', (_name, text) => {
    expect(parse(text)).toEqual({ findings: [], warnings: [] });
  });

  it('reads CRLF lines, a BOM and blank lines between results', () => {
    const text = `\uFEFF${line()}\r\n\r\n${line({ 'template-id': 'b' })}\r\n`;
    const result = parse(text);
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => f.ruleId)).toEqual(['git-config', 'b']);
  });

  it('a cancelled scan: the cut-off last line is skipped with a warning', () => {
    const text = fixture('dvwa-mixed-severities-with-req-resp.jsonl');
    const cut = text.slice(0, text.indexOf('\n', 200_000) + 500);
    const result = parse(cut);
    expect(result.findings.length).toBeGreaterThan(2);
    expect(result.findings.length).toBeLessThan(27);
    expect(result.warnings).toEqual([
      'the last line of the nuclei output is cut off (the scan did not finish): it was skipped',
    ]);
    expect(parseInChunks(cut, 7)).toEqual(result);
  });

  it('a cut-off JSON array keeps the complete elements', () => {
    const text = fixture('json-export-array-dns-ssl.json');
    const cut = text.slice(0, text.indexOf('"template": "ssl/tls-version.yaml"'));
    const result = parse(cut, DOMAIN);
    expect(result.findings.map((f) => f.ruleId)).toEqual([
      'dns-saas-service-detection:wix',
      'caa-fingerprint',
      'ssl-issuer',
      'ssl-dns-names',
    ]);
    expect(result.warnings).toEqual([
      'the nuclei JSON array is cut off (the scan did not finish); 4 result(s) before that point were read',
    ]);
    expect(parseInChunks(cut, 7, DOMAIN)).toEqual(result);
  });

  it('an invalid JSON array keeps what came before the error', () => {
    const result = parse(`[${line()}, nonsense ]`);
    expect(result.findings).toHaveLength(1);
    expect(result.warnings).toEqual([
      'the nuclei JSON array is not valid JSON; 1 result(s) before that point were read',
    ]);
  });

  it.each([
    ['nmap XML', '<?xml version="1.0"?>\n<nmaprun scanner="nmap">\n</nmaprun>\n', 3],
    ['plain text', 'hello\nworld', 2],
    ['a CSV header', 'template,host,severity\n', 1],
  ])('%s: no findings, one warning that it is not nuclei output', (_name, text, lines) => {
    expect(parse(text)).toEqual({
      findings: [],
      warnings: [`the output is not nuclei JSON lines: none of its ${lines} line(s) is JSON`],
    });
  });

  it('stray non-JSON lines among results are counted, results kept', () => {
    const result = parse(`${line()}\n[INF] banner\n${line({ 'template-id': 'x' })}\n`);
    expect(result.findings).toHaveLength(2);
    expect(result.warnings).toEqual([
      '1 line(s) of the nuclei output are not JSON and were skipped (first: line 2)',
    ]);
  });

  it('JSON that is not a nuclei result (a statistics object, a number) is counted', () => {
    const stats = '{"duration":"0:00:04","percent":"42","requests":"420","total":"1000"}';
    const result = parse(`${stats}\n42\n${line()}\n`);
    expect(result.findings).toHaveLength(1);
    expect(result.warnings).toEqual([
      '2 JSON value(s) are not nuclei results (no template-id) and were skipped',
    ]);
  });

  it('failure events (error, matcher-status false) are warnings, not findings', () => {
    const text = [
      line({ 'matcher-status': false }),
      line({ 'template-id': 'tech', error: 'context deadline exceeded' }),
      line({ 'template-id': 'real' }),
    ].join('\n');
    const result = parse(text);
    expect(result.findings.map((f) => f.ruleId)).toEqual(['real']);
    expect(result.warnings).toEqual([
      'nuclei reported 1 error(s) instead of results: tech: context deadline exceeded',
      '1 result(s) with matcher-status false (failed matches) are not findings',
    ]);
  });

  it('severity unknown, missing or odd becomes info, with the tool value kept', () => {
    const text = [
      line({ 'template-id': 'a', info: { name: 'A', severity: 'unknown' } }),
      line({ 'template-id': 'b', info: { name: 'B' } }),
      line({ 'template-id': 'c', info: { name: 'C', severity: 'HIGH' } }),
    ].join('\n');
    const result = parse(text);
    expect(result.findings.map((f) => [f.ruleId, f.severity, f.toolSeverity])).toEqual([
      ['a', 'info', 'unknown'],
      ['b', 'info', null],
      ['c', 'high', 'HIGH'],
    ]);
    expect(result.warnings).toEqual([
      '1 result(s) had severity unknown; they are reported as info',
      '1 result(s) had severity (none); they are reported as info',
    ]);
  });

  it('CVE and CWE ids: upper case, de-duplicated, junk dropped; cve-id as string or list', () => {
    const text = line({
      'template-id': 'CVE-2021-41773',
      info: {
        name: 'Apache path traversal',
        severity: 'high',
        classification: {
          'cve-id': ['cve-2021-41773', 'CVE-2021-42013', 'not-a-cve'],
          'cwe-id': ['cwe-22', 'CWE-22', '79', 'nvd-cwe-other'],
        },
      },
    });
    expect(parse(text).findings[0]?.identifiers).toEqual({
      cve: ['CVE-2021-41773', 'CVE-2021-42013'],
      cwe: ['CWE-22', 'CWE-79'],
    });
    const single = line({ info: { severity: 'low', classification: { 'cve-id': 'cve-2020-1' } } });
    expect(parse(single).findings[0]?.identifiers.cve).toEqual([]);
  });

  it('invalid UTF-8 (arriving as U+FFFD) inside values is kept; in the structure it is skipped', () => {
    const inside = line({ info: { name: 'Bad \uFFFD\uFFFD name', severity: 'low' } });
    const broken = `{"template-id":\uFFFD"x"}`;
    const result = parse(`${inside}\n${broken}\n`);
    expect(result.findings.map((f) => f.title)).toEqual(['Bad \uFFFD\uFFFD name']);
    expect(result.warnings).toEqual([
      '1 line(s) of the nuclei output are not JSON and were skipped (first: line 2)',
    ]);
    expect(parseInChunks(`${inside}\n${broken}\n`, 3)).toEqual(result);
  });

  it('a 1 MB response in one line is read, and nothing of it is kept beyond the excerpt', () => {
    const text = `${line({ response: `HTTP/1.1 200 OK\r\n\r\n${'x'.repeat(1_000_000)}` })}\n`;
    const result = parse(text);
    expect(result.findings).toHaveLength(1);
    expect((result.findings[0]?.evidence ?? '').length).toBeLessThanOrEqual(4_097);
    expect(parseInChunks(text, 4096)).toEqual(result);
  });

  it(`a line over ${MAX_LINE_CHARS} characters is skipped; the lines around it are read`, () => {
    const huge = `{"template-id":"huge","x":"${'y'.repeat(MAX_LINE_CHARS)}"}`;
    const text = `${line({ 'template-id': 'before' })}\n${huge}\n${line({ 'template-id': 'after' })}\n`;
    const expected = {
      findings: [
        expect.objectContaining({ ruleId: 'before' }),
        expect.objectContaining({ ruleId: 'after' }),
      ],
      warnings: [`1 line(s) longer than ${MAX_LINE_CHARS} characters were skipped`],
    };
    expect(parse(text)).toEqual(expected);
    expect(parseInChunks(text, 1 << 20)).toEqual(expected);
  });

  it('a result without a location falls back to the scan target', () => {
    const text = line({ 'matched-at': undefined, host: undefined });
    expect(parse(text, DOMAIN).findings[0]?.location).toEqual({
      host: 'www.asdf.de',
      port: null,
      protocol: null,
      url: null,
    });
  });

  it('ignores writes after end and returns the same result again', () => {
    const parser = createNucleiParser({ target: DVWA });
    parser.write(line());
    const first = parser.end();
    parser.write(line({ 'template-id': 'late' }));
    expect(parser.end()).toBe(first);
    expect(first.findings).toHaveLength(1);
  });
});

describe('nuclei fingerprints', () => {
  /** A result line as a rescan would write it: new time, IP, payload, extracted values. */
  function rescan(seed: number, fields: Record<string, unknown>): string {
    return line({
      timestamp: `2026-0${seed}-01T00:00:00Z`,
      ip: `203.0.113.${seed}`,
      'curl-command': `curl -H 'X-Id: ${seed}' http://dvwa_dvwa_1/`,
      'extracted-results': [`session-${seed}`],
      request: `GET /?q=${seed} HTTP/1.1`,
      response: `HTTP/1.1 200 OK\r\nDate: ${seed}`,
      ...fields,
    });
  }

  const fingerprints = (text: string): string[] =>
    finalizeFindings('nuclei', parse(text).findings).map((f) => f.fingerprint);

  it('the same issue keeps its fingerprint when volatile fields change', () => {
    const fields = {
      'template-id': 'sqli-error',
      'matcher-name': 'mysql',
      'matched-at': 'http://dvwa_dvwa_1/vuln.php?id=1%27randA1',
    };
    const first = fingerprints(rescan(1, fields));
    const second = fingerprints(
      rescan(2, { ...fields, 'matched-at': 'http://DVWA_dvwa_1:80/vuln.php?id=1%27zz99' }),
    );
    expect(first).toHaveLength(1);
    expect(second).toEqual(first);
  });

  it('the fixture gives the same fingerprints on a second read', () => {
    const text = fixture('dvwa-mixed-severities-with-req-resp.jsonl');
    const first = fingerprints(text);
    expect(new Set(first).size).toBe(27);
    expect(fingerprints(text)).toEqual(first);
  });

  it.each([
    ['another matcher name', { 'matcher-name': 'postgres' }],
    ['another template', { 'template-id': 'sqli-time' }],
    ['another path', { 'matched-at': 'http://dvwa_dvwa_1/other.php?id=1' }],
    ['another host', { 'matched-at': 'http://other_host/vuln.php?id=1' }],
    ['another port', { 'matched-at': 'http://dvwa_dvwa_1:8080/vuln.php?id=1' }],
  ])('a different issue (%s) gets another fingerprint', (_name, change) => {
    const base = {
      'template-id': 'sqli-error',
      'matcher-name': 'mysql',
      'matched-at': 'http://dvwa_dvwa_1/vuln.php?id=1',
    };
    const [a] = fingerprints(rescan(1, base));
    const [b] = fingerprints(rescan(1, { ...base, ...change }));
    expect(a).toBeDefined();
    expect(b).not.toBe(a);
  });
});
