/**
 * sublist3r's `-o` file to findings: plain text, one host name per line (`os.linesep` endings),
 * written only when something was found. Deterministic and free of I/O: the worker adds ids and
 * times. The streaming parser keeps one line (at most MAX_LINE_LENGTH characters) and the set
 * of names kept (at most MAX_SUBDOMAINS), so a huge or newline-free report cannot grow memory
 * beyond that.
 */
import { domainToASCII } from 'node:url';
import type { DraftFinding, ParseResult } from '../../domain/findings/finding.js';
import { createLineSplitter } from '../../domain/text/line-splitter.js';
import type { ParseContext, StreamingReportParser } from '../engine.js';

/** Longer lines cannot hold a name (253 characters, plus `:port`): they are counted, not read. */
export const MAX_LINE_LENGTH = 1024;

/**
 * Distinct names kept per scan. Real runs list hundreds to a few thousand; beyond this the report
 * is not a subdomain list worth storing finding by finding, and the rest is counted in a warning.
 */
export const MAX_SUBDOMAINS = 100_000;

/** How much of an offending line a warning quotes. */
const SAMPLE_LENGTH = 80;

/** What `parseSublist3rOutput` returns besides findings and warnings. */
export interface Sublist3rParseResult extends ParseResult {
  /** Lines with anything but white space on them. */
  readonly lines: number;
  /** Lines that are not a host name (optionally with `:port`). */
  readonly invalidLines: number;
  /** Valid names that are neither the domain nor under it. */
  readonly outsideDomain: number;
  /** Names seen again (compared lower-cased), and the domain itself. */
  readonly duplicates: number;
}

/** The streaming parser, whose `end` also gives the counts. */
export interface Sublist3rStreamingParser extends StreamingReportParser {
  end(): Sublist3rParseResult;
}

// ---------------------------------------------------------------------------------------------
// One line.

/**
 * A lower-case DNS name: labels of letters, digits, `_` (`_dmarc`, `_sip._tls`) and inner hyphens,
 * 1-63 characters each, joined by dots. Labels cannot contain dots, so matching is linear.
 */
const DNS_NAME =
  /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** A last label of digits only: an IPv4 address, not a name. */
const NUMERIC_LAST_LABEL = /(?:^|\.)[0-9]+$/;
const PORT_SUFFIX = /:([0-9]{1,5})$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: testing for non-ASCII on purpose.
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * The lower-cased ASCII host name a line names, or null when it names none. Accepted besides a
 * bare name: a `:port` suffix (sublist3r's search-engine scrapers keep the URL's netloc, e.g.
 * `x.example.com:8443`), one trailing dot, and Unicode labels (converted to punycode). Refused:
 * IP addresses (a last label of digits), wildcards, `user@host`, spaces, U+FFFD from bytes that
 * were not UTF-8, empty labels.
 */
export function hostNameOf(text: string): string | null {
  let value = text;
  const port = PORT_SUFFIX.exec(value);
  if (port !== null) {
    const number = Number(port[1]);
    if (number < 1 || number > 65535) {
      return null;
    }
    value = value.slice(0, port.index);
  }
  if (value.endsWith('.')) {
    value = value.slice(0, -1);
  }
  if (NON_ASCII.test(value)) {
    value = domainToASCII(value);
  }
  value = value.toLowerCase();
  if (value.length > 253 || !DNS_NAME.test(value) || NUMERIC_LAST_LABEL.test(value)) {
    return null;
  }
  return value;
}

function sample(line: string): string {
  return JSON.stringify(line.length > SAMPLE_LENGTH ? `${line.slice(0, SAMPLE_LENGTH)}…` : line);
}

/** The requested domain as names are compared with it: lower case, no trailing dot. */
function domainOf(context: ParseContext): string | null {
  const raw = (context.target.host ?? context.target.value).trim().toLowerCase();
  const domain = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  return domain === '' ? null : domain;
}

function subdomainFinding(name: string, asWritten: string, domain: string | null): DraftFinding {
  return {
    ruleId: 'subdomain',
    title: `Subdomain ${name}`,
    severity: 'info',
    toolSeverity: null,
    category: 'subdomain',
    location: { host: name, port: null, protocol: null, url: null },
    identifiers: { cve: [], cwe: [] },
    description:
      `sublist3r listed ${name} as a subdomain${domain === null ? '' : ` of ${domain}`}, from ` +
      'search engines, certificate transparency, passive DNS or DNS brute force. It is an asset to ' +
      'review; names from search sources are not checked to still resolve or be in use.',
    evidence: `sublist3r output line: ${asWritten}`,
    remediation: null,
    references: [],
    raw: { name, asWritten },
  };
}

