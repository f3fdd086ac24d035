import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SourceOverrides, sourceFinding } from '../../../test/support/sentinel-findings.js';
import { ENGINE_NAMES } from '../engine.js';
import { correlationKeys, createKeyCache, keyParts } from './correlation-keys.js';
import type { SourceFinding } from './types.js';

/** Keys as `rule part part …` (the host first), for readable expectations. */
function keysOf(finding: SourceFinding): string[] {
  return correlationKeys(finding).map(({ rule, key }) => {
    const parts = keyParts(key);
    expect(parts[0]).toBe(rule);
    return parts.join(' ');
  });
}

const web = (overrides: SourceOverrides) =>
  sourceFinding({
    ruleId: 'rule',
    category: 'vulnerability',
    ...overrides,
    location: {
      host: 'app.example.com',
      port: 443,
      protocol: null,
      url: null,
      ...overrides.location,
    },
  });

describe('correlationKeys: the host in every key', () => {
  it('gives a finding without any host no keys', () => {
    const finding = sourceFinding({
      identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
      location: { host: null, port: null, protocol: null, url: null },
    });
    expect(correlationKeys(finding)).toEqual([]);
    expect(correlationKeys({ ...finding, location: { ...finding.location, host: '  ' } })).toEqual(
      [],
    );
  });

  it('normalizes the host like the fingerprint (case, root dot, IPv4 and IPv6 spelling)', () => {
    const on = (host: string) =>
      keysOf(
        sourceFinding({
          category: 'vulnerability',
          identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
          location: { host },
        }),
      );
    expect(on('WWW.Example.COM.')).toEqual(['cve www.example.com 22 CVE-2021-44228']);
    expect(on('[2001:DB8:0::1]')).toEqual(['cve 2001:db8::1 22 CVE-2021-44228']);
    expect(on('127.1')).toEqual(['cve 127.0.0.1 22 CVE-2021-44228']);
  });

  it("takes the URL's host when the location has none", () => {
    const finding = sourceFinding({
      engine: 'nuclei',
      identifiers: { cve: ['CVE-2021-44228'], cwe: [] },
      location: { host: null, port: null, protocol: null, url: 'https://App.Example.com:8443/x' },
    });
    expect(keysOf(finding)).toEqual(['cve app.example.com 8443 CVE-2021-44228']);
  });

  it('never gives findings on different hosts a common key', () => {
    const on = (host: string) =>
      correlationKeys(
        web({
          identifiers: { cve: ['CVE-2021-44228'], cwe: ['CWE-79'] },
          location: { host, url: `https://${host}/search?q=1` },
        }),
      ).map((k) => k.key);
    const a = on('a.example.com');
    const b = on('b.example.com');
    expect(a).toHaveLength(2);
    expect(a.filter((key) => b.includes(key))).toEqual([]);
  });
});

describe('correlationKeys: the port', () => {
  const cve = { cve: ['cve-2021-44228 '], cwe: [] };
  it('is the location port, else the explicit URL port, else the scheme default, else -', () => {
    const at = (port: number | null, url: string | null) =>
      keysOf(web({ identifiers: cve, location: { port, url } }));
    expect(at(8080, 'https://app.example.com:9999/')).toEqual([
      'cve app.example.com 8080 CVE-2021-44228',
    ]);
    expect(at(null, 'https://app.example.com:9999/')).toEqual([
      'cve app.example.com 9999 CVE-2021-44228',
    ]);
    expect(at(null, 'https://app.example.com/')).toEqual([
      'cve app.example.com 443 CVE-2021-44228',
    ]);
    expect(at(null, 'http://app.example.com/')).toEqual(['cve app.example.com 80 CVE-2021-44228']);
    expect(at(null, null)).toEqual(['cve app.example.com - CVE-2021-44228']);
  });
});

describe('correlationKeys: cve', () => {
  it('gives one key per CVE id, upper case, each once', () => {
    const finding = sourceFinding({
      ruleId: 'CVE-2018-15473',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2018-15473', 'cve-2016-10009', 'CVE-2018-15473'], cwe: [] },
    });
    expect(keysOf(finding)).toEqual([
      'cve 203.0.113.10 22 CVE-2018-15473',
      'cve 203.0.113.10 22 CVE-2016-10009',
    ]);
  });
});

