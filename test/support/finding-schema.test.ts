import { describe, expect, it } from 'vitest';
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import { draftFindingErrors, expectValidDraftFinding } from './finding-schema.js';

const GOOD: DraftFinding = {
  ruleId: 'open-port',
  title: 'Open port 443/tcp (https)',
  severity: 'info',
  toolSeverity: null,
  category: 'open-port',
  location: { host: '10.0.0.5', port: 443, protocol: 'tcp', url: null },
  identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
  description: null,
  evidence: 'nginx 1.25',
  remediation: null,
  references: ['https://nvd.nist.gov/vuln/detail/CVE-2021-44228'],
  raw: { port: 443, state: 'open' },
};

describe('expectValidDraftFinding', () => {
  it('accepts a well-formed draft', () => {
    expect(draftFindingErrors(GOOD)).toEqual([]);
    expectValidDraftFinding(GOOD);
  });

  it.each([
    [
      'a severity off the scale',
      { ...GOOD, severity: 'severe' },
      '/severity must be equal to one of the allowed values',
    ],
    ['an extra field', { ...GOOD, confidence: 'high' }, '/ must NOT have additional properties'],
    [
      'a missing field',
      { ...GOOD, remediation: undefined },
      "/ must have required property 'remediation'",
    ],
    [
      'an extra location part',
      { ...GOOD, location: { ...GOOD.location, path: '/' } },
      '/location must NOT have additional properties',
    ],
    [
      'a fractional port',
      { ...GOOD, location: { ...GOOD.location, port: 44.3 } },
      '/location/port must be integer',
    ],
    [
      'an undefined url',
      { ...GOOD, location: { ...GOOD.location, url: undefined } },
      "/location must have required property 'url'",
    ],
    [
      'a number as identifier',
      { ...GOOD, identifiers: { cve: [2021], cwe: [] } },
      '/identifiers/cve/0 must be string',
    ],
    ['a null title', { ...GOOD, title: null }, '/title must be string'],
  ])('rejects %s', (_label, finding, error) => {
    expect(draftFindingErrors(finding)).toContain(error);
    expect(() => expectValidDraftFinding(finding)).toThrow();
  });

  it('rejects a fingerprinted finding: a draft has no fingerprint yet', () => {
    expect(() => expectValidDraftFinding({ ...GOOD, fingerprint: 'a'.repeat(64) })).toThrow();
  });

  it.each([
    ['a Date', { at: new Date(0) }],
    ['a function', { parse: () => 1 }],
  ])('rejects a raw record holding %s (not plain JSON)', (_label, raw) => {
    expect(draftFindingErrors({ ...GOOD, raw })).toEqual([]);
    expect(() => expectValidDraftFinding({ ...GOOD, raw })).toThrow();
  });
});