// ---------------------------------------------------------------------------------------------
// The whole report.

class Sublist3rParser implements Sublist3rStreamingParser {
  private readonly domain: string | null;
  private readonly seen = new Set<string>();
  private readonly findings: DraftFinding[] = [];
  /** `\n` and `\r` both end a line: CRLF then gives an empty line, which is skipped. */
  private readonly splitter = createLineSplitter(
    { maxChars: MAX_LINE_LENGTH, carriageReturnEndsLine: true },
    (text, cut) => this.finishLine(text, cut),
  );
  private lines = 0;
  private invalid = 0;
  private firstInvalid: string | null = null;
  private outside = 0;
  private firstOutside: string | null = null;
  private duplicates = 0;
  private overCap = 0;
  private ended: Sublist3rParseResult | null = null;

  constructor(context: ParseContext) {
    this.domain = domainOf(context);
  }

  write(chunk: string): void {
    if (this.ended !== null || typeof chunk !== 'string') {
      return;
    }
    this.splitter.write(chunk);
  }

  end(): Sublist3rParseResult {
    if (this.ended === null) {
      this.splitter.end();
      this.ended = this.result();
    }
    return this.ended;
  }

  /** A line longer than MAX_LINE_LENGTH (`tooLong`) is counted, never read. */
  private finishLine(line: string, tooLong: boolean): void {
    const text = line.trim();
    if (text === '' && !tooLong) {
      return;
    }
    this.lines += 1;
    const name = tooLong ? null : hostNameOf(text);
    if (name === null) {
      this.invalid += 1;
      this.firstInvalid ??= text;
      return;
    }
    const domain = this.domain;
    if (domain !== null && name !== domain && !name.endsWith(`.${domain}`)) {
      this.outside += 1;
      this.firstOutside ??= text;
      return;
    }
    if (name === domain || this.seen.has(name)) {
      this.duplicates += 1;
      return;
    }
    if (this.seen.size >= MAX_SUBDOMAINS) {
      this.overCap += 1;
      return;
    }
    this.seen.add(name);
    this.findings.push(subdomainFinding(name, text, domain));
  }

  private result(): Sublist3rParseResult {
    const warnings: string[] = [];
    if (this.invalid > 0) {
      warnings.push(
        `${this.invalid} line(s) of the sublist3r output are not host names and were skipped (first: ${sample(this.firstInvalid ?? '')})`,
      );
      if (this.invalid === this.lines) {
        warnings.push('the report does not look like sublist3r output: no line is a host name');
      }
    }
    if (this.outside > 0) {
      warnings.push(
        `${this.outside} name(s) outside ${this.domain ?? 'the domain'} were skipped (first: ${sample(this.firstOutside ?? '')})`,
      );
    }
    if (this.overCap > 0) {
      warnings.push(
        `sublist3r listed more than ${MAX_SUBDOMAINS} distinct names; ${this.overCap} more were not kept`,
      );
    }
    return {
      findings: this.findings,
      warnings,
      lines: this.lines,
      invalidLines: this.invalid,
      outsideDomain: this.outside,
      duplicates: this.duplicates,
    };
  }
}

/**
 * A streaming parser of sublist3r's output for one scan: `write` the report in chunks of any
 * size, then `end` once. Never throws.
 */
export function createSublist3rParser(context: ParseContext): Sublist3rStreamingParser {
  return new Sublist3rParser(context);
}

/**
 * Parses sublist3r's `-o` output into one `info` finding (ruleId and category `subdomain`) per
 * distinct lower-cased host name under the target domain. Never throws: empty input gives nothing;
 * lines that are not host names, names outside the domain and names beyond MAX_SUBDOMAINS are
 * counted in warnings. Equal to writing `text` to `createSublist3rParser` in any chunks.
 * @example parseSublist3rOutput('WWW.example.com\r\nwww.example.com\r\n', { target }).findings.length // 1
 */
export function parseSublist3rOutput(text: string, context: ParseContext): Sublist3rParseResult {
  const parser = new Sublist3rParser(context);
  parser.write(text);
  return parser.end();
}
