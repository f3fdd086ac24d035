/**
 * Properties of `correlate` on generated findings. The findings come from small pools of engines,
 * hosts (in several spellings), ports, paths, parameters, CVE and CWE ids, so that keys collide
 * often and large merged groups form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceFinding } from '../../../test/support/sentinel-findings.js';
import { normalizeHost } from '../../domain/findings/fingerprint.js';
import type { EngineName } from '../engine.js';
import { correlate, uncorrelated } from './correlate.js';
import type { CorrelatedFinding, SourceFinding } from './types.js';

const ENGINES: readonly EngineName[] = [
  'nmap',
  'zap',
  'trivy',
  'nuclei',
  'nikto',
  'sqlmap',
  'wapiti',
  'harvester',
  'sublist3r',
];
/** Three hosts, two of them in two spellings; null: no host in the location. */
const HOSTS = ['a.example', 'A.Example.', '10.0.0.1', '[2001:db8::1]', '2001:DB8:0::1', null];
const PORTS = [22, 80, 443, null];
const PATHS = ['/', '/s'];
const PARAMS = ['q', ''];
const CVES = ['CVE-2021-44228', 'CVE-2018-15473'];
const CWES = ['CWE-79', 'CWE-87', 'CWE-89', 'CWE-943', 'CWE-200'];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const FINGERPRINTS = ['f1', 'f2', 'f3'];

/**
 * What a generated finding is about, and the engines that report such findings (trivy joins
 * most kinds, to check that it is never merged). `other` findings can be anything.
 */
const KINDS = {
  service: ['nmap', 'nuclei', 'trivy'],
  web: ['zap', 'wapiti', 'sqlmap', 'nuclei', 'nikto', 'trivy'],
  name: ['harvester', 'sublist3r'],
  cve: ['nmap', 'nuclei', 'nikto', 'zap', 'trivy'],
  other: ENGINES,
} as const satisfies Record<string, readonly EngineName[]>;

/** The parts a generated finding is made of (ids are added by position). */
const findingParts = fc.record({
  // Weighted towards web findings, which need the most parts to agree before they merge.
  kind: fc.constantFrom<keyof typeof KINDS>(
    'web',
    'web',
    'web',
    'service',
    'service',
    'name',
    'cve',
    'other',
  ),
  engineChoice: fc.nat(),
  host: fc.constantFrom(...HOSTS),
  /** The URL's host: mostly the location's, sometimes another one. */
  urlHost: fc.option(fc.constantFrom(...HOSTS), { freq: 4 }),
  port: fc.constantFrom(...PORTS),
  scheme: fc.constantFrom('http', 'https', null),
  path: fc.constantFrom(...PATHS),
  param: fc.constantFrom(...PARAMS),
  cve: fc.subarray(CVES, { maxLength: 2 }),
  cwe: fc.subarray(CWES, { maxLength: 2 }),
  severity: fc.constantFrom(...SEVERITIES),
  confidence: fc.constantFrom('1', '2', '3', '4'),
  fingerprint: fc.constantFrom(...FINGERPRINTS),
  scan: fc.constantFrom('s1', 's2'),
  ruleId: fc.constantFrom('r1', 'tech-detect', 'http-missing-security-headers:x-frame-options'),
});

type Parts = typeof findingParts extends fc.Arbitrary<infer T> ? T : never;

/**
 * Category, severity, port and URL that make the finding of its kind: services on the URL's
 * port (nmap's 80 or 443), web findings on their URL's port, host names without port or URL.
 */
function shapeOf(parts: Parts, engine: EngineName, url: string | null) {
  const webPort = parts.scheme === 'http' ? 80 : 443;
  switch (parts.kind) {
    case 'service':
      return engine === 'nmap'
        ? { category: 'open-port', severity: 'info' as const, port: webPort, url: null }
        : { category: 'technology', severity: 'info' as const, port: null, url };
    case 'web':
      return { category: 'vulnerability', severity: parts.severity, port: null, url };
    case 'name':
      return {
        category: engine === 'harvester' ? 'host' : 'subdomain',
        severity: 'info' as const,
        port: null,
        url: null,
      };
    default:
      return { category: 'vulnerability', severity: parts.severity, port: parts.port, url };
  }
}

function toFinding(parts: Parts, index: number): SourceFinding {
  const engines = KINDS[parts.kind];
  const engine = engines[parts.engineChoice % engines.length] ?? 'nmap';
  const query = parts.param === '' ? '' : `?${parts.param}=1`;
  const urlHost = parts.urlHost ?? parts.host;
  const url =
    parts.scheme === null || urlHost === null
      ? null
      : `${parts.scheme}://${urlHost}${parts.path}${query}`;
  const shape = shapeOf(parts, engine, url);
  return sourceFinding({
    engine,
    ruleId: parts.ruleId,
    category: shape.category,
    severity: shape.severity,
    identifiers: {
      cve: parts.kind === 'cve' && parts.cve.length === 0 ? [CVES[0] ?? ''] : parts.cve,
      cwe: parts.kind === 'web' && parts.cwe.length === 0 ? [CWES[0] ?? ''] : parts.cwe,
    },
    fingerprint: parts.fingerprint,
    scanId: `${parts.scan}-${engine}`,
    findingId: `f${index}`,
    raw: {
      parameter: parts.param,
      confidence: parts.confidence,
      instances: [{ param: parts.param }],
      matchedAt: shape.url === null ? [] : [shape.url],
    },
    location: {
      host: parts.host,
      port: shape.port,
      protocol: null,
      url: shape.url,
    },
  });
}

