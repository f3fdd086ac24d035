import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { createHarvesterParser, type HarvesterParseResult, parseHarvesterReport } from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'harvester');
const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'harvester', name), 'utf8');

function context(value: string): { readonly target: ScanTarget } {
  return { target: { type: 'domain', value, host: value, hostIsAddress: false } };
}

const COINBASE = context('coinbase.com');
const FLIPKART = context('flipkart.com');
const EXAMPLE = context('example.com');

const parse = (text: string, ctx = EXAMPLE) => parseHarvesterReport(text, ctx);

/** The text written through the streaming parser in chunks of `size` characters. */
function streamed(text: string, size: number, ctx = EXAMPLE): HarvesterParseResult {
  const parser = createHarvesterParser(ctx);
  for (let at = 0; at < text.length; at += size) {
    parser.write(text.slice(at, at + size));
  }
  return parser.end();
}

const CATEGORIES = ['host', 'ip', 'email', 'asn', 'url'];

/** A valid draft, and what theHarvester's asset findings hold, field by field. */
function expectHarvesterFinding(finding: DraftFinding): void {
  expectValidDraftFinding(finding);
  expect(finding.severity).toBe('info');
  expect(finding.toolSeverity).toBeNull();
  expect(CATEGORIES).toContain(finding.category);
  expect(finding.ruleId).toMatch(
    finding.category === 'asn' ? /^AS[0-9]+$/ : /^(host|ip|ip-range|email|url)$/,
  );
  expect(finding.title).toMatch(/\S/);
  expect(finding.title.length).toBeLessThanOrEqual(200);
  expect(finding.identifiers).toEqual({ cve: [], cwe: [] });
  expect(finding.remediation).toBeNull();
  expect(finding.references).toEqual([]);
  expect(finding.description).toMatch(/\S/);
  expect(finding.evidence).toMatch(/^theHarvester /);
  const { host, port, protocol, url } = finding.location;
  expect(port).toBeNull();
  expect(protocol).toBeNull();
  if (finding.category === 'asn') {
    expect(host).toBeNull();
  } else {
    expect(host).toBe(host?.toLowerCase());
    expect(host).toMatch(/\S/);
  }
  expect(url === null || /^(https?|mailto):/.test(url)).toBe(true);
  expect(JSON.stringify(finding.raw).length).toBeLessThan(4000);
}

/** One field of a finding's raw record (undefined when the finding is missing). */
function rawField(finding: DraftFinding | undefined, name: string): unknown {
  const raw: unknown = finding?.raw;
  return typeof raw === 'object' && raw !== null
    ? (raw as Record<string, unknown>)[name]
    : undefined;
}

function byCategory(findings: readonly DraftFinding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) {
    counts[finding.category] = (counts[finding.category] ?? 0) + 1;
  }
  return counts;
}

function find(result: HarvesterParseResult, category: string, host: string | null, url?: string) {
  return result.findings.find(
    (f) =>
      f.category === category &&
      f.location.host === host &&
      (url === undefined || f.location.url === url),
  );
}

describe('every theHarvester fixture', () => {
  const names = readdirSync(FIXTURES).sort();

  it('covers the four fixture files', () => {
    expect(names).toEqual([
      'all-keys-emails-asns-ips.json',
      'empty-no-results.json',
      'hosts-with-ips.json',
      'hosts-with-ips.xml',
    ]);
  });

  it.each(names)(
    '%s: valid findings, no warnings, deterministic, the same in any chunking',
    (name) => {
      const text = fixture(name);
      const whole = parse(text, COINBASE);
      expect(whole.warnings).toEqual([]);
      expect(whole.complete).toBe(true);
      for (const finding of whole.findings) {
        expectHarvesterFinding(finding);
      }
      expect(parse(text, COINBASE)).toEqual(whole);
      for (const size of [1, 7, 64, 4096]) {
        expect(streamed(text, size, COINBASE), `chunks of ${size}`).toEqual(whole);
      }
    },
  );
});

