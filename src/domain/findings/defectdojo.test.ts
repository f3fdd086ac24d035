import { describe, expect, it } from 'vitest';
import {
  createDefectDojoWriter,
  DEFECTDOJO_FILE_KEYS,
  DEFECTDOJO_FINDING_KEYS,
  defectDojoDescription,
  defectDojoEndpoint,
  renderDefectDojo,
  toDefectDojoFinding,
} from './defectdojo.js';
import type { Finding } from './finding.js';

function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    id: 'fnd_1',
    scanId: 'scan_1',
    engine: 'nmap',
    ruleId: 'open-port',
    title: 'Open port 443/tcp (https)',
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    location: { host: '203.0.113.10', port: 443, protocol: 'tcp', url: null },
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

const vocabulary = new Set<string>(DEFECTDOJO_FINDING_KEYS);

describe('toDefectDojoFinding', () => {
  it('maps each severity to DefectDojo word', () => {
    const words = (['critical', 'high', 'medium', 'low', 'info'] as const).map(
      (severity) => toDefectDojoFinding(finding({ severity })).severity,
    );
    expect(words).toEqual(['Critical', 'High', 'Medium', 'Low', 'Info']);
  });

  it('writes a network finding with its identity, endpoint and no empty fields', () => {
    expect(toDefectDojoFinding(finding())).toEqual({
      title: 'Open port 443/tcp (https)',
      severity: 'Info',
      description: [
        '- Engine: nmap',
        '- Rule: open-port',
        '- Category: open-port',
        '- Location: tcp://203.0.113.10:443',
        `- Rampart fingerprint: ${'ab'.repeat(32)}`,
      ].join('\n'),
      unique_id_from_tool: 'ab'.repeat(32),
      vuln_id_from_tool: 'open-port',
      static_finding: false,
      dynamic_finding: true,
      endpoints: ['tcp://203.0.113.10:443'],
    });
  });

  it('writes a web finding: URL endpoint, first CWE as an integer, CVEs, texts', () => {
    const out = toDefectDojoFinding(
      finding({
        engine: 'wapiti',
        ruleId: 'sql-injection:GET:q',
        title: 'SQL Injection in /search (parameter q)',
        severity: 'critical',
        category: 'sql-injection',
        location: {
          host: '127.0.0.2',
          port: 8080,
          protocol: 'tcp',
          url: 'HTTP://127.0.0.2:8080/search?q=1&a=2#top',
        },
        identifiers: { cve: ['CVE-2024-1234', 'CVE-2023-9'], cwe: ['CWE-89', 'CWE-20'] },
        description: 'wapiti (GET /search, parameter q): payload 1 AND 7411=7411',
        remediation: 'Use prepared statements.',
        references: ['https://owasp.org/a', 'https://cwe.mitre.org/b'],
      }),
    );
    expect(out).toMatchObject({
      severity: 'Critical',
      cwe: 89,
      vulnerability_ids: ['CVE-2024-1234', 'CVE-2023-9'],
      endpoints: ['http://127.0.0.2:8080/search?a=2&q=1'],
      mitigation: 'Use prepared statements.',
      impact: 'wapiti (GET /search, parameter q): payload 1 AND 7411=7411',
      references: 'https://owasp.org/a\nhttps://cwe.mitre.org/b',
    });
    // The tool's text (with its payload) stays out of the hashed description.
    expect(out.description).not.toContain('7411');
    expect(out.description).toContain('- CWE: CWE-20, CWE-89');
    expect(out.description).toContain('- CVE: CVE-2023-9, CVE-2024-1234');
    expect(out.description).toContain('- Location: http://127.0.0.2:8080/search?a=2&q=1');
  });

  it('skips CWE ids it cannot read as a number, and has no cwe without one', () => {
    expect(
      toDefectDojoFinding(finding({ identifiers: { cve: [], cwe: ['NVD-CWE-Other', 'CWE-79'] } }))
        .cwe,
    ).toBe(79);
    expect('cwe' in toDefectDojoFinding(finding())).toBe(false);
  });

  it('marks trivy findings static and leaves out an endpoint without a host', () => {
    const out = toDefectDojoFinding(
      finding({
        engine: 'trivy',
        location: { host: null, port: null, protocol: null, url: null },
      }),
    );
    expect(out).toMatchObject({ static_finding: true, dynamic_finding: false });
    expect('endpoints' in out).toBe(false);
    expect(out.description).not.toContain('Location');
  });

  it('cuts the title to DefectDojo 511 characters without splitting a surrogate pair', () => {
    expect(toDefectDojoFinding(finding({ title: 'x'.repeat(600) })).title).toHaveLength(511);
    const emoji = `${'x'.repeat(510)}\u{1F600}`;
    expect(toDefectDojoFinding(finding({ title: emoji })).title).toBe('x'.repeat(510));
  });

  it('writes only keys of the vocabulary, whatever the finding holds', () => {
    const full = toDefectDojoFinding(
      finding({
        identifiers: { cve: ['CVE-2024-1'], cwe: ['CWE-1'] },
        description: 'd',
        remediation: 'r',
        references: ['https://x'],
        location: { host: 'h', port: 1, protocol: 'udp', url: 'https://h/' },
      }),
    );
    expect(Object.keys(full).filter((key) => !vocabulary.has(key))).toEqual([]);
  });
});