describe('correlationKeys: weakness', () => {
  const xss = (engine: SourceFinding['engine'], cwe: string, raw: unknown, url: string) =>
    keysOf(web({ engine, identifiers: { cve: [], cwe: [cwe] }, raw, location: { url } }));

  it('keys a web finding by path, weakness class and parameter', () => {
    expect(
      xss('zap', 'CWE-79', { instances: [{ param: 'q' }] }, 'https://app.example.com/s?q=&p=2'),
    ).toEqual(['weakness app.example.com 443 /s xss q']);
  });

  it('groups the CWE ids of one weakness into one class', () => {
    const url = 'https://app.example.com/s';
    expect(xss('wapiti', 'CWE-87', { parameter: 'q' }, url)).toEqual(
      xss('zap', 'CWE-79', { instances: [{ param: 'q' }] }, url),
    );
    expect(xss('nuclei', 'CWE-943', {}, `${url}?q=1'`)).toEqual(
      xss('sqlmap', 'CWE-89', { parameter: 'q' }, `${url}?q=1`),
    );
    expect(xss('sqlmap', 'CWE-89', { parameter: 'q' }, url)).toEqual([
      'weakness app.example.com 443 /s sql-injection q',
    ]);
    expect(xss('zap', 'CWE-530', {}, url)).toEqual(['weakness app.example.com 443 /s CWE-530 -']);
  });

  it('gives broad CWEs (CWE-200, CWE-16, pillars) no key', () => {
    for (const cwe of ['CWE-200', 'CWE-16', 'CWE-693', 'CWE-20', 'CWE-264', 'not a cwe']) {
      expect(xss('zap', cwe, {}, 'https://app.example.com/')).toEqual([]);
    }
  });

  it('needs an http(s) URL: no URL, a mailto: URL or an unparseable one give no key', () => {
    const finding = (url: string | null) =>
      keysOf(web({ engine: 'zap', identifiers: { cve: [], cwe: ['CWE-79'] }, location: { url } }));
    expect(finding(null)).toEqual([]);
    expect(finding('mailto:a@example.com')).toEqual([]);
    expect(finding('http://[bad')).toEqual([]);
  });

  it('normalizes the path as normalizeUrl does and drops query and fragment', () => {
    expect(
      xss('zap', 'CWE-79', {}, 'HTTPS://APP.example.com:443/a/./b/../%7euser/p a?x=1#top'),
    ).toEqual(['weakness app.example.com 443 /a/%7euser/p%20a xss -']);
  });

  describe('the parameter', () => {
    const url = 'https://app.example.com/item?id=1';
    it('is the one wapiti, sqlmap and ZAP name, and - when they name none', () => {
      expect(xss('wapiti', 'CWE-89', { parameter: 'name' }, url)).toEqual([
        'weakness app.example.com 443 /item sql-injection name',
      ]);
      expect(xss('sqlmap', 'CWE-89', { parameter: 'id' }, url)).toEqual([
        'weakness app.example.com 443 /item sql-injection id',
      ]);
      expect(xss('zap', 'CWE-89', { instances: [{ param: 'sort' }] }, url)).toEqual([
        'weakness app.example.com 443 /item sql-injection sort',
      ]);
      // An engine that reports parameters and names none means "about no parameter": the URL's
      // query does not stand in.
      expect(xss('zap', 'CWE-352', { instances: [{ param: '' }] }, url)).toEqual([
        'weakness app.example.com 443 /item csrf -',
      ]);
      expect(xss('wapiti', 'CWE-352', { parameter: '' }, url)).toEqual([
        'weakness app.example.com 443 /item csrf -',
      ]);
    });

    it("is the only query parameter of the matched URL for engines that name none (nuclei's matched-at)", () => {
      expect(
        xss(
          'nuclei',
          'CWE-89',
          { matchedAt: ["https://app.example.com/item?id=1'%20OR%201=1--"] },
          'https://app.example.com/item',
        ),
      ).toEqual(['weakness app.example.com 443 /item sql-injection id']);
      expect(xss('nikto', 'CWE-79', {}, 'https://app.example.com/item?id=<x>&id=2')).toEqual([
        'weakness app.example.com 443 /item xss id',
      ]);
      expect(xss('nikto', 'CWE-79', {}, 'https://app.example.com/item?id=1&page=2')).toEqual([
        'weakness app.example.com 443 /item xss -',
      ]);
      expect(xss('nuclei', 'CWE-79', { matchedAt: [] }, 'https://app.example.com/item')).toEqual([
        'weakness app.example.com 443 /item xss -',
      ]);
    });
  });

  describe('missing security headers', () => {
    const at = (engine: SourceFinding['engine'], overrides: SourceOverrides) =>
      keysOf(web({ engine, ...overrides, location: { url: 'https://app.example.com/' } }));
    const expected = ['weakness app.example.com 443 / missing-header:x-frame-options -'];

    it('keys the same missing header alike from ZAP, wapiti, nuclei and nikto, whatever CWE they attach', () => {
      expect(
        at('zap', {
          title: 'X-Frame-Options Header Not Set (X-Frame-Options)',
          identifiers: { cve: [], cwe: ['CWE-16'] },
          raw: {
            alert: 'X-Frame-Options Header Not Set',
            instances: [{ param: 'X-Frame-Options' }],
          },
        }),
      ).toEqual(expected);
      expect(
        at('zap', {
          identifiers: { cve: [], cwe: ['CWE-1021'] },
          raw: {
            alert: 'Missing Anti-clickjacking Header',
            instances: [{ param: 'x-frame-options' }],
          },
        }),
      ).toEqual(expected);
      expect(at('wapiti', { ruleId: 'http-secure-headers:x-frame-options-is-not-set' })).toEqual(
        expected,
      );
      expect(
        at('wapiti', { ruleId: 'clickjacking-protection:x-frame-options-is-not-set' }),
      ).toEqual(expected);
      expect(at('nuclei', { ruleId: 'http-missing-security-headers:x-frame-options' })).toEqual(
        expected,
      );
      expect(
        at('nikto', {
          category: 'security-header',
          title: 'The anti-clickjacking X-Frame-Options header is not present.',
        }),
      ).toEqual(expected);
    });

    it('knows the other names of a header', () => {
      const csp = ['weakness app.example.com 443 / missing-header:content-security-policy -'];
      expect(at('zap', { raw: { alert: 'Content Security Policy (CSP) Header Not Set' } })).toEqual(
        csp,
      );
      expect(
        at('wapiti', { ruleId: 'content-security-policy-configuration:csp-is-not-set' }),
      ).toEqual(csp);
      expect(at('zap', { raw: { alert: 'Feature Policy Header Not Set' } })).toEqual(
        at('nuclei', { ruleId: 'http-missing-security-headers:permissions-policy' }),
      );
      expect(
        at('nikto', {
          category: 'security-header',
          title: 'Strict-Transport-Security HTTP header is not defined.',
        }),
      ).toEqual(
        at('zap', {
          raw: { alert: 'Strict-Transport-Security Header Not Set' },
          identifiers: { cve: [], cwe: ['CWE-319'] },
        }),
      );
    });

    it('leaves headers it does not know to the CWE (ZAP Sec-Fetch-* is about requests)', () => {
      expect(
        at('zap', {
          identifiers: { cve: [], cwe: ['CWE-352'] },
          raw: {
            alert: 'Sec-Fetch-Dest Header is Missing',
            instances: [{ param: 'Sec-Fetch-Dest' }],
          },
        }),
      ).toEqual(['weakness app.example.com 443 / csrf Sec-Fetch-Dest']);
      expect(
        at('nikto', { category: 'security-header', title: 'X-Frame-Options header is deprecated' }),
      ).toEqual([]);
    });
  });
});

