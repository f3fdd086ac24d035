import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { ParseContext } from '../engine.js';
import {
  createSublist3rParser,
  hostNameOf,
  MAX_SUBDOMAINS,
  parseSublist3rOutput,
  type Sublist3rParseResult,
} from './parse.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'sublist3r');
const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'sublist3r', name), 'utf8');

function contextFor(domain: string): ParseContext {
  const target: ScanTarget = { type: 'domain', value: domain, host: domain, hostIsAddress: false };
  return { target };
}

const EXAMPLE = contextFor('example.com');
const parse = (text: string, context = EXAMPLE) => parseSublist3rOutput(text, context);
const names = (result: Sublist3rParseResult) => result.findings.map((f) => f.location.host);

/** The domain each real output was made for (the file names say which). */
const DOMAIN_OF: Readonly<Record<string, string>> = {
  'coinbase-234-mixed-case.txt': 'coinbase.com',
  'indeed-62-subdomains.txt': 'indeed.com',
  'sonichealthcare-87-multilevel.txt': 'sonichealthcare.com',
};

/** Writes `text` to a streaming parser in pieces of the given sizes, repeated. */
function streamed(text: string, sizes: readonly number[], context = EXAMPLE) {
  const parser = createSublist3rParser(context);
  let at = 0;
  for (let i = 0; at < text.length; i += 1) {
    const size = sizes[i % sizes.length] ?? 1;
    parser.write(text.slice(at, at + size));
    at += size;
  }
  return parser.end();
}

/** A valid draft, and what a subdomain finding holds, field by field. */
function expectSubdomainFinding(finding: DraftFinding, domain: string): void {
  expectValidDraftFinding(finding);
  const host = finding.location.host ?? '';
  expect(finding).toMatchObject({
    ruleId: 'subdomain',
    title: `Subdomain ${host}`,
    severity: 'info',
    toolSeverity: null,
    category: 'subdomain',
    location: { host, port: null, protocol: null, url: null },
    identifiers: { cve: [], cwe: [] },
    remediation: null,
    references: [],
  });
  expect(host).toBe(host.toLowerCase());
  expect(host.endsWith(`.${domain}`)).toBe(true);
  expect(finding.description).toContain(`of ${domain}`);
}

describe('parseSublist3rOutput on every sublist3r fixture', () => {
  const files = readdirSync(FIXTURES).sort();

  it('covers the three fixture files', () => {
    expect(files).toEqual(Object.keys(DOMAIN_OF).sort());
  });

  it.each(files)('%s: valid findings, one per name, same in any chunking', (name) => {
    const domain = DOMAIN_OF[name] ?? '';
    const context = contextFor(domain);
    const text = fixture(name);
    const result = parseSublist3rOutput(text, context);
    expect(result.findings.length).toBeGreaterThan(50);
    for (const finding of result.findings) {
      expectSubdomainFinding(finding, domain);
    }
    expect(new Set(names(result)).size).toBe(result.findings.length);
    expect(parseSublist3rOutput(text, context)).toEqual(result);
    for (const sizes of [[1], [2, 7, 3], [64], [4096], [text.length]]) {
      expect(streamed(text, sizes, context)).toEqual(result);
    }
    // Every name keeps its own fingerprint.
    const fingerprints = finalizeFindings('sublist3r', result.findings).map((f) => f.fingerprint);
    expect(new Set(fingerprints).size).toBe(result.findings.length);
  });
});