const findingsArb = fc
  .array(findingParts, { maxLength: 40, size: 'max' })
  .map((list) => list.map((parts, index) => toFinding(parts, index)));

/** The input and a permutation of it. */
const shuffledArb = findingsArb.chain((findings) =>
  fc.tuple(
    fc.constant(findings),
    fc.shuffledSubarray(findings, { minLength: findings.length, maxLength: findings.length }),
  ),
);

const idsOf = (findings: readonly SourceFinding[]) =>
  findings.map((f) => `${f.scanId}/${f.findingId}`).sort();

const sourceIds = (result: readonly CorrelatedFinding[]) =>
  idsOf(result.flatMap((f) => f.sources.map((s) => s.finding)));

/** The host a finding's keys are made with (location host, else the URL's host). */
function hostOf(finding: SourceFinding): string | null {
  const { host, url } = finding.location;
  if (host !== null && host.trim() !== '') {
    return normalizeHost(host);
  }
  if (url === null || !URL.canParse(url)) {
    return null;
  }
  return normalizeHost(new URL(url).hostname);
}

const RUNS = { numRuns: 300 };

describe('correlate: properties', () => {
  it('is idempotent: correlating its own output changes nothing', () => {
    fc.assert(
      fc.property(findingsArb, (findings) => {
        const once = correlate(findings);
        expect(correlate(once)).toEqual(once);
      }),
      RUNS,
    );
  });

  it('takes partly correlated input apart: correlate(correlate(x) + y) = correlate(x + y)', () => {
    fc.assert(
      fc.property(findingsArb, fc.nat(), (findings, cut) => {
        const at = findings.length === 0 ? 0 : cut % findings.length;
        const x = findings.slice(0, at);
        const y = findings.slice(at);
        expect(correlate([...correlate(x), ...y])).toEqual(correlate(findings));
      }),
      RUNS,
    );
  });

  it('does not depend on the input order', () => {
    fc.assert(
      fc.property(shuffledArb, ([findings, shuffled]) => {
        expect(correlate(shuffled)).toEqual(correlate(findings));
        expect(uncorrelated(shuffled)).toEqual(uncorrelated(findings));
      }),
      RUNS,
    );
  });

  it('never loses or repeats a source', () => {
    fc.assert(
      fc.property(findingsArb, (findings) => {
        expect(sourceIds(correlate(findings))).toEqual(idsOf(findings));
        expect(sourceIds(uncorrelated(findings))).toEqual(idsOf(findings));
        expect(uncorrelated(findings)).toHaveLength(findings.length);
      }),
      RUNS,
    );
  });

  it('never merges findings on different hosts, nor findings without a host, nor trivy findings', () => {
    fc.assert(
      fc.property(findingsArb, (findings) => {
        for (const merged of correlate(findings).filter((f) => f.sources.length > 1)) {
          const hosts = new Set(merged.sources.map((s) => hostOf(s.finding)));
          expect(hosts.size).toBe(1);
          expect(hosts.has(null)).toBe(false);
          expect(merged.sources.some((s) => s.engine === 'trivy')).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it('merges only across engines, names a rule exactly when it merged, and puts the primary first', () => {
    fc.assert(
      fc.property(findingsArb, (findings) => {
        for (const merged of correlate(findings)) {
          const engines = new Set(merged.sources.map((s) => s.engine));
          expect(merged.sources.length === 1 || engines.size >= 2).toBe(true);
          expect(merged.correlatedBy.length > 0).toBe(merged.sources.length > 1);
          expect(merged.fingerprint).toBe(merged.sources[0]?.finding.fingerprint);
          expect(merged.engine).toBe(merged.sources[0]?.engine);
          expect(merged.severity).toBe(merged.sources[0]?.finding.severity);
        }
      }),
      RUNS,
    );
  });

  it('merges two engines that report the same CVE on the same host and port', () => {
    const network = ENGINES.filter((engine) => engine !== 'trivy');
    fc.assert(
      fc.property(
        findingsArb,
        fc.uniqueArray(fc.constantFrom(...network), { minLength: 2, maxLength: 2 }),
        fc.constantFrom('a.example', '10.0.0.1', '2001:db8::1'),
        fc.constantFrom(22, 443, 8080),
        fc.constantFrom(...CVES),
        (others, [first, second], host, port, cve) => {
          const pair = [first, second].map((engine, index) =>
            sourceFinding({
              engine,
              category: 'vulnerability',
              identifiers: { cve: [cve], cwe: [] },
              scanId: 'pair',
              findingId: `pair-${index}`,
              location: { host, port, protocol: 'tcp', url: null },
            }),
          );
          const result = correlate([...others, ...pair]);
          const holders = result.filter((f) => f.sources.some((s) => s.scanId === 'pair'));
          expect(holders).toHaveLength(1);
          expect(holders[0]?.correlatedBy).toContain('cve');
        },
      ),
      RUNS,
    );
  });
});