describe('correlationKeys: service', () => {
  it('keys nmap open ports by port and transport', () => {
    expect(keysOf(sourceFinding())).toEqual(['service 203.0.113.10 22 tcp']);
    expect(keysOf(sourceFinding({ location: { port: 53, protocol: 'UDP' } }))).toEqual([
      'service 203.0.113.10 53 udp',
    ]);
    // vulners findings and OS guesses are not services.
    expect(
      keysOf(
        sourceFinding({ ruleId: 'EDB-ID:45939', category: 'vulnerability', severity: 'medium' }),
      ),
    ).toEqual([]);
    expect(
      keysOf(
        sourceFinding({
          ruleId: 'os-detection',
          category: 'os-detection',
          location: { port: null, protocol: null },
        }),
      ),
    ).toEqual([]);
  });

  const nuclei = (overrides: Partial<SourceFinding>, url = 'https://app.example.com/') =>
    keysOf(
      sourceFinding({
        engine: 'nuclei',
        category: 'detection',
        ...overrides,
        location: { host: 'app.example.com', port: 443, protocol: null, url },
      }),
    );

  it("keys nuclei's info-level technology, -detect and network detections by port (tcp)", () => {
    const service = ['service app.example.com 443 tcp'];
    expect(nuclei({ ruleId: 'apache-detect', category: 'technology' })).toEqual(service);
    expect(nuclei({ ruleId: 'tech-detect:php', raw: { templateId: 'tech-detect' } })).toEqual(
      service,
    );
    expect(nuclei({ ruleId: 'waf-detect:ats' })).toEqual(service);
    expect(
      nuclei({ ruleId: 'mysql-native-password-bruteforce', raw: { type: 'network' } }),
    ).toEqual(service);
  });

  it('does not key other nuclei findings as services', () => {
    expect(nuclei({ ruleId: 'openssh5.3-detect', severity: 'low' })).toEqual([]);
    expect(nuclei({ ruleId: 'exposed-gitignore', category: 'exposure' })).toEqual([]);
    expect(nuclei({ ruleId: 'ssl-issuer', category: 'ssl', raw: { type: 'ssl' } })).toEqual([]);
    // A detection without a port (dns) has no service.
    expect(
      keysOf(
        sourceFinding({
          engine: 'nuclei',
          ruleId: 'dns-saas-service-detection:wix',
          category: 'dns',
          location: { host: 'www.example.com', port: null, protocol: null, url: null },
        }),
      ),
    ).toEqual([]);
  });
});

