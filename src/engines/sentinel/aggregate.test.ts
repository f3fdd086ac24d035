import { describe, expect, it } from 'vitest';
import { sourceFinding } from '../../../test/support/sentinel-findings.js';
import { riskScore, summarizeFindings } from '../../domain/findings/summary.js';
import {
  aggregateSentinel,
  rehomeNmapFindings,
  type SentinelChildEnd,
  sentinelEnding,
} from './aggregate.js';

function child(overrides: Partial<SentinelChildEnd> = {}): SentinelChildEnd {
  return {
    id: 'scan-nmap',
    engine: 'nmap',
    status: 'completed',
    error: null,
    target: '10.0.0.5',
    targetType: 'ip',
    ...overrides,
  };
}

const timedOut = { code: 'SCAN_TIMEOUT', message: 'ran past its timeout' };

describe('sentinelEnding', () => {
  it.each([
    [
      'one completed child completes the parent',
      [child(), child({ status: 'failed', error: timedOut })],
      'completed',
      null,
    ],
    [
      'all failed alike: their code',
      [
        child({ status: 'failed', error: timedOut }),
        child({ engine: 'zap', status: 'failed', error: timedOut }),
      ],
      'failed',
      'SCAN_TIMEOUT',
    ],
    [
      'failed differently: ENGINE_ERROR',
      [
        child({ status: 'failed', error: timedOut }),
        child({
          engine: 'zap',
          status: 'failed',
          error: { code: 'TARGET_UNRESOLVABLE', message: 'x' },
        }),
      ],
      'failed',
      'ENGINE_ERROR',
    ],
    [
      'failed and cancelled: ENGINE_ERROR',
      [child({ status: 'failed', error: timedOut }), child({ engine: 'zap', status: 'cancelled' })],
      'failed',
      'ENGINE_ERROR',
    ],
    ['all cancelled: ENGINE_ERROR', [child({ status: 'cancelled' })], 'failed', 'ENGINE_ERROR'],
  ] as const)('%s', (_name, children, kind, code) => {
    const ending = sentinelEnding(children);
    expect(ending.kind).toBe(kind);
    expect(ending.kind === 'failed' ? ending.error.code : null).toBe(code);
  });

  it('names each child and how it ended', () => {
    const ending = sentinelEnding([
      child({ status: 'failed', error: timedOut }),
      child({ engine: 'zap', status: 'cancelled' }),
    ]);
    expect(ending).toEqual({
      kind: 'failed',
      error: {
        code: 'ENGINE_ERROR',
        message:
          'No engine of this sentinel scan completed: nmap failed (SCAN_TIMEOUT: ran past its timeout); zap was cancelled',
      },
    });
  });
});

describe('rehomeNmapFindings', () => {
  const port = sourceFinding({ location: { host: '203.0.113.7', port: 443 } });
  const named = child({ target: 'shop.example.com', targetType: 'domain' });

  it("moves a named nmap child's address findings onto its target name", () => {
    expect(rehomeNmapFindings([port], [named])[0]?.location.host).toBe('shop.example.com');
  });

  it('leaves address targets, other engines and findings without a host alone', () => {
    expect(rehomeNmapFindings([port], [child()])[0]).toBe(port);
    const zap = sourceFinding({ engine: 'zap', scanId: 'scan-nmap' });
    expect(
      rehomeNmapFindings([zap], [child({ engine: 'zap', id: 'scan-nmap', target: 'a.b' })])[0],
    ).toBe(zap);
    const hostless = sourceFinding({ location: { host: null } });
    expect(rehomeNmapFindings([hostless], [named])[0]).toBe(hostless);
  });
});

describe('aggregateSentinel', () => {
  const zapXss = sourceFinding({
    engine: 'zap',
    ruleId: '40012',
    title: 'Cross Site Scripting (Reflected)',
    severity: 'high',
    category: 'vulnerability',
    location: { host: 'shop.example.com', port: 443, url: 'https://shop.example.com/hello' },
    identifiers: { cve: [], cwe: ['CWE-79'] },
    raw: { confidence: '2', instances: [{ param: 'name' }] },
  });
  const wapitiXss = sourceFinding({
    engine: 'wapiti',
    ruleId: 'cross-site-scripting:GET:name',
    title: 'Cross Site Scripting in /hello (parameter name)',
    severity: 'medium',
    category: 'vulnerability',
    location: { host: 'shop.example.com', port: 443, url: 'https://shop.example.com/hello' },
    identifiers: { cve: [], cwe: ['CWE-79'] },
    raw: { parameter: 'name' },
  });
  const nmapPort = sourceFinding({
    location: { host: '203.0.113.7', port: 443 },
    scanId: 'scan-nmap',
  });
  const children = [
    child({ target: 'shop.example.com', targetType: 'domain' }),
    child({ id: 'scan-zap', engine: 'zap', target: 'https://shop.example.com/' }),
    child({ id: 'scan-wapiti', engine: 'wapiti', target: 'https://shop.example.com/' }),
  ];
  const input = { children, findings: [nmapPort, zapXss, wapitiXss] };

  it('correlates, scores and summarizes, keeping every source', () => {
    const result = aggregateSentinel({ ...input, correlate: true, riskScore: true });
    expect(result.ending).toEqual({ kind: 'completed' });
    expect(result.findings).toHaveLength(2);
    const xss = result.findings.find((finding) => finding.identifiers.cwe.includes('CWE-79'));
    expect(xss?.correlationColumns.correlatedBy).toEqual(['weakness']);
    expect(xss?.correlationColumns.sources.map((source) => source.engine).sort()).toEqual([
      'wapiti',
      'zap',
    ]);
    // Stored sources carry the original finding without its raw record.
    expect(xss?.correlationColumns.sources.every((source) => !('raw' in source.finding))).toBe(
      true,
    );
    expect(xss?.correlationColumns.risk?.score).toBeGreaterThan(0);
    const port = result.findings.find((finding) => finding.engine === 'nmap');
    expect(port?.location.host).toBe('shop.example.com');
    expect(result.summary).toEqual(summarizeFindings(result.findings));
    expect(result.riskFactors?.[0]?.factor).toBe('highest-finding');
    expect(result.riskScore).toBeGreaterThanOrEqual(xss?.correlationColumns.risk?.score ?? 101);
  });

  it('keeps engines apart with correlate off, and uses the severity formula with riskScore off', () => {
    const result = aggregateSentinel({ ...input, correlate: false, riskScore: false });
    expect(result.findings).toHaveLength(3);
    expect(result.findings.every((finding) => finding.correlationColumns.risk === null)).toBe(true);
    expect(result.riskFactors).toBeNull();
    expect(result.riskScore).toBe(riskScore(result.summary));
  });
});