describe('parseSublist3rOutput fixtures', () => {
  it('indeed: 62 plain names, in the order sublist3r wrote them, no warnings', () => {
    const result = parseSublist3rOutput(
      fixture('indeed-62-subdomains.txt'),
      contextFor('indeed.com'),
    );
    expect(result).toMatchObject({
      warnings: [],
      lines: 62,
      invalidLines: 0,
      outsideDomain: 0,
      duplicates: 0,
    });
    expect(result.findings).toHaveLength(62);
    expect(names(result).slice(0, 3)).toEqual([
      'www.indeed.com',
      'ads.indeed.com',
      'aq.indeed.com',
    ]);
    expect(names(result)).toContain('emplois.be.indeed.com');
    expect(result.findings[0]).toMatchObject({
      title: 'Subdomain www.indeed.com',
      evidence: 'sublist3r output line: www.indeed.com',
      raw: { name: 'www.indeed.com', asWritten: 'www.indeed.com' },
    });
  });

  it('sonichealthcare: 87 names, multi-level ones kept whole', () => {
    const result = parseSublist3rOutput(
      fixture('sonichealthcare-87-multilevel.txt'),
      contextFor('sonichealthcare.com'),
    );
    expect(result).toMatchObject({ warnings: [], lines: 87, invalidLines: 0, outsideDomain: 0 });
    expect(result.findings).toHaveLength(87);
    expect(
      names(result).filter((host) => host?.endsWith('.apps.sonichealthcare.com')),
    ).toHaveLength(20);
    expect(names(result)).toContain('ausigbneca50h.apps.sonichealthcare.com');
    expect(names(result)).toContain('www.rdgweu.vpn.sonichealthcare.com');
  });

  it('coinbase: upper-case labels lower-cased; 123 look-alike domains are not subdomains', () => {
    const result = parseSublist3rOutput(
      fixture('coinbase-234-mixed-case.txt'),
      contextFor('coinbase.com'),
    );
    // sublist3r keeps any name that *ends with* "coinbase.com": help--coinbase.com and
    // www.my-coinbase.com are other registrations, not names under coinbase.com.
    expect(result).toMatchObject({
      lines: 234,
      invalidLines: 0,
      outsideDomain: 123,
      duplicates: 0,
    });
    expect(result.findings).toHaveLength(111);
    expect(result.warnings).toEqual([
      '123 name(s) outside coinbase.com were skipped (first: "help---coinbase.com")',
    ]);
    expect(names(result)).not.toContain('my-coinbase.com');
    expect(names(result)).toContain('www.docs.custody.coinbase.com');
    const upper = result.findings.find((f) =>
      f.location.host?.startsWith('pg-sign-key-coinbase-001'),
    );
    expect(upper).toMatchObject({
      title: 'Subdomain pg-sign-key-coinbase-001.prod.coinbase.com',
      location: { host: 'pg-sign-key-coinbase-001.prod.coinbase.com' },
      evidence: 'sublist3r output line: pg-sign-key-COINBASE-001.prod.coinbase.com',
      raw: {
        name: 'pg-sign-key-coinbase-001.prod.coinbase.com',
        asWritten: 'pg-sign-key-COINBASE-001.prod.coinbase.com',
      },
    });
  });

  it('coinbase with other spellings of names it has: de-duplicated case-insensitively', () => {
    const text = `${fixture('coinbase-234-mixed-case.txt')}PG-SIGN-KEY-coinbase-001.PROD.coinbase.com\r\nWWW.Coinbase.Com.\r\ncoinbase.com\n`;
    const result = parseSublist3rOutput(text, contextFor('coinbase.com'));
    expect(result.findings).toHaveLength(111);
    // Two other spellings of known names, and the domain itself.
    expect(result.duplicates).toBe(3);
    // The first spelling is the one kept as evidence.
    expect(result.findings[0]?.evidence).toBe('sublist3r output line: www.coinbase.com');
  });
});

describe('fingerprints', () => {
  it('the same name in another case, in another scan, has the same fingerprint', () => {
    const first = finalizeFindings(
      'sublist3r',
      parse('api.example.com\nwww.example.com\n').findings,
    );
    const second = finalizeFindings(
      'sublist3r',
      parse('WWW.EXAMPLE.COM\r\nAPI.Example.com\r\n').findings,
    );
    expect(first.map((f) => f.fingerprint).sort()).toEqual(second.map((f) => f.fingerprint).sort());
    expect(first[0]?.fingerprint).not.toBe(first[1]?.fingerprint);
  });

  it('a name with a port suffix is the same finding as the bare name', () => {
    const [withPort] = finalizeFindings('sublist3r', parse('x.example.com:8443\n').findings);
    const [bare] = finalizeFindings('sublist3r', parse('x.example.com\n').findings);
    expect(withPort?.fingerprint).toBe(bare?.fingerprint);
  });
});

