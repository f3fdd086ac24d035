/**
 * What GitHub code scanning and DefectDojo make of our SARIF (their mappings transcribed in
 * test/support/sarif-consumers.ts), and the official SARIF 2.1.0 schema (the SARIF Multitool) on
 * a log with every severity and every kind of location. The real scanners' exports are validated
 * in their end-to-end tests (test/e2e/*-scan.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Finding, Severity } from '../src/domain/findings/finding.js';
import { buildSarifLog, renderSarif } from '../src/domain/findings/sarif.js';
import { type ExportedSarif, expectConsumerReady, expectSchemaValid } from './support/sarif.js';
import {
  defectDojoCvssSeverity,
  defectDojoFindings,
  gitHubSecuritySeverity,
} from './support/sarif-consumers.js';

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

let counter = 0;
function finding(overrides: Partial<Finding>): Finding {
  counter += 1;
  return {
    id: `fnd_${counter}`,
    scanId: 'scan_1',
    engine: 'nmap',
    ruleId: 'open-port',
    title: 'Open port',
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    location: { host: '203.0.113.10', port: 22, protocol: 'tcp', url: null },
    identifiers: { cve: [], cwe: [] },
    description: 'A port answered.',
    evidence: null,
    remediation: null,
    references: [],
    raw: {},
    fingerprint: counter.toString(16).padStart(64, '0'),
    createdAt: new Date(Date.UTC(2026, 0, 2)),
    correlation: null,
    issue: null,
    ...overrides,
  };
}

const findings: Finding[] = [
  ...SEVERITIES.map((severity) =>
    finding({
      ruleId: `rule-${severity}`,
      severity,
      identifiers: { cve: [], cwe: ['CWE-89'] },
      location: { host: 'app.example', port: 443, protocol: 'tcp', url: 'https://app.example/q' },
    }),
  ),
  finding({ location: { host: '2001:db8::10', port: 53, protocol: 'udp', url: null } }),
  finding({ ruleId: 'os', location: { host: 'h.example', port: null, protocol: null, url: null } }),
  finding({
    ruleId: 'asn',
    location: { host: null, port: null, protocol: null, url: 'javascript:alert(1)' },
  }),
  finding({ ruleId: 'image', location: { host: null, port: null, protocol: null, url: null } }),
];

function input(target: string) {
  return {
    scan: {
      id: 'scan_1',
      scanType: 'nmap',
      target,
      status: 'completed',
      createdAt: '2026-01-02T00:00:00.000Z',
      completedAt: '2026-01-02T00:05:00.000Z',
    },
    toolName: 'nmap',
    toolVersion: '7.94',
    findings,
  };
}

const log = (target = 'app.example') => buildSarifLog(input(target));

describe('DefectDojo (scan type "SARIF")', () => {
  it('maps security-severity with its thresholds: ≥ 9 Critical, ≥ 7 High, ≥ 4 Medium, > 0 Low', () => {
    expect([9, 8.9, 7, 6.9, 4, 3.9, 0.1, 0].map(defectDojoCvssSeverity)).toEqual([
      'Critical',
      'High',
      'High',
      'Medium',
      'Medium',
      'Low',
      'Low',
      'Info',
    ]);
  });

  it('reads each severity back as its own, the fingerprint as unique_id_from_tool', () => {
    const sarif = log();
    const imported = defectDojoFindings(sarif);
    const byRule = new Map(
      sarif.runs[0].results.map((result, index) => [result.ruleId, imported[index]]),
    );
    expect(byRule.get('rule-critical')).toMatchObject({
      severity: 'Critical',
      cvssv3Score: 9.5,
      cwe: 89,
      vulnIdFromTool: 'rule-critical',
      filePath: 'https://app.example/q',
    });
    expect(SEVERITIES.map((severity) => byRule.get(`rule-${severity}`)?.severity)).toEqual([
      'Critical',
      'High',
      'Medium',
      'Low',
      'Info',
    ]);
    for (const [index, result] of sarif.runs[0].results.entries()) {
      expect(imported[index]?.uniqueIdFromTool).toBe(
        `rampart:${result.partialFingerprints['rampart/v1']}`,
      );
      expect(imported[index]?.filePath).toBe(
        result.locations[0]?.physicalLocation.artifactLocation.uri,
      );
    }
  });

  it('reads level note as Info and level none as Medium (why info is no longer none)', () => {
    const bare = (level: string) => ({
      runs: [
        {
          tool: { driver: { name: 't', rules: [{ id: 'r' }] } },
          results: [{ ruleId: 'r', level, message: { text: 'm' } }],
        },
      ],
    });
    expect(defectDojoFindings(bare('note'))[0]?.severity).toBe('Info');
    expect(defectDojoFindings(bare('none'))[0]?.severity).toBe('Medium');
  });

  it('imports our results: no result property it reads as one string holds a list', () => {
    expect(() => defectDojoFindings(log())).not.toThrow();
    const before = JSON.parse(JSON.stringify(log()));
    before.runs[0].results[0].properties.cwe = ['CWE-89'];
    expect(() => defectDojoFindings(before)).toThrow(TypeError);
  });
});

describe('GitHub code scanning', () => {
  it('shows each severity as its security severity (rules tagged security)', () => {
    const rules = log().runs[0].tool.driver.rules;
    const shown = new Map(rules.map((rule) => [rule.id, gitHubSecuritySeverity(rule)]));
    expect(SEVERITIES.map((severity) => shown.get(`rule-${severity}`))).toEqual([
      'critical',
      'high',
      'medium',
      'low',
      // 0.0: GitHub's lowest band is "3.9 or less"; the result's level (note) tells it apart.
      'low',
    ]);
    expect(gitHubSecuritySeverity({ properties: { 'security-severity': '9.5' } })).toBeNull();
  });

  it('gets a physical location and a fingerprint on every result', () => {
    const sarif = log();
    expectConsumerReady({ text: '', log: sarif as unknown as ExportedSarif['log'] });
    expect(
      sarif.runs[0].results.map((r) => r.locations[0]?.physicalLocation.artifactLocation.uri),
    ).toEqual(
      expect.arrayContaining(['udp://[2001:db8::10]:53', 'tcp://h.example', 'app.example']),
    );
  });
});

describe('the SARIF 2.1.0 schema (SARIF Multitool)', () => {
  it('accepts logs with every severity and kind of location, for host, image and URL targets', async () => {
    await expectSchemaValid({
      host: renderSarif(input('app.example')),
      image: renderSarif(input('ghcr.io/org/app:1.2')),
      site: renderSarif(input('https://app.example/')),
    });
  }, 60_000);
});
