/**
 * Correlation on real scanner output: fixtures of several engines parsed with each engine's own
 * `command.parse`, fingerprinted with `finalizeFindings` and wrapped as a child scan's source
 * findings (test/support/sentinel-findings.ts). The fixtures come from scans of different
 * targets, so where two engines must be seen on one target, one engine's findings are moved onto
 * the other's host (`rehome`), "as if both had scanned the same host".
 */
import { describe, expect, it } from 'vitest';
import { normalizeHost } from '../../src/domain/findings/fingerprint.js';
import { correlate, uncorrelated } from '../../src/engines/sentinel/correlate.js';
import { scoreFindings } from '../../src/engines/sentinel/risk.js';
import type { CorrelatedFinding, SourceFinding } from '../../src/engines/sentinel/types.js';
import { fixtureSources } from '../support/sentinel-findings.js';

const ZAP_SITE = 'https://vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca';

// nmap: one host (172.28.1.3), 16 open ports, memcached CVEs from vulners, an OS guess.
const nmap = fixtureSources('nmap', 'services-os-scripts-all-ports.xml', '172.28.1.3');
// nuclei 2: detections on nuclei-example.com (443, 22, 3306) and on 127.0.0.1. The
// nuclei-example.com findings are moved onto nmap's host, as if both had scanned the same host.
const nuclei = fixtureSources(
  'nuclei',
  'legacy-v2-templateID-matched.jsonl',
  'https://nuclei-example.com/',
  {
    from: 'nuclei-example.com',
    to: '172.28.1.3',
  },
);
// ZAP 2.14 baseline of one site, moved onto juice-shop.herokuapp.com, as if ZAP had scanned the
// site wapiti scanned (same scheme and port: https, 443).
const zap = fixtureSources('zap', 'traditional-json-2.14-baseline.json', `${ZAP_SITE}/`, {
  from: ZAP_SITE,
  to: 'https://juice-shop.herokuapp.com',
});
// wapiti 3.0.4 XML of juice-shop.herokuapp.com: CSP, X-XSS-Protection and HSTS not set on `/`.
const wapitiHeaders = fixtureSources(
  'wapiti',
  'xml-3.0.4-juiceshop.xml',
  'https://juice-shop.herokuapp.com/',
);
// wapiti 3.2 of testaspnet.vulnweb.com: SQL injection on `id` (two pages), XSS on `NewsAd`, CSRF.
const wapiti = fixtureSources(
  'wapiti',
  'json-3.2.10-sqli-xss-csrf.json',
  'http://testaspnet.vulnweb.com/',
);
// sqlmap's log names no URL (the worker's parse context does): read as if sqlmap had been pointed
// at the page wapiti found injectable. It reports `id` and `name` injectable.
const sqlmap = fixtureSources(
  'sqlmap',
  'log-two-params.txt',
  'http://testaspnet.vulnweb.com/ReadNews.aspx?id=1&name=x',
);
// trivy with a URL target (a repository) on that same page: two of its findings carry CWE-89 and
// the URL's only query parameter is `id`, the very key of wapiti's and sqlmap's SQL injection.
const trivy = fixtureSources(
  'trivy',
  'image-schema2-alpine-node-secrets.json',
  'http://testaspnet.vulnweb.com/ReadNews.aspx?id=1',
);
// nuclei 3 on dvwa_dvwa_1:80 (11 missing security headers on `/`), and nikto 2.1.5 of
// localhost:8070 moved onto it, as if both had scanned the same host.
const nucleiDvwa = fixtureSources(
  'nuclei',
  'dvwa-mixed-severities-with-req-resp.jsonl',
  'http://dvwa.example/',
);
const nikto = fixtureSources('nikto', 'localhost-2.1.5-flat.xml', 'http://localhost:8070/', {
  from: 'http://localhost:8070',
  to: 'http://dvwa_dvwa_1',
});
// theHarvester and sublist3r on the same domain (no moving needed): coinbase.com.
const harvester = fixtureSources('harvester', 'all-keys-emails-asns-ips.json', 'coinbase.com');
const sublist3r = fixtureSources('sublist3r', 'coinbase-234-mixed-case.txt', 'coinbase.com');