describe('parseSublist3rOutput edge cases', () => {
  it.each([
    ['empty input', ''],
    ['white space only', '  \n\t\r\n\n'],
  ])('%s: no findings, no warnings', (_name, text) => {
    expect(parse(text)).toEqual({
      findings: [],
      warnings: [],
      lines: 0,
      invalidLines: 0,
      outsideDomain: 0,
      duplicates: 0,
    });
  });

  it('CRLF, LF, CR, blank lines, surrounding blanks, a BOM and no final newline', () => {
    const text = '\uFEFFa.example.com\r\n\r\n  b.example.com  \n\n\nc.example.com\rd.example.com';
    const result = parse(text);
    expect(names(result)).toEqual([
      'a.example.com',
      'b.example.com',
      'c.example.com',
      'd.example.com',
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('lines that are not host names are counted in one warning with the first of them', () => {
    const result = parse(
      [
        'good.example.com',
        'not a host name',
        '*.example.com',
        'user@mail.example.com',
        '93.184.215.14',
        'a..example.com',
        '-bad.example.com',
        'bad-.example.com',
        'x.example.com:0',
        'x.example.com:70000',
        `${'a'.repeat(64)}.example.com`,
        '<html>',
        'HTTPSConnectionPool(host=...)',
      ].join('\n'),
    );
    expect(names(result)).toEqual(['good.example.com']);
    expect(result.invalidLines).toBe(12);
    expect(result.warnings).toEqual([
      '12 line(s) of the sublist3r output are not host names and were skipped (first: "not a host name")',
    ]);
  });

  it('accepts a :port suffix, a trailing dot, underscores and Unicode names (as punycode)', () => {
    const result = parse(
      'x.y.example.com:8443\nmail.example.com.\n_dmarc.example.com\nBücher.example.com\n',
    );
    expect(names(result)).toEqual([
      'x.y.example.com',
      'mail.example.com',
      '_dmarc.example.com',
      'xn--bcher-kva.example.com',
    ]);
    expect(result.findings[0]?.raw).toEqual({
      name: 'x.y.example.com',
      asWritten: 'x.y.example.com:8443',
    });
    expect(result.warnings).toEqual([]);
  });

  it('bytes that were not UTF-8 (U+FFFD) make a line invalid, not the whole report', () => {
    const bytes = Buffer.concat([
      Buffer.from('ok.example.com\n'),
      Buffer.from([0x62, 0xff, 0xfe, 0x2e]),
      Buffer.from('example.com\nalso.example.com\n'),
    ]);
    const result = parse(new TextDecoder('utf-8').decode(bytes));
    expect(names(result)).toEqual(['ok.example.com', 'also.example.com']);
    expect(result.invalidLines).toBe(1);
    expect(result.warnings[0]).toContain('1 line(s) of the sublist3r output are not host names');
  });

  it('names outside the domain, including ones that only end with its text, are skipped', () => {
    const result = parse('a.example.com\nnotexample.com\nexample.com.evil.net\nexample.org\n');
    expect(names(result)).toEqual(['a.example.com']);
    expect(result.outsideDomain).toBe(3);
    expect(result.warnings).toEqual([
      '3 name(s) outside example.com were skipped (first: "notexample.com")',
    ]);
  });

  it('the domain itself is not a subdomain finding', () => {
    const result = parse('example.com\nEXAMPLE.COM.\nwww.example.com\n');
    expect(names(result)).toEqual(['www.example.com']);
    expect(result.duplicates).toBe(2);
    expect(result.warnings).toEqual([]);
  });

  it('compares with the target domain case-insensitively', () => {
    const result = parse('api.example.com\n', contextFor('Example.COM'));
    expect(names(result)).toEqual(['api.example.com']);
  });

  it('a truncated report gives its complete lines; a cut-off last name is judged as written', () => {
    const text = `${fixture('indeed-62-subdomains.txt').slice(0, 500)}`;
    const result = parse(text, contextFor('indeed.com'));
    const complete = text.split('\n').slice(0, -1);
    expect(result.findings.length).toBeGreaterThanOrEqual(complete.length - 1);
    expect(names(result).slice(0, complete.length)).toEqual(complete);
  });

  it.each([
    ['nmap XML', 'nmap', 'debian-7.93-localhost-version-detect.xml'],
    ['theHarvester JSON', 'harvester', 'empty-no-results.json'],
    ['nuclei JSONL', 'nuclei', 'log4shell-critical-oast.jsonl'],
  ])('%s: no findings, and a warning that it is not sublist3r output', (_name, engine, file) => {
    const text = readFileSync(sharedPath('fixtures', 'scanner-output', engine, file), 'utf8');
    const result = parse(text);
    expect(result.findings).toEqual([]);
    expect(result.invalidLines).toBe(result.lines);
    expect(result.warnings).toContain(
      'the report does not look like sublist3r output: no line is a host name',
    );
  });

  it('an over-long line is counted, quoted shortly, and never read', () => {
    const long = `${'a.'.repeat(5000)}example.com`;
    const result = parse(`${long}\nok.example.com\n`);
    expect(names(result)).toEqual(['ok.example.com']);
    expect(result.invalidLines).toBe(1);
    expect(result.warnings[0]).toBe(
      `1 line(s) of the sublist3r output are not host names and were skipped (first: "${'a.'.repeat(40)}…")`,
    );
    // The same in any chunking, also when the cut falls inside the long line.
    for (const sizes of [[1000], [1023, 1, 1], [7]]) {
      expect(streamed(`${long}\nok.example.com\n`, sizes)).toEqual(result);
    }
  });

  it('a 10 MB report without a newline is one invalid line', () => {
    const parser = createSublist3rParser(EXAMPLE);
    const chunk = 'x'.repeat(256 * 1024);
    for (let i = 0; i < 40; i += 1) {
      parser.write(chunk);
    }
    const result = parser.end();
    expect(result).toMatchObject({ findings: [], lines: 1, invalidLines: 1 });
  });

  it('CRLF split across chunks gives the same result as whole', () => {
    const text = 'a.example.com\r\nb.example.com\r\n';
    expect(streamed(text, [14, 1, 15])).toEqual(parse(text));
    expect(streamed(text, [13, 1, 1])).toEqual(parse(text));
  });

  it('end() is idempotent and later writes are ignored', () => {
    const parser = createSublist3rParser(EXAMPLE);
    parser.write('a.example.com\nb.exa');
    const first = parser.end();
    parser.write('mple.com\nc.example.com\n');
    expect(parser.end()).toBe(first);
    expect(names(first)).toEqual(['a.example.com']);
    expect(first.outsideDomain).toBe(1);
  });

  it(`a 100 000-line report: 100 000 findings; names beyond ${MAX_SUBDOMAINS} are counted`, () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `host-${i}.zone-${i % 97}.example.com`);
    const text = `${lines.join('\n')}\n`;
    const started = performance.now();
    const result = parse(text);
    const elapsedMs = performance.now() - started;
    expect(result.findings).toHaveLength(100_000);
    expect(result.warnings).toEqual([]);
    expect(names(result)).toEqual(lines);
    // Generous: well under a second on an idle machine; a quadratic step would take minutes.
    expect(elapsedMs).toBeLessThan(10_000);
    // Streamed in the runner's chunk size, with three more lines: two new names over the cap and
    // one repeat.
    const over = streamed(
      `${text}one-more.example.com\nand-another.example.com\nHOST-5.zone-5.example.com\n`,
      [256 * 1024],
    );
    expect(over.findings).toHaveLength(MAX_SUBDOMAINS);
    expect(names(over)).toEqual(lines);
    expect(over).toMatchObject({
      lines: 100_003,
      duplicates: 1,
      invalidLines: 0,
      outsideDomain: 0,
    });
    expect(over.warnings).toEqual([
      `sublist3r listed more than ${MAX_SUBDOMAINS} distinct names; 2 more were not kept`,
    ]);
  });
});

describe('hostNameOf', () => {
  it.each([
    ['www.example.com', 'www.example.com'],
    ['WWW.Example.COM', 'www.example.com'],
    ['a.example.com:443', 'a.example.com'],
    ['a.example.com.', 'a.example.com'],
    ['_sip._tls.example.com', '_sip._tls.example.com'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['localhost', 'localhost'],
  ])('%j → %j', (line, expected) => {
    expect(hostNameOf(line)).toBe(expected);
  });

  it.each([
    '',
    '.',
    'a b.example.com',
    '1.2.3.4',
    '[::1]',
    'a.example.com:',
    'a.example.com:x',
    '\uFFFD.example.com',
    'a/b.example.com',
  ])('refuses %j', (line) => {
    expect(hostNameOf(line)).toBeNull();
  });
});
