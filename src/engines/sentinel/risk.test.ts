import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEVERITIES, type Severity } from '../../domain/findings/finding.js';
import { normalizeFinding, WEAKNESS_SEVERITIES } from '../../domain/findings/weakness-severity.js';
import type { EngineName } from '../engine.js';
import { assessFinding, assessScan, scoreFindings } from './risk.js';
import type {
  Confidence,
  CorrelatedFinding,
  FindingSource,
  RiskFactor,
  ScoredFinding,
  SourceFinding,
} from './types.js';

interface Shape {
  readonly title?: string;
  readonly severity?: Severity;
  readonly category?: string;
  readonly host?: string | null;
  readonly port?: number | null;
  readonly protocol?: string | null;
  readonly url?: string | null;
  readonly cve?: readonly string[];
  /** Engine and confidence of each source, the primary first; its severity, else the finding's. */
  readonly sources?: ReadonlyArray<readonly [EngineName, Confidence, Severity?]>;
}

/** A correlated finding of the given shape; a single nuclei source of medium confidence by default. */
function finding(shape: Shape = {}): CorrelatedFinding {
  const base = {
    ruleId: 'rule',
    title: shape.title ?? 'A finding',
    severity: shape.severity ?? 'medium',
    toolSeverity: null,
    category: shape.category ?? 'vulnerability',
    location: {
      host: shape.host ?? null,
      port: shape.port ?? null,
      protocol: shape.protocol ?? null,
      url: shape.url ?? null,
    },
    identifiers: { cve: shape.cve ?? [], cwe: [] },
    description: null,
    evidence: null,
    remediation: null,
    references: [],
    raw: null,
    fingerprint: 'fp',
  };
  const sources: FindingSource[] = (shape.sources ?? [['nuclei', 'medium']]).map(
    ([engine, confidence, severity], index) => {
      const source: SourceFinding = {
        ...base,
        severity: severity ?? base.severity,
        engine,
        scanId: `child-${engine}`,
        findingId: `f${index}`,
      };
      return {
        engine,
        scanId: source.scanId,
        findingId: source.findingId,
        confidence,
        finding: source,
      };
    },
  );
  return {
    ...base,
    engine: sources[0]?.engine ?? 'nuclei',
    sources,
    correlatedBy: sources.length > 1 ? ['cve'] : [],
  };
}

const factorOf = (factors: readonly RiskFactor[], name: string) =>
  factors.find((factor) => factor.factor === name);

describe('assessFinding: severity', () => {
  it.each<[Severity, number]>([
    ['critical', 70],
    ['high', 50],
    ['medium', 30],
    ['low', 10],
    ['info', 0],
  ])('%s alone scores %i, with the severity factor only', (severity, points) => {
    expect(assessFinding(finding({ severity }))).toEqual({
      score: points,
      factors: [{ factor: 'severity', points, detail: severity }],
    });
  });
});

describe('assessFinding: known-cve', () => {
  it.each<[string, string[], RiskFactor | undefined, number]>([
    ['no CVE: no factor', [], undefined, 50],
    [
      'one CVE',
      ['CVE-2021-44228'],
      { factor: 'known-cve', points: 10, detail: 'CVE-2021-44228' },
      60,
    ],
    [
      'three CVEs, all named',
      ['CVE-2021-44228', 'CVE-2021-45046', 'CVE-2021-45105'],
      {
        factor: 'known-cve',
        points: 10,
        detail: 'CVE-2021-44228, CVE-2021-45046, CVE-2021-45105',
      },
      60,
    ],
    [
      'five CVEs: three named, +2 more, still +10',
      ['CVE-2021-1', 'CVE-2021-2', 'CVE-2021-3', 'CVE-2021-4', 'CVE-2021-5'],
      {
        factor: 'known-cve',
        points: 10,
        detail: 'CVE-2021-1, CVE-2021-2, CVE-2021-3 +2 more',
      },
      60,
    ],
  ])('%s', (_name, cve, factor, score) => {
    const risk = assessFinding(finding({ severity: 'high', cve }));
    expect(factorOf(risk.factors, 'known-cve')).toEqual(factor);
    expect(risk.score).toBe(score);
  });

  it('adds nothing to an info finding', () => {
    expect(assessFinding(finding({ severity: 'info', cve: ['CVE-2021-44228'] }))).toEqual({
      score: 0,
      factors: [{ factor: 'severity', points: 0, detail: 'info' }],
    });
  });
});