const ALL: readonly SourceFinding[] = [
  ...nmap,
  ...nuclei,
  ...zap,
  ...wapitiHeaders,
  ...wapiti,
  ...sqlmap,
  ...trivy,
  ...nucleiDvwa,
  ...nikto,
  ...harvester,
  ...sublist3r,
];

const merged = (result: readonly CorrelatedFinding[]) => result.filter((f) => f.sources.length > 1);
/** `engine:ruleId` of each source, in source order. */
const sourcesOf = (finding: CorrelatedFinding | undefined) =>
  finding?.sources.map((s) => `${s.engine}:${s.finding.ruleId}`) ?? [];

describe('correlation of real fixtures: nmap and nuclei (service)', () => {
  const result = correlate([...nmap, ...nuclei]);

  it('merges nuclei detections into the nmap open port they ran on, nothing else', () => {
    expect(nmap).toHaveLength(23);
    expect(nuclei).toHaveLength(18);
    expect(result).toHaveLength(41 - 8 - 1);
    const groups = merged(result);
    expect(groups.map((f) => `${f.location.port} ${f.correlatedBy.join(',')}`).sort()).toEqual([
      '3306 service',
      '443 service',
    ]);
    const https = groups.find((f) => f.location.port === 443);
    const mysql = groups.find((f) => f.location.port === 3306);
    expect(sourcesOf(https)[0]).toBe('nmap:open-port');
    expect(sourcesOf(https).slice(1).sort()).toEqual([
      'nuclei:tech-detect:bootstrap',
      'nuclei:tech-detect:font-awesome',
      'nuclei:tech-detect:google-font-api',
      'nuclei:tech-detect:nginx',
      'nuclei:tech-detect:owl-carousel',
      'nuclei:tech-detect:youtube',
      'nuclei:waf-detect:ats',
      'nuclei:waf-detect:nginxgeneric',
    ]);
    expect(sourcesOf(mysql)).toEqual(['nmap:open-port', 'nuclei:mysql-native-password-bruteforce']);
  });

  it('keeps apart what is no service detection or not on that host', () => {
    const alone = result.filter((f) => f.sources.length === 1).map((f) => f.ruleId);
    // A low-severity version finding, a panel, a version banner: findings, not the service.
    expect(alone).toEqual(
      expect.arrayContaining(['openssh5.3-detect', 'phpmyadmin-panel', 'nginx-version']),
    );
    // The WebGoat/WebWolf detections stayed on 127.0.0.1, where nmap found nothing.
    expect(
      result.filter((f) => f.location.host === '127.0.0.1').every((f) => f.sources.length === 1),
    ).toBe(true);
  });
});

describe('correlation of real fixtures: CVE ids', () => {
  it('finds no CVE id shared by nmap, nuclei and trivy fixtures, so nothing merges by CVE', () => {
    const cves = (findings: readonly SourceFinding[]) =>
      new Set(findings.flatMap((f) => f.identifiers.cve));
    const [fromNmap, fromNuclei, fromTrivy] = [
      cves(nmap),
      cves([...nuclei, ...nucleiDvwa]),
      cves(trivy),
    ];
    expect(fromNmap.size).toBe(5);
    expect(fromTrivy.size).toBeGreaterThan(100);
    expect([...fromNmap].filter((id) => fromTrivy.has(id) || fromNuclei.has(id))).toEqual([]);
    expect([...fromNuclei].filter((id) => fromTrivy.has(id))).toEqual([]);
    expect(correlate(ALL).some((f) => f.correlatedBy.includes('cve'))).toBe(false);
  });
});