describe('a triaged finding in DefectDojo (issue 23)', () => {
  const triaged = (state: 'none' | 'false_positive' | 'accepted_risk' | 'out_of_scope') =>
    toDefectDojoFinding(
      finding({
        issue: {
          id: 'issue-1',
          baselineState: 'unchanged',
          triage: { state, reason: 'why', by: 'k', at: new Date(0), expiresAt: null },
        },
      }),
    );
  const flags = (written: Record<string, unknown>) =>
    Object.fromEntries(
      ['active', 'false_p', 'risk_accepted', 'out_of_scope']
        .filter((key) => key in written)
        .map((key) => [key, written[key]]),
    );

  it('marks each triage with its own flag and inactive; nothing when untriaged', () => {
    expect(flags(triaged('false_positive'))).toEqual({ active: false, false_p: true });
    expect(flags(triaged('accepted_risk'))).toEqual({ active: false, risk_accepted: true });
    expect(flags(triaged('out_of_scope'))).toEqual({ active: false, out_of_scope: true });
    expect(flags(triaged('none'))).toEqual({});
    expect(flags(toDefectDojoFinding(finding()))).toEqual({});
    for (const state of ['false_positive', 'accepted_risk', 'out_of_scope'] as const) {
      expect(Object.keys(triaged(state)).filter((key) => !vocabulary.has(key))).toEqual([]);
    }
  });
});

describe('defectDojoEndpoint', () => {
  it.each([
    [{ host: '2001:DB8::1', port: 22, protocol: 'tcp', url: null }, 'tcp://[2001:db8::1]:22'],
    [{ host: 'Example.COM.', port: null, protocol: null, url: null }, 'example.com'],
    [{ host: 'example.com', port: 53, protocol: null, url: null }, 'example.com:53'],
    [{ host: 'example.com', port: null, protocol: 'tcp', url: null }, 'example.com'],
    [{ host: null, port: null, protocol: null, url: null }, null],
  ])('%j → %s', (location, expected) => {
    expect(defectDojoEndpoint(finding({ location }))).toBe(expected);
  });
});

describe('defectDojoDescription', () => {
  it('holds nothing that changes between two scans of the same issue', () => {
    const first = finding({
      id: 'fnd_1',
      scanId: 'scan_1',
      description: 'OS guess 93% accuracy',
      evidence: 'payload 1',
      toolSeverity: '7.5',
      createdAt: new Date(1),
      identifiers: { cve: ['CVE-2', 'CVE-1'], cwe: ['CWE-2', 'CWE-1'] },
      location: { host: 'EXAMPLE.com', port: 443, protocol: 'TCP', url: null },
    });
    const second = finding({
      id: 'fnd_2',
      scanId: 'scan_2',
      description: 'OS guess 91% accuracy',
      evidence: 'payload 2',
      toolSeverity: '7.4',
      createdAt: new Date(2),
      identifiers: { cve: ['CVE-1', 'CVE-2'], cwe: ['CWE-1', 'CWE-2'] },
      location: { host: 'example.com', port: 443, protocol: 'tcp', url: null },
    });
    expect(defectDojoDescription(second)).toBe(defectDojoDescription(first));
  });
});

describe('the file', () => {
  it('is {"findings":[…]} and the same bytes whether written at once or a page at a time', () => {
    const findings = Array.from({ length: 7 }, (_, i) =>
      finding({ ruleId: `r${i}`, fingerprint: String(i).repeat(64) }),
    );
    const whole = renderDefectDojo(findings);
    const writer = createDefectDojoWriter();
    const paged =
      writer.head +
      writer.findings(findings.slice(0, 3)) +
      writer.findings([]) +
      writer.findings(findings.slice(3)) +
      writer.end();
    expect(paged).toBe(whole);
    const parsed = JSON.parse(whole);
    expect(Object.keys(parsed)).toEqual(['findings']);
    expect(parsed.findings).toEqual(findings.map(toDefectDojoFinding));
    expect(JSON.parse(renderDefectDojo([]))).toEqual({ findings: [] });
    expect(DEFECTDOJO_FILE_KEYS).toContain('findings');
  });
});