describe('all-keys-emails-asns-ips.json (hosts, emails, ips, asns, interesting_urls)', () => {
  const result = parse(fixture('all-keys-emails-asns-ips.json'), COINBASE);

  it('makes one finding per distinct asset: 2188 host entries are 236 names', () => {
    expect(result.format).toBe('json');
    expect(byCategory(result.findings)).toEqual({ host: 236, ip: 160, email: 3, asn: 11, url: 22 });
  });

  it('folds the case forms and name:address entries of a host into one finding', () => {
    // `Pro.coinbase.com`, `pro.coinbase.com`, `pro.coinbase.com:104.18.14.237`, `…:104.18.15.237`
    const pro = result.findings.filter((f) => f.location.host === 'pro.coinbase.com');
    expect(pro).toHaveLength(1);
    expect(pro[0]).toMatchObject({
      ruleId: 'host',
      title: 'Host pro.coinbase.com',
      evidence: 'theHarvester hosts: "Pro.coinbase.com" (19 entries)',
      raw: { entry: 'Pro.coinbase.com', entries: 19, wildcard: false },
    });
    const addresses = rawField(pro[0], 'addresses');
    expect(addresses).toHaveLength(17);
    expect(Array.isArray(addresses) && addresses.slice(0, 2)).toEqual([
      '104.18.14.237',
      '104.18.15.237',
    ]);
    expect(pro[0]?.description).toContain('It resolved to 104.18.14.237, 104.18.15.237, ');
    expect(result.findings.some((f) => f.location.host?.includes('COINBASE'))).toBe(false);
  });

  it('keeps IPv6 addresses after the name whole (split at the first colon, not the last)', () => {
    const accounts = find(result, 'host', 'accounts.coinbase.com');
    expect(accounts?.raw).toMatchObject({
      addresses: expect.arrayContaining([
        '104.18.20.10',
        '2606:4700:4400::6812:2ac6',
        '2a06:98c1:3122:e000::5',
      ]),
    });
    expect(rawField(accounts, 'addresses')).toHaveLength(14);
  });

  it('keeps the names a host points to (MX, CNAME) in its finding, not as findings', () => {
    const blog = find(result, 'host', 'blog.coinbase.com');
    expect(rawField(blog, 'pointsTo')).toEqual([
      'alt1.aspmx.l.google.com',
      'alt2.aspmx.l.google.com',
      'alt3.aspmx.l.google.com',
      'alt4.aspmx.l.google.com',
      'aspmx.l.google.com',
    ]);
    expect(find(result, 'host', 'aspmx.l.google.com')).toBeUndefined();
  });

  it('keeps wildcard names as wildcards', () => {
    expect(find(result, 'host', '*.coinbase.com')).toMatchObject({
      title: 'Wildcard host *.coinbase.com',
      raw: { wildcard: true },
    });
    expect(result.findings.filter((f) => f.location.host?.startsWith('*.'))).toHaveLength(16);
  });

  it('reads addresses, e-mail addresses, ASNs and URLs', () => {
    expect(find(result, 'ip', '104.16.53.36')).toMatchObject({
      ruleId: 'ip',
      title: 'IP address 104.16.53.36',
    });
    expect(find(result, 'ip', '2a0b:21c0:b002:2:5000:edff:fe0d:98de')).toBeDefined();
    expect(find(result, 'email', 'coinbase.com', 'mailto:help@coinbase.com')).toMatchObject({
      ruleId: 'email',
      title: 'E-mail address help@coinbase.com',
    });
    expect(result.findings.find((f) => f.ruleId === 'AS13335')).toMatchObject({
      category: 'asn',
      title: 'Autonomous system AS13335',
      location: { host: null, port: null, protocol: null, url: null },
    });
    expect(find(result, 'url', 'www.coinbase.com', 'https://www.coinbase.com/de/')).toMatchObject({
      ruleId: 'url',
    });
  });

  it('says which assets are outside the scanned domain', () => {
    expect(find(result, 'host', 'accounts.coinbase.com')?.description).toBeDefined();
    expect(find(result, 'host', 'accounts.coinbase.com')?.description).not.toContain('not under');
    expect(
      parse(fixture('all-keys-emails-asns-ips.json'), EXAMPLE).findings[0]?.description,
    ).toContain('It is not under example.com');
  });

  it('gives every asset its own fingerprint', () => {
    const fingerprinted = finalizeFindings('harvester', result.findings);
    expect(fingerprinted).toHaveLength(result.findings.length);
    expect(new Set(fingerprinted.map((f) => f.fingerprint)).size).toBe(432);
  });
});

