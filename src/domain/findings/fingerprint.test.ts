import { describe, expect, it } from 'vitest';
import type { DraftFinding, FindingLocation } from './finding.js';
import {
  FINGERPRINT_VERSION,
  finalizeFindings,
  fingerprintFinding,
  normalizeHost,
  normalizeLocation,
  normalizeUrl,
} from './fingerprint.js';

const NO_LOCATION: FindingLocation = { host: null, port: null, protocol: null, url: null };

function draft(overrides: Partial<DraftFinding> = {}): DraftFinding {
  return {
    ruleId: 'open-port',
    title: 'Open port 443/tcp',
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    location: { host: 'example.com', port: 443, protocol: 'tcp', url: null },
    identifiers: { cve: [], cwe: [] },
    description: null,
    evidence: null,
    remediation: null,
    references: [],
    raw: { port: 443 },
    ...overrides,
  };
}

function at(location: Partial<FindingLocation>, overrides: Partial<DraftFinding> = {}) {
  return draft({ ...overrides, location: { ...NO_LOCATION, ...location } });
}

describe('fingerprintFinding', () => {
  it('is 64 lower-case hex characters', () => {
    expect(fingerprintFinding('nmap', draft())).toMatch(/^[0-9a-f]{64}$/);
  });

  // Pinned values: stored fingerprints must survive deployments, so an accidental change of the
  // encoding or normalization has to fail here (then bump FINGERPRINT_VERSION on purpose).
  it('hashes the documented JSON array (known answers)', () => {
    expect(FINGERPRINT_VERSION).toBe('rampart-fingerprint/v1');
    expect(fingerprintFinding('nmap', draft())).toBe(
      '66ff0bacdb6b65cb88a78fcd802be0123feee1b97caef944e01c97306aabe721',
    );
    expect(
      fingerprintFinding(
        'zap',
        at({ url: 'HTTPS://Example.com:443/login?b=2&a=1#form' }, { ruleId: '10038' }),
      ),
    ).toBe('ba92103a1eda07e751e97dbb55182cef80767c511b73bd807aa08457c87ea731');
  });

  it('is the same for the same issue on a rescan, whatever the wording or severity', () => {
    const first = draft();
    const rescan = draft({
      title: 'Port 443 open',
      severity: 'low',
      toolSeverity: '2',
      description: 'https',
      evidence: 'syn-ack',
      references: ['https://nmap.org'],
      identifiers: { cve: ['CVE-2024-0001'], cwe: [] },
      raw: { other: true },
    });
    expect(fingerprintFinding('nmap', rescan)).toBe(fingerprintFinding('nmap', first));
  });

  it('ignores case and trailing dots of the host, and case of the protocol', () => {
    const base = fingerprintFinding('nmap', draft());
    expect(
      fingerprintFinding(
        'nmap',
        at({ host: ' EXAMPLE.Com. ', port: 443, protocol: 'TCP' }, { ruleId: 'open-port' }),
      ),
    ).toBe(base);
  });

  it('treats spellings of the same IPv6 address alike', () => {
    const a = fingerprintFinding(
      'nmap',
      at({ host: '2001:DB8:0:0::1', port: 22, protocol: 'tcp' }),
    );
    const b = fingerprintFinding('nmap', at({ host: '[2001:db8::1]', port: 22, protocol: 'tcp' }));
    expect(a).toBe(b);
  });

  it('differs for another port, host, protocol, rule or engine', () => {
    const base = fingerprintFinding('nmap', draft());
    const variants = [
      fingerprintFinding('nmap', at({ host: 'example.com', port: 8443, protocol: 'tcp' })),
      fingerprintFinding('nmap', at({ host: 'www.example.com', port: 443, protocol: 'tcp' })),
      fingerprintFinding('nmap', at({ host: 'example.com', port: 443, protocol: 'udp' })),
      fingerprintFinding('nmap', draft({ ruleId: 'service-detected' })),
      fingerprintFinding('nuclei', draft()),
    ];
    for (const variant of variants) {
      expect(variant).not.toBe(base);
    }
    expect(new Set(variants).size).toBe(variants.length);
  });

  it('treats equivalent spellings of a URL alike', () => {
    const base = fingerprintFinding('zap', at({ url: 'https://example.com/login?a=1&b=2' }));
    const same = [
      'HTTPS://EXAMPLE.COM/login?a=1&b=2',
      'https://example.com:443/login?a=1&b=2',
      'https://example.com/login?b=2&a=1',
      'https://example.com/login?a=1&b=2#section',
      'https://user:secret@example.com/login?a=1&b=2',
      'https://example.com./login?a=1&b=2',
      'https://example.com/x/../login?a=1&b=2',
      '  https://example.com/login?a=1&b=2  ',
    ];
    for (const url of same) {
      expect(fingerprintFinding('zap', at({ url })), url).toBe(base);
    }
  });

  it('tells different URLs apart', () => {
    const base = fingerprintFinding('zap', at({ url: 'https://example.com/login?a=1' }));
    const different = [
      'http://example.com/login?a=1',
      'https://example.com:8443/login?a=1',
      'https://example.com/Login?a=1',
      'https://example.com/login/?a=1',
      'https://example.com/login?a=2',
      'https://example.com/login?A=1',
      'https://example.com/login',
    ];
    for (const url of different) {
      expect(fingerprintFinding('zap', at({ url })), url).not.toBe(base);
    }
  });

  it('cannot be made to collide by moving text between parts', () => {
    const a = fingerprintFinding('a|b', draft({ ruleId: 'c' }));
    const b = fingerprintFinding('a', draft({ ruleId: 'b|c' }));
    expect(a).not.toBe(b);
    const nullHost = fingerprintFinding('nmap', at({ host: null, port: 1 }));
    const textHost = fingerprintFinding('nmap', at({ host: 'null', port: 1 }));
    expect(nullHost).not.toBe(textHost);
    const portAsHost = fingerprintFinding('nmap', at({ host: '443', port: null }));
    const portAsPort = fingerprintFinding('nmap', at({ host: null, port: 443 }));
    expect(portAsHost).not.toBe(portAsPort);
  });

  it('treats empty strings in the location as absent', () => {
    expect(fingerprintFinding('nmap', at({ host: '', protocol: ' ', url: '' }))).toBe(
      fingerprintFinding('nmap', at({})),
    );
  });
});

