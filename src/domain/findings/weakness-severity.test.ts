import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DraftFinding, SEVERITIES, type Severity } from './finding.js';
import { finalizeFindings, fingerprintFinding } from './fingerprint.js';
import { compareSeverity } from './severity-order.js';
import {
  CATEGORY_ALIASES,
  normalizedLocation,
  normalizeFinding,
  WEAKNESS_SEVERITIES,
  weaknessOf,
} from './weakness-severity.js';

function draft(overrides: Partial<DraftFinding> = {}): DraftFinding {
  return {
    ruleId: 'rule',
    title: 'A finding',
    severity: 'medium',
    toolSeverity: '2',
    category: 'vulnerability',
    location: { host: 'app.example', port: 80, protocol: null, url: 'http://app.example/s' },
    identifiers: { cve: [], cwe: [] },
    description: null,
    evidence: null,
    remediation: null,
    references: [],
    raw: null,
    ...overrides,
  };
}

const UNCONFIRMED = { confirmed: false } as const;
const CONFIRMED = { confirmed: true } as const;

describe('weaknessOf', () => {
  it('classifies by CWE first, over any CWE family member', () => {
    expect(
      weaknessOf({ category: 'vulnerability', identifiers: { cve: [], cwe: ['CWE-89'] } }),
    ).toBe('sql-injection');
    expect(
      weaknessOf({ category: 'vulnerability', identifiers: { cve: [], cwe: ['CWE-943'] } }),
    ).toBe('sql-injection');
    expect(weaknessOf({ category: 'exposure', identifiers: { cve: [], cwe: ['CWE-87'] } })).toBe(
      'xss',
    );
  });

  it('skips broad CWEs and CWEs without a row, then falls back to the category', () => {
    expect(
      weaknessOf({
        category: 'vulnerability',
        identifiers: { cve: [], cwe: ['CWE-200', 'CWE-79'] },
      }),
    ).toBe('xss');
    expect(
      weaknessOf({ category: 'vulnerability', identifiers: { cve: [], cwe: ['CWE-530'] } }),
    ).toBe(null);
    expect(weaknessOf({ category: 'sql-injection', identifiers: { cve: [], cwe: [] } })).toBe(
      'sql-injection',
    );
    expect(weaknessOf({ category: 'misconfiguration', identifiers: { cve: [], cwe: [] } })).toBe(
      null,
    );
  });
});