describe('correlation of real fixtures: web findings (weakness)', () => {
  it('merges the missing HSTS header of ZAP and wapiti on `/`, not on other pages or headers', () => {
    const result = correlate([...zap, ...wapitiHeaders]);
    expect(zap).toHaveLength(34);
    expect(wapitiHeaders).toHaveLength(3);
    expect(result).toHaveLength(34 + 3 - 1);
    const [hsts, ...none] = merged(result);
    expect(none).toEqual([]);
    expect(hsts?.correlatedBy).toEqual(['weakness']);
    expect(hsts?.location.url).toBe('https://juice-shop.herokuapp.com/');
    // Same confidence (high) and severity (low): ZAP comes before wapiti in engine order.
    expect(sourcesOf(hsts)).toEqual([
      'zap:10035-1',
      'wapiti:http-secure-headers:strict-transport-security-is-not-set',
    ]);
    // ZAP's HSTS alerts on /robots.txt and /sitemap.xml, and wapiti's CSP and X-XSS-Protection
    // (ZAP reported a CSP wildcard, not a missing CSP) stay alone.
    expect(result.filter((f) => f.ruleId === '10035-1' && f.sources.length === 1)).toHaveLength(2);
    expect(
      result
        .filter((f) => f.engine === 'wapiti')
        .map((f) => f.ruleId)
        .sort(),
    ).toEqual([
      'content-security-policy-configuration:csp-is-not-set',
      'http-secure-headers:x-xss-protection-is-not-set',
    ]);
  });

  it('merges the SQL injection of sqlmap and wapiti on /ReadNews.aspx `id`, sqlmap primary', () => {
    const result = correlate([...wapiti, ...sqlmap]);
    expect(wapiti).toHaveLength(13);
    expect(sqlmap).toHaveLength(2);
    expect(result).toHaveLength(13 + 2 - 1);
    const [sqli, ...none] = merged(result);
    expect(none).toEqual([]);
    expect(sqli?.correlatedBy).toEqual(['weakness']);
    // One severity per weakness (weakness-severity.ts): sqlmap's `high` is critical, as wapiti's.
    expect(sqlsOf(sqli)).toEqual([
      'sqlmap confirmed critical http://testaspnet.vulnweb.com/ReadNews.aspx?id=1&name=x',
      'wapiti high critical http://testaspnet.vulnweb.com/ReadNews.aspx',
    ]);
    expect(sqli?.severity).toBe('critical');
    expect(sqli?.category).toBe('sql-injection');
    // Confirmed and seen by two engines, it ranks above every single-engine finding of its
    // severity (the issue: it scored 65, below single-engine findings at 70).
    const scored = scoreFindings(result);
    const sqliScored = scored.find((f) => f.sources.length > 1);
    const singles = scored.filter((f) => f.sources.length === 1 && f.severity === 'critical');
    expect(singles.length).toBeGreaterThan(0);
    for (const single of singles) {
      expect(sqliScored?.risk.score).toBeGreaterThan(single.risk.score);
    }
    // wapiti's injection on /Comments.aspx, in the one category vocabulary, with its transport.
    const comments = result.find(
      (f) => f.engine === 'wapiti' && f.ruleId === 'sql-injection:GET:id' && f.sources.length === 1,
    );
    expect(comments).toMatchObject({
      category: 'sql-injection',
      severity: 'critical',
      location: { protocol: 'tcp' },
    });
    // wapiti's `id` on /Comments.aspx, sqlmap's `name` and wapiti's XSS on `NewsAd` stay alone.
    const alone = result.filter((f) => f.sources.length === 1);
    expect(alone.filter((f) => f.ruleId === 'sql-injection:GET:id')).toHaveLength(1);
    expect(alone.find((f) => f.ruleId === 'sql-injection:GET:name')?.engine).toBe('sqlmap');
    expect(alone.find((f) => f.ruleId === 'cross-site-scripting:GET:NewsAd')?.engine).toBe(
      'wapiti',
    );
  });

  it('never merges trivy, although two of its findings have that very SQL injection key', () => {
    const result = correlate([...wapiti, ...sqlmap, ...trivy]);
    expect(result).toHaveLength(13 + 2 + trivy.length - 1);
    expect(
      result
        .filter((f) => f.sources.some((s) => s.engine === 'trivy'))
        .every((f) => f.sources.length === 1),
    ).toBe(true);
    // The control: the same two findings under another engine's name do join the injection.
    const relabelled = trivy.map((f) => ({ ...f, engine: 'nikto' as const, scanId: 'relabelled' }));
    const [control] = merged(correlate([...wapiti, ...relabelled]));
    expect(control?.sources.map((s) => s.engine)).toEqual(['wapiti', 'nikto', 'nikto']);
  });

  it('merges the missing X-Frame-Options of nuclei and nikto on `/`, and nothing else', () => {
    const result = correlate([...nucleiDvwa, ...nikto]);
    expect(nucleiDvwa).toHaveLength(27);
    expect(nikto).toHaveLength(13);
    expect(result).toHaveLength(27 + 13 - 1);
    const [xfo, ...none] = merged(result);
    expect(none).toEqual([]);
    expect(sourcesOf(xfo)).toEqual([
      'nuclei:http-missing-security-headers:x-frame-options',
      'nikto:999976',
    ]);
    expect(xfo?.sources.map((s) => s.confidence)).toEqual(['high', 'medium']);
  });
});