describe('assessFinding: confirmed', () => {
  it.each<[string, Array<[EngineName, Confidence]>, string | undefined]>([
    ['one source, high confidence: no factor', [['sqlmap', 'high']], undefined],
    ['one source confirmed', [['sqlmap', 'confirmed']], 'confirmed by sqlmap'],
    [
      'confirmed by a secondary source',
      [
        ['zap', 'medium'],
        ['sqlmap', 'confirmed'],
      ],
      'confirmed by sqlmap',
    ],
    [
      'confirmed by two engines: named once each, by name',
      [
        ['zap', 'confirmed'],
        ['sqlmap', 'confirmed'],
        ['zap', 'confirmed'],
      ],
      'confirmed by sqlmap and zap',
    ],
  ])('%s', (_name, sources, detail) => {
    const risk = assessFinding(finding({ severity: 'low', sources }));
    expect(factorOf(risk.factors, 'confirmed')).toEqual(
      detail === undefined ? undefined : { factor: 'confirmed', points: 10, detail },
    );
  });
});

describe('assessFinding: exposure', () => {
  it.each<[string, Shape, number | null, string | null]>([
    ['public IPv4', { host: '8.8.8.8' }, 10, 'internet-facing address 8.8.8.8'],
    ['public IPv6', { host: '2606:4700::1111' }, 10, 'internet-facing address 2606:4700::1111'],
    ['private IPv4', { host: '10.0.0.5' }, 0, 'internal address 10.0.0.5 (private)'],
    ['loopback', { host: '127.0.0.1' }, 0, 'internal address 127.0.0.1 (loopback)'],
    ['IPv6 loopback', { host: '::1' }, 0, 'internal address ::1 (loopback)'],
    [
      'carrier-grade NAT',
      { host: '100.64.1.1' },
      0,
      'internal address 100.64.1.1 (carrier-grade NAT)',
    ],
    ['link-local IPv6', { host: 'fe80::1' }, 0, 'internal address fe80::1 (link-local)'],
    [
      'cloud metadata',
      { host: '169.254.169.254' },
      0,
      'internal address 169.254.169.254 (cloud metadata)',
    ],
    [
      'IPv4-mapped private',
      { host: '::ffff:10.0.0.5' },
      0,
      'internal address ::ffff:10.0.0.5 (private)',
    ],
    [
      'documentation IPv4 (decided: not internet-facing)',
      { host: '203.0.113.5' },
      0,
      'documentation address 203.0.113.5 (203.0.113.0/24, not routed on the internet)',
    ],
    [
      'documentation IPv6',
      { host: '2001:db8::1' },
      0,
      'documentation address 2001:db8::1 (2001:db8::/32, not routed on the internet)',
    ],
    [
      'benchmarking range',
      { host: '198.18.0.1' },
      0,
      'documentation address 198.18.0.1 (198.18.0.0/15, not routed on the internet)',
    ],
    ['public name', { host: 'app.example.com' }, 10, 'internet-facing name app.example.com'],
    ['name in upper case', { host: 'APP.Example.COM' }, 10, 'internet-facing name app.example.com'],
    ['localhost', { host: 'localhost' }, 0, 'internal name localhost'],
    ['single label', { host: 'intranet' }, 0, 'internal name intranet'],
    ['.local', { host: 'printer.local' }, 0, 'internal name printer.local'],
    ['.localhost', { host: 'app.localhost' }, 0, 'internal name app.localhost'],
    ['.internal', { host: 'db.corp.internal' }, 0, 'internal name db.corp.internal'],
    ['.lan', { host: 'router.lan' }, 0, 'internal name router.lan'],
    ['.home.arpa', { host: 'nas.home.arpa' }, 0, 'internal name nas.home.arpa'],
    ['.test', { host: 'app.test' }, 0, 'internal name app.test'],
    ['.invalid', { host: 'x.invalid' }, 0, 'internal name x.invalid'],
    ['.example', { host: 'www.example' }, 0, 'internal name www.example'],
    ['a suffix only as a whole label', { host: 'mytest' }, 0, 'internal name mytest'],
    ['"test" inside a public name', { host: 'latest.io' }, 10, 'internet-facing name latest.io'],
    [
      'host from the URL',
      { url: 'https://shop.example.com/cart' },
      10,
      'internet-facing name shop.example.com',
    ],
    ['IPv6 host from the URL', { url: 'http://[::1]:8080/' }, 0, 'internal address ::1 (loopback)'],
    [
      'location.host wins over the URL',
      { host: '10.0.0.5', url: 'https://example.com/' },
      0,
      'internal address 10.0.0.5 (private)',
    ],
    ['no host, no URL: no factor', {}, null, null],
    ['an unparsable URL: no factor', { url: 'not a url' }, null, null],
  ])('%s', (_name, shape, points, detail) => {
    const risk = assessFinding(finding({ severity: 'medium', ...shape }));
    const factor = factorOf(risk.factors, 'exposure');
    expect(factor).toEqual(points === null ? undefined : { factor: 'exposure', points, detail });
    expect(risk.score).toBe(30 + (points ?? 0));
  });
});

