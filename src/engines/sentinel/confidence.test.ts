import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceFinding } from '../../../test/support/sentinel-findings.js';
import { ENGINE_NAMES } from '../engine.js';
import { confidenceOf, confirmedBy } from './confidence.js';
import { CONFIDENCES, type SourceFinding } from './types.js';

const rate = (overrides: Partial<SourceFinding>) => confidenceOf(sourceFinding(overrides));

describe('confidenceOf', () => {
  it('rates sqlmap injection points confirmed (sqlmap exploited them), anything else high', () => {
    expect(rate({ engine: 'sqlmap', category: 'sql-injection' })).toBe('confirmed');
    expect(rate({ engine: 'sqlmap', category: 'other' })).toBe('high');
  });

  it("rates ZAP alerts by ZAP's own confidence, medium when it has none", () => {
    const zap = (confidence: unknown) => rate({ engine: 'zap', raw: { confidence } });
    expect(zap('0')).toBe('low');
    expect(zap('1')).toBe('low');
    expect(zap('2')).toBe('medium');
    expect(zap(' 3 ')).toBe('high');
    expect(zap(3)).toBe('high');
    expect(zap('4')).toBe('confirmed');
    expect(zap('')).toBe('medium');
    expect(zap('__proto__')).toBe('medium');
    expect(rate({ engine: 'zap', raw: null })).toBe('medium');
    expect(rate({ engine: 'zap', raw: ['3'] })).toBe('medium');
  });

  it('rates wapiti vulnerabilities and misconfigurations high, anomalies and additionals medium', () => {
    expect(rate({ engine: 'wapiti', category: 'vulnerability' })).toBe('high');
    expect(rate({ engine: 'wapiti', category: 'misconfiguration' })).toBe('high');
    expect(rate({ engine: 'wapiti', category: 'anomaly' })).toBe('medium');
    expect(rate({ engine: 'wapiti', category: 'information' })).toBe('medium');
  });

  it('rates nuclei matches high, an out-of-band callback or a working default login confirmed', () => {
    expect(rate({ engine: 'nuclei', category: 'exposure', raw: { interaction: null } })).toBe(
      'high',
    );
    expect(rate({ engine: 'nuclei', category: 'technology' })).toBe('high');
    expect(
      rate({
        engine: 'nuclei',
        category: 'vulnerability',
        raw: { interaction: { protocol: 'dns', remoteAddress: '172.253.10.194' } },
      }),
    ).toBe('confirmed');
    expect(rate({ engine: 'nuclei', category: 'default-login' })).toBe('confirmed');
  });

  it('rates nikto vulnerability and outdated-software claims low, what it saw medium', () => {
    expect(rate({ engine: 'nikto', category: 'vulnerability' })).toBe('low');
    expect(rate({ engine: 'nikto', category: 'outdated-software' })).toBe('low');
    // A claim with a classified CWE is stored under its weakness class: still a claim.
    expect(rate({ engine: 'nikto', category: 'xss' })).toBe('low');
    expect(rate({ engine: 'nikto', category: 'security-header' })).toBe('medium');
    expect(rate({ engine: 'nikto', category: 'sensitive-file' })).toBe('medium');
  });

  it('rates nmap open ports high, vulners CVE guesses and OS guesses medium', () => {
    expect(rate({ engine: 'nmap', category: 'open-port' })).toBe('high');
    expect(rate({ engine: 'nmap', category: 'vulnerability' })).toBe('medium');
    expect(rate({ engine: 'nmap', category: 'os-detection' })).toBe('medium');
  });

  it('rates trivy high and the host-name tools medium', () => {
    expect(rate({ engine: 'trivy', category: 'vulnerability' })).toBe('high');
    expect(rate({ engine: 'harvester', category: 'host' })).toBe('medium');
    expect(rate({ engine: 'sublist3r', category: 'subdomain' })).toBe('medium');
    expect(rate({ engine: 'sentinel' })).toBe('medium');
  });

  it('never throws, whatever raw and category hold', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ENGINE_NAMES),
        fc.anything(),
        fc.string(),
        (engine, raw, category) => {
          expect(CONFIDENCES).toContain(confidenceOf(sourceFinding({ engine, raw, category })));
        },
      ),
    );
  });
});

describe('confirmedBy', () => {
  it('says whether an engine confirmed a draft by exploitation, as finalizeFindings needs', () => {
    expect(confirmedBy('sqlmap')(sourceFinding({ category: 'sql-injection' }))).toBe(true);
    expect(confirmedBy('wapiti')(sourceFinding({ category: 'sql-injection' }))).toBe(false);
    expect(confirmedBy('zap')(sourceFinding({ raw: { confidence: '4' } }))).toBe(true);
    expect(confirmedBy('zap')(sourceFinding({ raw: { confidence: '3' } }))).toBe(false);
    expect(confirmedBy('nuclei')(sourceFinding({ raw: { interaction: {} } }))).toBe(true);
  });
});