/** `engine confidence severity url` of each source. */
function sqlsOf(finding: CorrelatedFinding | undefined): string[] {
  return (
    finding?.sources.map(
      (s) => `${s.engine} ${s.confidence} ${s.finding.severity} ${s.finding.location.url}`,
    ) ?? []
  );
}

describe('correlation of real fixtures: host names', () => {
  it('merges every coinbase.com name both theHarvester and sublist3r found', () => {
    const names = (findings: readonly SourceFinding[], category: string) =>
      new Set(
        findings
          .filter((f) => f.category === category)
          .map((f) => normalizeHost(f.location.host ?? '')),
      );
    const fromHarvester = names(harvester, 'host');
    const fromSublist3r = names(sublist3r, 'subdomain');
    const both = [...fromSublist3r].filter((name) => fromHarvester.has(name));
    expect([fromHarvester.size, fromSublist3r.size, both.length]).toEqual([236, 111, 107]);
    const result = correlate([...harvester, ...sublist3r]);
    const groups = merged(result);
    expect(groups).toHaveLength(107);
    expect(groups.map((f) => f.location.host).sort()).toEqual(both.sort());
    for (const group of groups) {
      expect(group.sources.map((s) => s.engine)).toEqual(['harvester', 'sublist3r']);
      expect(group.correlatedBy).toEqual(['hostname']);
    }
    expect(result).toHaveLength(harvester.length + sublist3r.length - 107);
  });
});

/** A fixed pseudo-random permutation (a linear congruential generator and Fisher–Yates). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

function hostOf(finding: SourceFinding): string | null {
  const { host, url } = finding.location;
  if (host !== null && host.trim() !== '') {
    return normalizeHost(host);
  }
  return url === null ? null : normalizeHost(new URL(url).hostname);
}

describe('correlation of real fixtures: all together', () => {
  const result = correlate(ALL);

  it('makes exactly the merges of each pair above (they are on different hosts)', () => {
    expect(ALL).toHaveLength(829);
    expect(merged(result)).toHaveLength(2 + 1 + 1 + 1 + 107);
    expect(result).toHaveLength(829 - (8 + 1) - 1 - 1 - 1 - 107);
  });

  it('is idempotent, independent of the input order, and loses no source', () => {
    expect(correlate(result)).toEqual(result);
    expect(correlate([...ALL].reverse())).toEqual(result);
    for (const seed of [1, 42, 2024]) {
      expect(correlate(shuffled(ALL, seed))).toEqual(result);
    }
    const ids = (findings: readonly SourceFinding[]) =>
      findings.map((f) => `${f.scanId}/${f.findingId}`).sort();
    expect(ids(result.flatMap((f) => f.sources.map((s) => s.finding)))).toEqual(ids(ALL));
  });

  it('never merges findings on different hosts', () => {
    for (const group of merged(result)) {
      expect(new Set(group.sources.map((s) => hostOf(s.finding))).size).toBe(1);
      expect(new Set(group.sources.map((s) => s.engine)).size).toBeGreaterThan(1);
    }
  });

  it('keeps every source apart when correlation is off', () => {
    const apart = uncorrelated(shuffled(ALL, 7));
    expect(apart).toHaveLength(829);
    expect(apart).toEqual(uncorrelated(ALL));
    expect(apart.every((f) => f.sources.length === 1 && f.correlatedBy.length === 0)).toBe(true);
  });
});