describe('assessFinding: corroboration', () => {
  it.each<[string, EngineName[], number | null, string | null]>([
    ['one engine', ['zap'], null, null],
    ['one engine twice', ['zap', 'zap'], null, null],
    ['two engines: +5', ['zap', 'nuclei'], 5, 'reported by nuclei and zap'],
    ['three engines: +10', ['zap', 'nuclei', 'nikto'], 10, 'reported by nikto, nuclei and zap'],
    [
      'four engines: capped at +10',
      ['zap', 'nuclei', 'nikto', 'wapiti'],
      10,
      'reported by nikto, nuclei, wapiti and zap',
    ],
  ])('%s', (_name, engines, points, detail) => {
    const risk = assessFinding(
      finding({ severity: 'low', sources: engines.map((engine) => [engine, 'medium'] as const) }),
    );
    expect(factorOf(risk.factors, 'corroboration')).toEqual(
      points === null ? undefined : { factor: 'corroboration', points, detail },
    );
    expect(risk.score).toBe(10 + (points ?? 0));
  });
});

describe('assessFinding: exposed-service (info findings)', () => {
  const openPort = (shape: Shape) =>
    finding({
      severity: 'info',
      category: 'open-port',
      protocol: 'tcp',
      sources: [['nmap', 'high']],
      ...shape,
    });

  it.each<[string, Shape, number]>([
    ['redis on a public address', { host: '8.8.4.4', port: 6379 }, 20],
    ['mysql on a public name', { host: 'db.example.com', port: 3306 }, 20],
    ['rdp, no protocol given', { host: '8.8.4.4', port: 3389, protocol: null }, 20],
    ['redis on a private address', { host: '10.0.0.5', port: 6379 }, 0],
    ['redis on a documentation address', { host: '192.0.2.1', port: 6379 }, 0],
    ['redis on an internal name', { host: 'cache.internal', port: 6379 }, 0],
    ['http is not a risky service', { host: '8.8.4.4', port: 80 }, 0],
    [
      'memcached over UDP is not the listed TCP service',
      { host: '8.8.4.4', port: 11211, protocol: 'udp' },
      0,
    ],
    ['not an open-port finding', { host: '8.8.4.4', port: 6379, category: 'service' }, 0],
    ['no port', { host: '8.8.4.4', port: null }, 0],
  ])('%s → %i', (_name, shape, score) => {
    const risk = assessFinding(openPort(shape));
    expect(risk.score).toBe(score);
    expect(risk.factors.map((factor) => factor.factor)).toEqual(
      score === 0 ? ['severity'] : ['severity', 'exposed-service'],
    );
  });

  it('says which service is exposed, and where', () => {
    expect(assessFinding(openPort({ host: '8.8.4.4', port: 6379 })).factors[1]).toEqual({
      factor: 'exposed-service',
      points: 20,
      detail:
        'redis on port 6379/tcp reachable from the internet (internet-facing address 8.8.4.4)',
    });
  });

  it('covers every listed port', () => {
    for (const port of [21, 23, 445, 1433, 3306, 3389, 5432, 5900, 6379, 9200, 11211, 27017]) {
      expect(assessFinding(openPort({ host: '8.8.4.4', port })).score, String(port)).toBe(20);
    }
  });

  it('gives a low open-port finding the usual factors instead (10 + 10 exposure ≥ 20)', () => {
    const risk = assessFinding(openPort({ host: '8.8.4.4', port: 6379, severity: 'low' }));
    expect(risk.factors.map((factor) => factor.factor)).toEqual(['severity', 'exposure']);
    expect(risk.score).toBe(20);
  });
});