describe('correlationKeys: hostname', () => {
  const name = { host: 'API.Example.com', port: null, protocol: null, url: null };
  it('keys host names from theHarvester and sub-domains from sublist3r by the name', () => {
    expect(
      keysOf(
        sourceFinding({ engine: 'harvester', ruleId: 'host', category: 'host', location: name }),
      ),
    ).toEqual(['hostname api.example.com']);
    expect(
      keysOf(
        sourceFinding({
          engine: 'sublist3r',
          ruleId: 'subdomain',
          category: 'subdomain',
          location: name,
        }),
      ),
    ).toEqual(['hostname api.example.com']);
  });

  it("does not key theHarvester's e-mails, addresses or URLs as host names", () => {
    expect(
      keysOf(
        sourceFinding({
          engine: 'harvester',
          ruleId: 'email',
          category: 'email',
          location: { ...name, url: 'mailto:a@api.example.com' },
        }),
      ),
    ).toEqual([]);
    expect(
      keysOf(sourceFinding({ engine: 'harvester', ruleId: 'ip', category: 'ip', location: name })),
    ).toEqual([]);
  });
});

describe('correlationKeys: trivy', () => {
  it('gives trivy findings no keys, even with a CVE and a repository URL', () => {
    const finding = sourceFinding({
      engine: 'trivy',
      ruleId: 'CVE-2021-44228|log4j-core@2.14.1|pom.xml',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2021-44228'], cwe: ['CWE-502'] },
      location: { host: null, port: null, protocol: null, url: 'https://github.com/org/app' },
    });
    expect(correlationKeys(finding)).toEqual([]);
  });
});

describe('correlationKeys: robustness', () => {
  it('keeps parts apart even when they hold the separator (NUL)', () => {
    const cve = (host: string, port: number | null, id: string) =>
      correlationKeys(
        sourceFinding({
          category: 'vulnerability',
          identifiers: { cve: [id], cwe: [] },
          location: { host, port },
        }),
      ).map(({ key }) => key);
    // Joined naively, both would be cve␀h␀22␀-␀X.
    const a = cve('h\u000022', null, 'X');
    const b = cve('h', 22, '-\u0000X');
    expect(a).toHaveLength(1);
    expect(a).not.toEqual(b);
    expect(keyParts(a[0] ?? '')).toEqual(['cve', 'h\u000022', '-', 'X']);
  });

  it('never throws, whatever raw holds, and gives the same keys with a shared cache', () => {
    const cache = createKeyCache();
    fc.assert(
      fc.property(
        fc.constantFrom(...ENGINE_NAMES),
        fc.anything(),
        fc.constantFrom(null, 'https://app.example.com/a?b=1', 'not a url', 'mailto:x@y'),
        fc.constantFrom(null, 'app.example.com', ' '),
        (engine, raw, url, host) => {
          const finding = sourceFinding({
            engine,
            raw,
            identifiers: { cve: ['CVE-2021-1'], cwe: ['CWE-79'] },
            location: { host, url, port: null },
          });
          expect(correlationKeys(finding, cache)).toEqual(correlationKeys(finding));
        },
      ),
    );
  });
});