describe('normalizeHost', () => {
  it.each([
    [' WWW.Example.COM. ', 'www.example.com'],
    ['[2001:DB8:0::1]', '2001:db8::1'],
    ['127.1', '127.0.0.1'],
    ['bücher.de', 'xn--bcher-kva.de'],
    ['_dmarc.Example.com', '_dmarc.example.com'],
    ['FE80::1%ETH0', 'fe80::1%eth0'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeHost(input)).toBe(expected);
  });
});

describe('normalizeUrl', () => {
  it.each([
    ['HTTPS://Example.com:443/a?b=2&a=1#top', 'https://example.com/a?a=1&b=2'],
    ['http://a.example:80', 'http://a.example/'],
    ['http://a.example:8080/P', 'http://a.example:8080/P'],
    ['http://a.example/?q=a%20b&flag', 'http://a.example/?flag=&q=a+b'],
    ['http://a.example/?b=2&a=2&a=1', 'http://a.example/?a=1&a=2&b=2'],
    ['http://a.example/?', 'http://a.example/'],
    ['not a url', 'not a url'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });
});

describe('normalizeLocation', () => {
  it('normalizes each part and keeps the port', () => {
    expect(
      normalizeLocation({ host: 'Example.COM', port: 443, protocol: 'TCP', url: 'HTTP://X.io#a' }),
    ).toEqual({ host: 'example.com', port: 443, protocol: 'tcp', url: 'http://x.io/' });
  });
});

describe('finalizeFindings', () => {
  it('adds fingerprints and keeps order and content', () => {
    const drafts = [draft(), at({ host: 'example.com', port: 22, protocol: 'tcp' })];
    const result = finalizeFindings('nmap', drafts);
    expect(result).toHaveLength(2);
    expect(result[0]).toEqual({ ...drafts[0], fingerprint: fingerprintFinding('nmap', draft()) });
    expect(result[1]?.location.port).toBe(22);
    expect(result[0]?.fingerprint).not.toBe(result[1]?.fingerprint);
  });

  it('returns an empty list for no drafts', () => {
    expect(finalizeFindings('nmap', [])).toEqual([]);
  });

  it('merges duplicates: first kept, unions, highest severity with its tool severity', () => {
    const first = draft({
      title: 'first title',
      severity: 'medium',
      toolSeverity: '5.0',
      identifiers: { cve: ['CVE-2024-0001'], cwe: ['CWE-79'] },
      references: ['https://a.example', 'https://b.example'],
      description: null,
      evidence: 'first evidence',
      raw: { n: 1 },
    });
    const other = at({ host: 'example.com', port: 80, protocol: 'tcp' });
    const duplicate = draft({
      title: 'second title',
      severity: 'high',
      toolSeverity: '7.5',
      location: { host: 'EXAMPLE.com', port: 443, protocol: 'TCP', url: null },
      identifiers: { cve: ['CVE-2024-0002', 'CVE-2024-0001'], cwe: ['CWE-89'] },
      references: ['https://b.example', 'https://c.example'],
      description: 'from the duplicate',
      evidence: 'second evidence',
      remediation: 'patch',
      raw: { n: 2 },
    });
    const lowerDuplicate = draft({ severity: 'low', toolSeverity: '2.0' });

    const result = finalizeFindings('nmap', [first, other, duplicate, lowerDuplicate]);

    expect(result).toHaveLength(2);
    const [merged, second] = result;
    expect(second?.location.port).toBe(80);
    expect(merged).toMatchObject({
      title: 'first title',
      severity: 'high',
      toolSeverity: '7.5',
      identifiers: { cve: ['CVE-2024-0001', 'CVE-2024-0002'], cwe: ['CWE-79', 'CWE-89'] },
      references: ['https://a.example', 'https://b.example', 'https://c.example'],
      description: 'from the duplicate',
      evidence: 'first evidence',
      remediation: 'patch',
      location: first.location,
      raw: { n: 1 },
      fingerprint: fingerprintFinding('nmap', first),
    });
  });

  it('keeps the first tool severity when duplicates tie on severity', () => {
    const result = finalizeFindings('nmap', [
      draft({ severity: 'high', toolSeverity: 'HIGH' }),
      draft({ severity: 'high', toolSeverity: '8.1' }),
    ]);
    expect(result).toHaveLength(1);
    expect(result[0]?.toolSeverity).toBe('HIGH');
  });

  it('does not modify its input', () => {
    const first = draft({ references: ['https://a.example'] });
    const duplicate = draft({ references: ['https://b.example'], severity: 'critical' });
    const snapshot = structuredClone([first, duplicate]);
    finalizeFindings('nmap', [first, duplicate]);
    expect([first, duplicate]).toEqual(snapshot);
    expect(first).not.toHaveProperty('fingerprint');
  });
});