describe('assessFinding: worked examples, order and cap', () => {
  it('Log4Shell on a public host, reported by nuclei and zap: 95', () => {
    const log4shell = finding({
      title: 'Apache Log4j2 JNDI RCE',
      severity: 'critical',
      url: 'https://app.example.com/api',
      cve: ['CVE-2021-44228'],
      sources: [
        ['nuclei', 'high'],
        ['zap', 'medium'],
      ],
    });
    expect(assessFinding(log4shell)).toEqual({
      score: 95,
      factors: [
        { factor: 'severity', points: 70, detail: 'critical' },
        { factor: 'known-cve', points: 10, detail: 'CVE-2021-44228' },
        { factor: 'exposure', points: 10, detail: 'internet-facing name app.example.com' },
        { factor: 'corroboration', points: 5, detail: 'reported by nuclei and zap' },
      ],
    });
  });

  it('the same, confirmed by nuclei: 105 capped at 100, factors in their fixed order', () => {
    const risk = assessFinding(
      finding({
        severity: 'critical',
        url: 'https://app.example.com/api',
        cve: ['CVE-2021-44228'],
        sources: [
          ['nuclei', 'confirmed'],
          ['zap', 'medium'],
        ],
      }),
    );
    expect(risk.score).toBe(100);
    expect(risk.factors.map((factor) => [factor.factor, factor.points])).toEqual([
      ['severity', 70],
      ['known-cve', 10],
      ['confirmed', 10],
      ['exposure', 10],
      ['corroboration', 5],
    ]);
  });

  it('everything at once: 70 + 10 + 10 + 10 + 10 = 110 → 100', () => {
    const risk = assessFinding(
      finding({
        severity: 'critical',
        host: '8.8.8.8',
        cve: ['CVE-2024-1'],
        sources: [
          ['sqlmap', 'confirmed'],
          ['zap', 'high'],
          ['wapiti', 'medium'],
        ],
      }),
    );
    expect(risk.factors.reduce((sum, factor) => sum + factor.points, 0)).toBe(110);
    expect(risk.score).toBe(100);
  });

  it('a medium finding of zap on an internal address: 30', () => {
    const risk = assessFinding(
      finding({ severity: 'medium', url: 'http://10.0.0.5/', sources: [['zap', 'medium']] }),
    );
    expect(risk.score).toBe(30);
    expect(factorOf(risk.factors, 'exposure')).toEqual({
      factor: 'exposure',
      points: 0,
      detail: 'internal address 10.0.0.5 (private)',
    });
  });
});