describe('empty-no-results.json', () => {
  it('is a clean run: no findings and no warnings', () => {
    const result = parse(fixture('empty-no-results.json'));
    expect(result).toEqual({ findings: [], warnings: [], format: 'json', complete: true });
  });
});

describe('hosts-with-ips.json and hosts-with-ips.xml (the same run)', () => {
  const json = parse(fixture('hosts-with-ips.json'), FLIPKART);
  const xml = parse(fixture('hosts-with-ips.xml'), FLIPKART);
  const names = (result: HarvesterParseResult) =>
    new Set(result.findings.map((f) => f.location.host));

  it('reads 538 hosts from the JSON and 539 from the XML, all with their address', () => {
    expect(byCategory(json.findings)).toEqual({ host: 538 });
    expect(byCategory(xml.findings)).toEqual({ host: 539 });
    expect(xml.format).toBe('xml');
    for (const finding of [...json.findings, ...xml.findings]) {
      expect(rawField(finding, 'addresses')).toHaveLength(1);
    }
  });

  it('reads a known host the same from both', () => {
    const expected = {
      ruleId: 'host',
      location: { host: '1.chat.flipkart.com', port: null, protocol: null, url: null },
      raw: { addresses: ['163.53.77.32'] },
    };
    expect(find(json, 'host', '1.chat.flipkart.com')).toMatchObject(expected);
    expect(find(xml, 'host', '1.chat.flipkart.com')).toMatchObject(expected);
  });

  it('the XML has the one host the JSON lacks (www.flipkart.com), and every other', () => {
    const inXmlOnly = [...names(xml)].filter((name) => !names(json).has(name));
    expect(inXmlOnly).toEqual(['www.flipkart.com']);
    expect([...names(json)].every((name) => names(xml).has(name))).toBe(true);
  });

  it('gives a host the same fingerprint from the JSON and from the XML', () => {
    const fromJson = finalizeFindings('harvester', json.findings);
    const fromXml = new Set(finalizeFindings('harvester', xml.findings).map((f) => f.fingerprint));
    expect(fromJson.every((f) => fromXml.has(f.fingerprint))).toBe(true);
  });
});

describe('fingerprints', () => {
  const fingerprints = (report: string) =>
    finalizeFindings('harvester', parse(report).findings).map((f) => f.fingerprint);

  it.each([
    ['host', '{"hosts":["WWW.Example.COM"]}', '{"hosts":["www.example.com.:93.184.216.34"]}'],
    ['IPv6 address', '{"ips":["2001:DB8:0:0::1"]}', '{"ips":["2001:db8::1"]}'],
    ['ASN', '{"asns":["as13335"]}', '{"asns":[13335]}'],
    ['e-mail address', '{"emails":["Info@Example.com"]}', '{"emails":["info@example.com"]}'],
    [
      'URL',
      '{"interesting_urls":["HTTPS://WWW.Example.com:443/a?b=2&a=1#top"]}',
      '{"urls":["https://www.example.com/a?a=1&b=2"]}',
    ],
  ])('the same %s in another form on a rescan has the same fingerprint', (_name, first, second) => {
    expect(fingerprints(first)).toHaveLength(1);
    expect(fingerprints(first)).toEqual(fingerprints(second));
  });

  it('merges the forms of one asset inside a report into one finding', () => {
    const result = parse(
      '{"hosts":["WWW.Example.COM","www.example.com.","www.example.com:93.184.216.34"],"ips":["2001:db8::1","2001:DB8:0::1"]}',
    );
    expect(result.findings.map((f) => [f.category, f.location.host])).toEqual([
      ['host', 'www.example.com'],
      ['ip', '2001:db8::1'],
    ]);
    expect(result.findings[0]?.raw).toMatchObject({ entries: 3, addresses: ['93.184.216.34'] });
  });

  it('tells different assets apart, also the same text in different lists', () => {
    const all = fingerprints(
      JSON.stringify({
        hosts: ['a.example.com', 'b.example.com', '*.example.com', '93.184.216.34'],
        ips: ['93.184.216.35', '10.0.0.0/8', '10.0.0.0'],
        emails: ['a@example.com', 'b@example.com'],
        asns: ['AS1', 'AS2'],
        interesting_urls: ['https://a.example.com/', 'https://a.example.com/x'],
      }),
    );
    // The bare address in `hosts` is an IP finding: 3 hosts, 4 addresses, 2 e-mails, 2 ASNs, 2 URLs.
    expect(all).toHaveLength(13);
    expect(new Set(all).size).toBe(13);
  });
});