describe('normalizeFinding: one severity and category per weakness', () => {
  it('gives sqlmap’s and wapiti’s SQL injection the same severity and category', () => {
    // As the engines map them: sqlmap `high`, category sql-injection, no protocol, confirmed;
    // wapiti level 4 (critical), category vulnerability, tcp, not confirmed.
    const sqlmap = normalizeFinding(
      draft({
        severity: 'high',
        toolSeverity: null,
        category: 'sql-injection',
        identifiers: { cve: [], cwe: ['CWE-89'] },
      }),
      CONFIRMED,
    );
    const wapiti = normalizeFinding(
      draft({
        severity: 'critical',
        toolSeverity: '4',
        category: 'vulnerability',
        location: { host: 'app.example', port: 80, protocol: 'tcp', url: 'http://app.example/s' },
        identifiers: { cve: [], cwe: ['CWE-89'] },
      }),
      UNCONFIRMED,
    );
    for (const finding of [sqlmap, wapiti]) {
      expect(finding.severity).toBe('critical');
      expect(finding.category).toBe('sql-injection');
      expect(finding.location.protocol).toBe('tcp');
    }
    // The tools' own ratings stay.
    expect(sqlmap.toolSeverity).toBeNull();
    expect(wapiti.toolSeverity).toBe('4');
  });

  it('takes the confirmed or the unconfirmed column', () => {
    const ssrf = draft({ severity: 'high', identifiers: { cve: [], cwe: ['CWE-918'] } });
    expect(normalizeFinding(ssrf, CONFIRMED).severity).toBe('high');
    expect(normalizeFinding(ssrf, UNCONFIRMED).severity).toBe('medium');
    const csrf = draft({ severity: 'medium', identifiers: { cve: [], cwe: ['CWE-352'] } });
    expect(normalizeFinding(csrf, UNCONFIRMED)).toMatchObject({
      severity: 'low',
      category: 'csrf',
    });
  });

  it('leaves info findings and findings with a CVE id as the engine rated them', () => {
    const anomaly = draft({
      severity: 'info',
      category: 'anomaly',
      identifiers: { cve: [], cwe: ['CWE-89'] },
    });
    expect(normalizeFinding(anomaly, UNCONFIRMED)).toMatchObject({
      severity: 'info',
      category: 'anomaly',
    });
    const advisory = draft({
      severity: 'medium',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2024-1'], cwe: ['CWE-79'] },
    });
    expect(normalizeFinding(advisory, CONFIRMED)).toMatchObject({
      severity: 'medium',
      category: 'vulnerability',
    });
  });

  it('spells categories in the one vocabulary', () => {
    expect(CATEGORY_ALIASES.get('informational')).toBe('information');
    expect(normalizeFinding(draft({ category: 'informational' }), UNCONFIRMED).category).toBe(
      'information',
    );
    expect(normalizeFinding(draft({ category: 'default-credentials' }), UNCONFIRMED).category).toBe(
      'default-login',
    );
  });

  it('returns a finding that needs no change as it is, and never modifies its input', () => {
    const done = draft({ location: { host: 'h', port: 22, protocol: 'tcp', url: null } });
    expect(normalizeFinding(done, UNCONFIRMED)).toBe(done);
    const input = draft({ identifiers: { cve: [], cwe: ['CWE-79'] } });
    const copy = structuredClone(input);
    normalizeFinding(input, CONFIRMED);
    expect(input).toEqual(copy);
  });

  it('a confirmed weakness is never less severe than an unconfirmed one (the table)', () => {
    for (const [weakness, row] of WEAKNESS_SEVERITIES) {
      expect(compareSeverity(row.confirmed, row.unconfirmed), weakness).toBeLessThanOrEqual(0);
    }
  });

  it('gives the same weakness the same severity whatever the engine said (property)', () => {
    const weaknesses = [...WEAKNESS_SEVERITIES.keys()];
    const rated = fc.constantFrom<Severity>('critical', 'high', 'medium', 'low');
    fc.assert(
      fc.property(
        fc.constantFrom(...weaknesses),
        rated,
        rated,
        fc.boolean(),
        (w, a, b, confirmed) => {
          const one = normalizeFinding(draft({ severity: a, category: w }), { confirmed });
          const other = normalizeFinding(draft({ severity: b, category: w }), { confirmed });
          expect(one.severity).toBe(other.severity);
          expect(one.category).toBe(w);
        },
      ),
    );
  });
});

describe('normalizedLocation', () => {
  it('sets tcp where there is a URL or a port, keeps udp, and leaves other findings null', () => {
    expect(
      normalizedLocation({ host: 'h', port: null, protocol: null, url: 'http://h/' }).protocol,
    ).toBe('tcp');
    expect(normalizedLocation({ host: 'h', port: 53, protocol: 'udp', url: null }).protocol).toBe(
      'udp',
    );
    expect(normalizedLocation({ host: 'h', port: 443, protocol: '', url: null }).protocol).toBe(
      'tcp',
    );
    expect(
      normalizedLocation({ host: 'sub.h', port: null, protocol: null, url: null }).protocol,
    ).toBe(null);
  });
});

describe('finalizeFindings applies the table once, after the engine', () => {
  it('keeps the fingerprint of the draft as reported', () => {
    const reported = draft({ severity: 'high', category: 'sql-injection' });
    const [finding] = finalizeFindings('sqlmap', [reported], () => true);
    expect(finding?.fingerprint).toBe(fingerprintFinding('sqlmap', reported));
    expect(finding).toMatchObject({
      severity: 'critical',
      category: 'sql-injection',
      location: { protocol: 'tcp' },
    });
  });

  it('passes each draft to the confirmation predicate', () => {
    const ssrf = draft({ severity: 'high', identifiers: { cve: [], cwe: ['CWE-918'] } });
    const seen: DraftFinding[] = [];
    const [finding] = finalizeFindings('nuclei', [ssrf], (d) => {
      seen.push(d);
      return false;
    });
    expect(seen).toEqual([ssrf]);
    expect(finding?.severity).toBe('medium');
    expect(SEVERITIES).toContain(finding?.severity);
  });
});