describe('scoreFindings', () => {
  it('adds each finding its risk and keeps the order', () => {
    const findings = [
      finding({ title: 'a', severity: 'low' }),
      finding({ title: 'b', severity: 'critical' }),
      finding({ title: 'c', severity: 'info' }),
    ];
    const scored = scoreFindings(findings);
    expect(scored.map((f) => [f.title, f.risk.score])).toEqual([
      ['a', 10],
      ['b', 70],
      ['c', 0],
    ]);
    expect(scored[1]).toMatchObject(findings[1] ?? {});
    expect(scoreFindings([])).toEqual([]);
  });
});

/** A scored finding with a given risk score (the factors do not matter to the scan). */
function scored(
  score: number,
  title = `finding ${score}`,
  engine: EngineName = 'nuclei',
): ScoredFinding {
  return { ...finding({ title, sources: [[engine, 'medium']] }), risk: { score, factors: [] } };
}

describe('assessScan', () => {
  it('no findings: 0, and says so', () => {
    expect(assessScan([])).toEqual({
      score: 0,
      factors: [{ factor: 'no-findings', points: 0, detail: 'no findings' }],
    });
  });

  it.each<[string, number[], number]>([
    ['one finding: its score', [42], 42],
    ['worked example: 95, 30, 20 → 95.19', [95, 30, 20], 95],
    ['worked example: 50, 50, 30 → 54.999', [50, 50, 30], 55],
    ['order does not matter', [30, 50, 50], 55],
    ['30 and 10: 30 + 70 × 0.003 = 30.21', [30, 10], 30],
    ['four of 60: 60 + 40 × (1 − 0.892³) = 71.61', [60, 60, 60, 60], 72],
    ['two of 100: still 100', [100, 100], 100],
    ['zeros add nothing', [40, 0, 0, 0], 40],
    ['only zeros', [0, 0], 0],
    ['50 and 100: the top is 100', [50, 100], 100],
    ['a hundred findings of 90: 99.99…, never above 100', Array<number>(100).fill(90), 100],
    [
      'a hundred lows of 10 on top of 50: 50 + 50 × (1 − 0.997⁹⁹) = 62.86',
      [50, ...Array<number>(99).fill(10)],
      63,
    ],
  ])('%s', (_name, scores, expected) => {
    expect(assessScan(scores.map((score) => scored(score))).score).toBe(expected);
  });

  it('explains the score: the highest finding and what the others add', () => {
    const risk = assessScan([
      scored(30, 'Missing CSP', 'zap'),
      scored(95, 'Apache Log4j2 JNDI RCE', 'nuclei'),
      scored(0, 'Subdomain', 'harvester'),
      scored(20, 'Open port 6379/tcp (redis)', 'nmap'),
    ]);
    expect(risk).toEqual({
      score: 95,
      factors: [
        { factor: 'highest-finding', points: 95, detail: 'Apache Log4j2 JNDI RCE (nuclei)' },
        { factor: 'further-findings', points: 0, detail: '2 further findings with a risk above 0' },
      ],
    });
  });

  it('further-findings carries the difference to the top', () => {
    expect(assessScan([scored(50, 'a'), scored(50, 'b'), scored(30, 'c')]).factors).toEqual([
      { factor: 'highest-finding', points: 50, detail: 'a (nuclei)' },
      { factor: 'further-findings', points: 5, detail: '2 further findings with a risk above 0' },
    ]);
    expect(assessScan([scored(40, 'x'), scored(40, 'y')]).factors[1]).toEqual({
      factor: 'further-findings',
      points: 3,
      detail: '1 further finding with a risk above 0',
    });
    expect(assessScan([scored(40, 'x')]).factors[1]).toEqual({
      factor: 'further-findings',
      points: 0,
      detail: '0 further findings with a risk above 0',
    });
  });

  it('names the first of several findings with the top score', () => {
    expect(
      assessScan([scored(10), scored(70, 'first'), scored(70, 'second')]).factors[0]?.detail,
    ).toBe('first (nuclei)');
  });
});