describe('edge cases', () => {
  it.each([
    ['empty', ''],
    ['whitespace only', ' \n\t\r\n '],
    ['a byte-order mark only', '\uFEFF'],
  ])('%s: no findings, an empty-report warning', (_name, text) => {
    expect(parse(text)).toEqual({
      findings: [],
      warnings: ['theHarvester wrote an empty report'],
      format: 'unknown',
      complete: false,
    });
  });

  it('a cut-off JSON report keeps every entry before the cut, with a warning', () => {
    const text = fixture('all-keys-emails-asns-ips.json');
    const cut = text.slice(0, text.indexOf('"interesting_urls"') + 80);
    const result = parse(cut, COINBASE);
    expect(result.complete).toBe(false);
    expect(result.warnings).toEqual([
      'the JSON report is cut off (theHarvester did not finish writing it): findings come from the entries before the cut',
    ]);
    // asns, emails and hosts come before interesting_urls (keys sorted); the half-written URL is dropped.
    expect(byCategory(result.findings)).toMatchObject({ host: 236, email: 3, asn: 11 });
    expect(byCategory(result.findings).url ?? 0).toBeLessThan(22);
    for (const size of [5, 333]) {
      expect(streamed(cut, size, COINBASE)).toEqual(result);
    }
  });

  it('a JSON report cut inside a host entry drops only that entry', () => {
    const result = parse('{"hosts":["a.example.com","b.example.com:93.18');
    expect(result.findings.map((f) => f.location.host)).toEqual(['a.example.com']);
    expect(result.warnings[0]).toContain('cut off');
  });

  it.each([
    [
      'nmap XML',
      sharedPath('fixtures', 'scanner-output', 'nmap', 'ipv6-single-host.xml'),
      /no <theHarvester> element/,
    ],
    [
      'nikto JSON (an array)',
      sharedPath('fixtures', 'scanner-output', 'nikto', 'juice-shop-2.5-array.json'),
      /top level is not an object/,
    ],
    [
      'ZAP JSON (an object)',
      sharedPath('fixtures', 'scanner-output', 'zap', 'traditional-json-2.14-baseline.json'),
      /none of theHarvester keys/,
    ],
    [
      'sublist3r text',
      sharedPath('fixtures', 'scanner-output', 'sublist3r', 'indeed-62-subdomains.txt'),
      /not theHarvester output/,
    ],
  ])('%s: no findings, a wrong-format warning', (_name, path, warning) => {
    const text = readFileSync(path, 'utf8');
    const result = parse(text);
    expect(result.findings).toEqual([]);
    expect(result.complete).toBe(false);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(warning);
    expect(streamed(text, 100)).toEqual(result);
  });

  it('random text: a warning that quotes its start', () => {
    expect(parse('Traceback (most recent call last):\n  File "x"').warnings).toEqual([
      'the report is not theHarvester output (neither a JSON object nor XML; it starts with "Traceback (most recent call last):\\n  Fil…")',
    ]);
  });

  it('bytes that are not UTF-8 (U+FFFD) inside an entry: that entry is skipped, the rest kept', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"hosts":["a.example.com","b'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('.example.com"],"emails":["x@example.com"]}'),
    ]);
    const text = new TextDecoder('utf-8').decode(bytes);
    const result = parse(text);
    expect(result.findings.map((f) => f.location.host)).toEqual(['a.example.com', 'example.com']);
    expect(result.warnings).toEqual([
      `1 hosts entry was not a valid host name (name, *.name or name:address/name) and was skipped (e.g. ${JSON.stringify('b\uFFFD\uFFFD.example.com')})`,
    ]);
    expect(result.complete).toBe(true);
  });

  it('bytes that are not UTF-8 between entries: not well-formed, entries before kept', () => {
    const text = new TextDecoder('utf-8').decode(
      Buffer.concat([
        Buffer.from('{"hosts":["a.example.com",'),
        Buffer.from([0xc3]),
        Buffer.from('"b.example.com"]}'),
      ]),
    );
    const result = parse(text);
    expect(result.findings.map((f) => f.location.host)).toEqual(['a.example.com']);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^the JSON report is not well-formed \(.*position 26.*\): findings come from the entries before the error$/,
    );
    for (const size of [1, 3, 10]) {
      expect(streamed(text, size)).toEqual(result);
    }
  });

  it('whitespace after the JSON document is fine, also written one character at a time', () => {
    const text = '{"hosts":["a.example.com"]}\n \r\n';
    expect(streamed(text, 1)).toEqual(parse(text));
    expect(parse(text)).toMatchObject({ warnings: [], complete: true });
  });

  it('data after the JSON document is reported and ignored', () => {
    const result = parse('{"hosts":["a.example.com"]}\n{"hosts":["b.example.com"]}');
    expect(result.findings.map((f) => f.location.host)).toEqual(['a.example.com']);
    expect(result.warnings).toEqual(['data after the end of the JSON report was ignored']);
  });

  it('skips values that are not assets, and counts them per list', () => {
    const result = parse(
      JSON.stringify({
        hosts: [
          'ok.example.com',
          'no spaces.example.com',
          'x.example.com:not an address',
          7,
          'a'.repeat(3000),
        ],
        ips: ['999.1.1.1', '10.0.0.1'],
        emails: ['not-an-email', 'a@b@example.com', 'x@*.example.com'],
        asns: ['ASX', 'AS99999999999'],
        interesting_urls: ['javascript:alert(1)', 'ftp://example.com/', 'https://ok.example.com/'],
      }),
    );
    expect(result.findings.map((f) => `${f.ruleId} ${f.location.host}`)).toEqual([
      'host ok.example.com',
      'ip 10.0.0.1',
      'url ok.example.com',
    ]);
    expect(result.warnings.map((w) => w.split(' and ')[0])).toEqual([
      '4 hosts entries were not a valid host name (name, *.name or name:address/name)',
      '1 ips entry was not a valid IP address',
      '3 emails entries were not a valid e-mail address',
      '2 asns entries were not a valid AS number',
      '2 interesting_urls entries were not a valid http(s) URL',
    ]);
  });

  it('a bare address in the hosts list is an IP finding', () => {
    expect(
      parse('{"hosts":["93.184.216.34","2001:db8::1"]}').findings.map((f) => f.ruleId),
    ).toEqual(['ip', 'ip']);
  });

  it('never reads asset-like keys nested in other parts (the run evidence of current releases)', () => {
    const result = parse(
      JSON.stringify({
        cmd: '-d example.com',
        hosts: ['a.example.com'],
        run: {
          hosts: ['nested.example.com'],
          results: [{ type: 'email', value: 'n@example.com' }],
        },
        evidence_run: { emails: ['m@example.com'] },
        shodan: [],
      }),
    );
    expect(result.findings.map((f) => f.location.host)).toEqual(['a.example.com']);
    expect(result.complete).toBe(true);
  });

  it('notes people lists without keeping the names', () => {
    const result = parse(
      JSON.stringify({ hosts: [], linkedin_people: ['Jane Doe'], people: [{ name: 'John Roe' }] }),
    );
    expect(result.findings).toEqual([]);
    expect(result.warnings).toEqual([
      'theHarvester also listed people (people, linkedin_people): names and profile links are personal data and are not kept as findings',
    ]);
    expect(JSON.stringify(result)).not.toContain('Jane');
  });

  it('keeps at most the asset limit (250 000 by default) and counts the rest', () => {
    const asns = Array.from({ length: 8 }, (_, i) => `AS${i + 1}`);
    const parser = createHarvesterParser(EXAMPLE, { maxAssets: 5 });
    parser.write(JSON.stringify({ asns: [...asns, 'AS1'] }));
    const result = parser.end();
    expect(result.findings.map((f) => f.ruleId)).toEqual(['AS1', 'AS2', 'AS3', 'AS4', 'AS5']);
    expect(result.findings[0]?.raw).toMatchObject({ entries: 2 });
    expect(result.warnings).toEqual([
      'the report lists more than 5 distinct assets: 3 further one(s) were not kept',
    ]);
  });
});