// ---- properties

const ENGINES_ARB = fc.constantFrom<EngineName>('nmap', 'zap', 'nuclei', 'nikto', 'sqlmap');
const CONFIDENCE_ARB = fc.constantFrom<Confidence>('low', 'medium', 'high', 'confirmed');
const SHAPE_ARB: fc.Arbitrary<Shape> = fc.record({
  severity: fc.constantFrom(...SEVERITIES),
  category: fc.constantFrom('open-port', 'vulnerability'),
  host: fc.constantFrom(
    null,
    '8.8.8.8',
    '10.0.0.5',
    'app.example.com',
    'db.internal',
    '203.0.113.9',
  ),
  port: fc.constantFrom(null, 22, 80, 3306, 6379),
  protocol: fc.constantFrom(null, 'tcp', 'udp'),
  url: fc.constantFrom(null, 'https://shop.example.com/', 'http://127.0.0.1:8080/'),
  cve: fc.subarray(['CVE-2021-44228', 'CVE-2021-45046', 'CVE-2022-22965', 'CVE-2023-1']),
  sources: fc.array(fc.tuple(ENGINES_ARB, CONFIDENCE_ARB), { minLength: 1, maxLength: 5 }),
});

describe('risk properties', () => {
  it('a finding score is an integer 0..100: the capped sum of its factors', () => {
    fc.assert(
      fc.property(SHAPE_ARB, (shape) => {
        const risk = assessFinding(finding(shape));
        const sum = risk.factors.reduce((acc, factor) => acc + factor.points, 0);
        expect(Number.isInteger(risk.score)).toBe(true);
        expect(risk.score).toBe(Math.min(100, sum));
        expect(risk.factors[0]?.factor).toBe('severity');
      }),
    );
  });

  it('raising the severity never lowers a finding score', () => {
    fc.assert(
      fc.property(
        SHAPE_ARB,
        fc.constantFrom(...SEVERITIES),
        fc.constantFrom(...SEVERITIES),
        (shape, a, b) => {
          // SEVERITIES is most severe first: a lower index is more severe.
          const [higher, lower] = SEVERITIES.indexOf(a) <= SEVERITIES.indexOf(b) ? [a, b] : [b, a];
          const high = assessFinding(finding({ ...shape, severity: higher })).score;
          const low = assessFinding(finding({ ...shape, severity: lower })).score;
          expect(high).toBeGreaterThanOrEqual(low);
        },
      ),
    );
  });

  const SCORES = fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 30 });

  it('adding a finding never lowers the scan score, wherever it goes', () => {
    fc.assert(
      fc.property(SCORES, fc.integer({ min: 0, max: 100 }), fc.nat(), (scores, extra, at) => {
        const before = assessScan(scores.map((score) => scored(score))).score;
        const more = [...scores];
        more.splice(at % (scores.length + 1), 0, extra);
        const after = assessScan(more.map((score) => scored(score))).score;
        expect(after).toBeGreaterThanOrEqual(before);
      }),
    );
  });

  it('raising one finding score never lowers the scan score', () => {
    fc.assert(
      fc.property(
        SCORES.filter((scores) => scores.length > 0),
        fc.nat(),
        fc.integer({ min: 0, max: 100 }),
        (scores, at, raise) => {
          const index = at % scores.length;
          const raised = scores.map((score, i) =>
            i === index ? Math.min(100, score + raise) : score,
          );
          const before = assessScan(scores.map((score) => scored(score))).score;
          const after = assessScan(raised.map((score) => scored(score))).score;
          expect(after).toBeGreaterThanOrEqual(before);
        },
      ),
    );
  });

  it('the scan score lies between the highest finding score and 100', () => {
    fc.assert(
      fc.property(SCORES, (scores) => {
        const risk = assessScan(scores.map((score) => scored(score)));
        const top = Math.max(0, ...scores);
        expect(risk.score).toBeGreaterThanOrEqual(top);
        expect(risk.score).toBeLessThanOrEqual(100);
        expect(Number.isInteger(risk.score)).toBe(true);
        expect(risk.factors.reduce((acc, factor) => acc + factor.points, 0)).toBe(risk.score);
      }),
    );
  });
});