describe('XML edge cases', () => {
  const head = '<?xml version="1.0" encoding="UTF-8"?><theHarvester><cmd>-d example.com</cmd>';

  it('reads e-mails, both host forms, and the result list of current releases', () => {
    const result = parse(
      `${head}<email>Info@Example.com</email><host>a.example.com</host>` +
        '<host><ip>93.184.216.34</ip><hostname>b.example.com</hostname></host>' +
        '<run status="completed" target="example.com"><results><result type="subdomain">c.example.com</result>' +
        '<result type="ip">10.1.2.3</result><result type="asn">AS15169</result>' +
        '<result type="url">https://c.example.com/login</result><result type="person">Jane Doe</result>' +
        '</results></run></theHarvester>',
    );
    expect(
      result.findings.map((f) =>
        `${f.ruleId} ${f.location.host ?? ''} ${f.location.url ?? ''}`.trim(),
      ),
    ).toEqual([
      'host a.example.com',
      'host b.example.com',
      'host c.example.com',
      'ip 10.1.2.3',
      'email example.com mailto:info@example.com',
      'AS15169',
      'url c.example.com https://c.example.com/login',
    ]);
    expect(result.warnings).toEqual([]);
    expect(JSON.stringify(result)).not.toContain('Jane');
  });

  it('decodes the XML entities current releases write', () => {
    const result = parse(
      `${head}<host>a.example.com</host><email>o&apos;brien@example.com</email></theHarvester>`,
    );
    expect(result.findings[1]?.location.url).toBe("mailto:o'brien@example.com");
  });

  it('never expands a DTD entity', () => {
    const result = parse(
      '<?xml version="1.0"?><!DOCTYPE theHarvester [<!ENTITY e "evil.example.com">]>' +
        '<theHarvester><host>&e;</host><host>ok.example.com</host></theHarvester>',
    );
    expect(result.findings.map((f) => f.location.host)).toEqual(['ok.example.com']);
    expect(result.warnings[0]).toMatch(/^1 xml host entry was not a valid host name/);
  });

  it('a cut-off XML report keeps the complete elements before the cut', () => {
    const text = fixture('hosts-with-ips.xml');
    const cut = text.slice(0, text.length / 2);
    const result = parse(cut, FLIPKART);
    expect(result.complete).toBe(false);
    expect(result.warnings).toEqual([
      'the XML report is cut off (no </theHarvester>): findings come from the complete elements before the cut',
    ]);
    expect(result.findings.length).toBeGreaterThan(200);
    expect(result.findings.length).toBeLessThan(539);
    expect(streamed(cut, 999, FLIPKART)).toEqual(result);
  });

  it('not well-formed XML: a warning, never an exception', () => {
    const result = parse(`${head}<host a="b>a.example.com</host></theHarvester>`);
    expect(result.findings).toEqual([]);
    expect(result.warnings[0]).toMatch(/^the XML report is not well-formed: /);
  });
});