// ---- ordering rules (issue 21: a confirmed, two-engine SQL injection scored 65, below 70s)

/** A finding's place and identifiers, and its severity; the sources vary in each rule. */
const PLACE_ARB = fc.record({
  severity: fc.constantFrom(...SEVERITIES),
  category: fc.constantFrom('open-port', 'vulnerability', 'sql-injection'),
  host: fc.constantFrom(null, '8.8.8.8', '10.0.0.5', 'app.example.com', '203.0.113.9'),
  port: fc.constantFrom(null, 80, 6379),
  protocol: fc.constantFrom(null, 'tcp', 'udp'),
  url: fc.constantFrom(null, 'https://shop.example.com/'),
  cve: fc.subarray(['CVE-2021-44228', 'CVE-2023-1']),
});
const UNCONFIRMED_ARB = fc.constantFrom<Confidence>('low', 'medium', 'high');
const SOURCES_ARB = fc.array(fc.tuple(ENGINES_ARB, UNCONFIRMED_ARB), {
  minLength: 1,
  maxLength: 4,
});

describe('risk ordering rules (properties)', () => {
  it('is monotonic in severity: a more severe source never lowers the score', () => {
    fc.assert(
      fc.property(
        PLACE_ARB,
        SOURCES_ARB,
        fc.nat(),
        fc.constantFrom(...SEVERITIES),
        (place, sources, at, raised) => {
          const index = at % sources.length;
          const before = assessFinding(finding({ ...place, sources })).score;
          const more = sources.map(([engine, confidence], i) =>
            i === index ? ([engine, confidence, raised] as const) : ([engine, confidence] as const),
          );
          const after = assessFinding(finding({ ...place, sources: more })).score;
          if (SEVERITIES.indexOf(raised) <= SEVERITIES.indexOf(place.severity)) {
            expect(after).toBeGreaterThanOrEqual(before);
          } else {
            expect(after).toBe(before);
          }
        },
      ),
    );
  });

  it('is monotonic in confirmation: a source confirming it never lowers the score', () => {
    fc.assert(
      fc.property(PLACE_ARB, SOURCES_ARB, fc.nat(), (place, sources, at) => {
        const index = at % sources.length;
        const confirmed = sources.map(([engine, confidence], i) =>
          i === index ? ([engine, 'confirmed'] as const) : ([engine, confidence] as const),
        );
        const before = assessFinding(finding({ ...place, sources })).score;
        const after = assessFinding(finding({ ...place, sources: confirmed })).score;
        expect(after).toBeGreaterThanOrEqual(before);
        if (place.severity !== 'info' && before < 100) {
          expect(after).toBeGreaterThan(before);
        }
      }),
    );
  });

  it('is monotonic in corroboration: another engine reporting it never lowers the score', () => {
    fc.assert(
      fc.property(PLACE_ARB, SOURCES_ARB, ENGINES_ARB, UNCONFIRMED_ARB, (place, sources, e, c) => {
        const before = assessFinding(finding({ ...place, sources })).score;
        const after = assessFinding(finding({ ...place, sources: [...sources, [e, c]] })).score;
        expect(after).toBeGreaterThanOrEqual(before);
        const engines = new Set(sources.map(([engine]) => engine));
        if (place.severity !== 'info' && !engines.has(e) && engines.size < 3 && before < 100) {
          expect(after).toBeGreaterThan(before);
        }
      }),
    );
  });

  it('a merged finding never scores below any of its sources alone', () => {
    const SEVERE_SOURCES = fc.array(
      fc.tuple(ENGINES_ARB, CONFIDENCE_ARB, fc.constantFrom(...SEVERITIES)),
      { minLength: 2, maxLength: 4 },
    );
    fc.assert(
      fc.property(PLACE_ARB, SEVERE_SOURCES, (place, sources) => {
        const whole = assessFinding(
          finding({ ...place, severity: sources[0]?.[2] ?? 'info', sources }),
        ).score;
        for (const source of sources) {
          const alone = assessFinding(
            finding({ ...place, severity: source[2], sources: [source] }),
          ).score;
          expect(whole).toBeGreaterThanOrEqual(alone);
        }
      }),
    );
  });

  it('the same weakness confirmed, or from two engines, never scores below one unconfirmed engine', () => {
    const weaknesses = [...WEAKNESS_SEVERITIES.keys()];
    const rated = fc.constantFrom<Severity>('critical', 'high', 'medium', 'low');
    fc.assert(
      fc.property(
        PLACE_ARB,
        fc.constantFrom(...weaknesses),
        rated,
        rated,
        ENGINES_ARB,
        UNCONFIRMED_ARB,
        fc.tuple(ENGINES_ARB, CONFIDENCE_ARB),
        (place, weakness, toolA, toolB, engine, confidence, [other, otherConfidence]) => {
          const base = finding({ ...place, category: weakness, cve: [] });
          // Each engine's own rating, then the table (as finalizeFindings does).
          const single = normalizeFinding({ ...base, severity: toolA }, { confirmed: false });
          const confirmed = normalizeFinding({ ...base, severity: toolB }, { confirmed: true });
          const lone = assessFinding(
            finding({
              ...place,
              cve: [],
              category: weakness,
              severity: single.severity,
              sources: [[engine, confidence]],
            }),
          ).score;
          const exploited = assessFinding(
            finding({
              ...place,
              cve: [],
              category: weakness,
              severity: confirmed.severity,
              sources: [[other, 'confirmed']],
            }),
          ).score;
          const corroborated = assessFinding(
            finding({
              ...place,
              cve: [],
              category: weakness,
              severity: single.severity,
              sources: [
                [engine, confidence],
                [other, otherConfidence],
              ],
            }),
          ).score;
          expect(exploited).toBeGreaterThanOrEqual(lone);
          expect(corroborated).toBeGreaterThanOrEqual(lone);
        },
      ),
    );
  });

  it('the issue’s case: sqlmap (exploited) and wapiti on one SQL injection outrank a lone critical', () => {
    const at = { host: '10.0.0.5', url: 'http://10.0.0.5/vulnerabilities/sqli/' };
    const merged = assessFinding(
      finding({
        ...at,
        severity: 'critical',
        category: 'sql-injection',
        sources: [
          ['sqlmap', 'confirmed', 'critical'],
          ['wapiti', 'high', 'critical'],
        ],
      }),
    );
    const lone = assessFinding(
      finding({ ...at, severity: 'critical', sources: [['wapiti', 'high']] }),
    );
    expect(merged.score).toBe(70 + 10 + 0 + 5);
    expect(lone.score).toBe(70);
    // Were the merged finding shown at sqlmap's old `high`, wapiti's rating still counts.
    const shownHigh = assessFinding(
      finding({
        ...at,
        severity: 'high',
        category: 'sql-injection',
        sources: [
          ['sqlmap', 'confirmed', 'high'],
          ['wapiti', 'high', 'critical'],
        ],
      }),
    );
    expect(shownHigh.factors[0]).toEqual({
      factor: 'severity',
      points: 70,
      detail: 'critical, as wapiti rated it',
    });
    expect(shownHigh.score).toBeGreaterThan(lone.score);
  });
});
