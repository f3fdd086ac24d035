/**
 * theHarvester reports to findings. Deterministic and free of I/O: the worker adds ids and times.
 *
 * theHarvester finds assets, not weaknesses: every distinct host name, IP address, e-mail
 * address, autonomous system (ASN) and URL becomes one `info` finding. The JSON report that
 * `--filename` writes is read as a stream (`createHarvesterParser`: only the elements of the
 * asset lists are ever built, so memory grows with the number of distinct assets, never with the
 * report's other parts such as the run evidence newer releases add). The XML report written
 * beside it is recognised too and parsed whole. Neither path ever throws: empty, cut-off, foreign
 * or garbled input gives what could be read plus warnings. The mapping is in README.md.
 *
 * Security: fast-xml-parser does no I/O and, with `processEntities: false`, expands no DTD
 * entity; the five XML entities and character references are decoded here, in values only.
 */
import {
  type ParsedElementInfo,
  type ParsedTokenInfo,
  Tokenizer,
  TokenParser,
  TokenType,
} from '@streamparser/json';
import { type X2jOptions, XMLParser } from 'fast-xml-parser';
import type { ParseResult } from '../../domain/findings/finding.js';
import type { ParseContext, StreamingReportParser } from '../engine.js';
import { endOfLast, isNode, list, textOf, XML_TREE_OPTIONS } from '../xml-tree.js';
import { AssetCollector, type AssetKind, MAX_ASSETS, quoted } from './assets.js';

/** What `parseHarvesterReport` returns besides findings and warnings. */
export interface HarvesterParseResult extends ParseResult {
  /** Which report was read: `unknown` for empty or foreign input. */
  readonly format: 'json' | 'xml' | 'unknown';
  /** False when the report was cut off, not well-formed, foreign or empty. */
  readonly complete: boolean;
}

/** The streaming parser, with the parse result's extra fields. */
export interface HarvesterReportStream extends StreamingReportParser {
  end(): HarvesterParseResult;
}

// ---------------------------------------------------------------------------------------------
// Where the reports keep their assets.

/**
 * The JSON keys whose array items are assets, and what they hold. `urls` is the name current
 * releases use for `interesting_urls`; `trello_urls` is what older ones call every other URL.
 */
const JSON_ASSET_LISTS: Readonly<Record<string, AssetKind>> = {
  hosts: 'host',
  ips: 'ip',
  emails: 'email',
  asns: 'asn',
  interesting_urls: 'url',
  urls: 'url',
  trello_urls: 'url',
};

/**
 * Keys that list people: names and profile links are personal data and say nothing about the
 * target's infrastructure, so they are never kept (a warning says they were there).
 */
const PEOPLE_KEYS: readonly string[] = [
  'people',
  'linkedin_people',
  'twitter_people',
  'linkedin_links',
];

/** Top-level keys theHarvester writes; a JSON object with none of them is someone else's. */
const HARVESTER_KEYS: ReadonlySet<string> = new Set([
  ...Object.keys(JSON_ASSET_LISTS),
  ...PEOPLE_KEYS,
  'cmd',
  'shodan',
  'vhosts',
  'takeover_results',
  'run',
  'evidence_run',
]);

/** Current releases' `<run><results><result type="…">` entries that are assets. */
const XML_RESULT_TYPES: Readonly<Record<string, AssetKind>> = {
  subdomain: 'host',
  ip: 'ip',
  email: 'email',
  asn: 'asn',
  url: 'url',
};

/** An XML report is parsed whole; past this size only its start is read. */
const MAX_XML_CHARS = 64 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The JSON report, streamed.

type JsonProgress = 'cut' | 'malformed' | 'closed' | 'not-object';

/**
 * Reads theHarvester's JSON token by token: the items of the asset lists are emitted one by one
 * (`$.hosts.*` …) and dropped once collected (`keepStack: false`); everything else, including
 * the run evidence of current releases, is never built. The top-level keys are noted from the
 * tokens to recognise the report.
 */
class JsonReportReader {
  private readonly tokenizer = new Tokenizer();
  private readonly tokens = new TokenParser({
    paths: Object.keys(JSON_ASSET_LISTS).map((key) => `$.${key}.*`),
    keepStack: false,
  });
  private depth = 0;
  private expectingKey = false;
  /** Null until the first token: then whether the top level is an object. */
  private rootIsObject: boolean | null = null;
  private failure: string | null = null;
  private rootClosed = false;
  private readonly topKeys = new Set<string>();

  constructor(private readonly collector: AssetCollector) {
    this.tokenizer.onToken = (token) => this.onToken(token);
    this.tokenizer.onError = (error) => this.fail(error);
    this.tokens.onValue = (info) => this.onValue(info);
    this.tokens.onError = (error) => this.fail(error);
  }

  write(chunk: string): void {
    if (this.failure !== null || this.rootIsObject === false) {
      return;
    }
    try {
      this.tokenizer.write(chunk);
    } catch (error) {
      this.fail(error);
    }
  }

  end(): {
    readonly progress: JsonProgress;
    /** Whether the object has any of theHarvester's keys. */
    readonly recognised: boolean;
    readonly warnings: string[];
  } {
    const progress: JsonProgress =
      this.rootIsObject !== true
        ? 'not-object'
        : this.rootClosed
          ? 'closed'
          : this.failure === null
            ? 'cut'
            : 'malformed';
    const recognised = [...this.topKeys].some((key) => HARVESTER_KEYS.has(key));
    return { progress, recognised, warnings: this.warnings(progress, recognised) };
  }

  private warnings(progress: JsonProgress, recognised: boolean): string[] {
    const warnings: string[] = [];
    if (progress === 'not-object') {
      return ['the report is JSON but its top level is not an object: not a theHarvester report'];
    }
    if (progress === 'cut') {
      warnings.push(
        'the JSON report is cut off (theHarvester did not finish writing it): findings come from the entries before the cut',
      );
    } else if (progress === 'malformed') {
      warnings.push(
        `the JSON report is not well-formed (${(this.failure ?? '').slice(0, 200)}): findings come from the entries before the error`,
      );
    } else if (this.failure !== null) {
      warnings.push('data after the end of the JSON report was ignored');
    }
    if (!recognised && (this.topKeys.size > 0 || progress === 'closed')) {
      warnings.push(
        'the JSON object has none of theHarvester keys (cmd, hosts, emails, ips, asns, …): not a theHarvester report',
      );
    }
    const people = PEOPLE_KEYS.filter((key) => this.topKeys.has(key));
    if (people.length > 0) {
      warnings.push(
        `theHarvester also listed people (${people.join(', ')}): names and profile links are personal data and are not kept as findings`,
      );
    }
    return warnings;
  }

  private fail(error: unknown): void {
    // The tokenizer names the position within the current chunk too; only the absolute one is
    // kept, so the message does not depend on how the report was cut into chunks.
    this.failure ??= (error instanceof Error ? error.message : String(error)).replace(
      /chunk position "[0-9]+" \(absolute position "([0-9]+)"\)/,
      'position $1',
    );
  }

  private onToken(info: ParsedTokenInfo): void {
    const { token } = info;
    // An array at the top is someone else's JSON (nikto, old trivy): it is not read on.
    this.rootIsObject ??= token === TokenType.LEFT_BRACE;
    if (!this.rootIsObject) {
      return;
    }
    if (this.rootClosed) {
      this.fail(new Error('data after the document'));
      return;
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      this.depth += 1;
      this.expectingKey = this.depth === 1;
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      this.depth -= 1;
      this.rootClosed = this.depth === 0;
    } else if (token === TokenType.COMMA) {
      this.expectingKey = this.depth === 1;
    } else if (token === TokenType.STRING && this.expectingKey) {
      this.topKeys.add(String(info.value));
      this.expectingKey = false;
    }
    this.tokens.write(info);
  }

  private onValue(info: ParsedElementInfo): void {
    const list = info.stack[1]?.key;
    const kind = typeof list === 'string' ? JSON_ASSET_LISTS[list] : undefined;
    if (typeof list === 'string' && kind !== undefined) {
      this.collector.add(kind, info.value, list);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The XML report, parsed whole.

const XML_OPTIONS: X2jOptions = {
  ...XML_TREE_OPTIONS,
  trimValues: true,
};

let xmlParser: XMLParser | undefined;

/** The legacy elements theHarvester writes at the top level, in its order. */
const XML_TOP_ELEMENTS = ['</cmd>', '</email>', '</host>', '</vhost>'];

/**
 * A cut-off XML report made parseable: everything up to the last complete top-level element,
 * then the closing root tag (theHarvester writes the whole file at the end, so this only happens
 * when the disk filled up or the process was killed while writing).
 */
function salvageXml(xml: string, root: number): string {
  const cut = endOfLast(xml, XML_TOP_ELEMENTS, root);
  const start = xml.indexOf('>', root);
  return `${xml.slice(0, cut === -1 ? start + 1 : cut)}</theHarvester>`;
}

function readXmlReport(
  xml: string,
  collector: AssetCollector,
): { complete: boolean; warnings: string[] } {
  const root = xml.indexOf('<theHarvester');
  if (root === -1 || xml.indexOf('>', root) === -1) {
    return {
      complete: false,
      warnings: ['the report is XML but has no <theHarvester> element: not a theHarvester report'],
    };
  }
  const complete = xml.lastIndexOf('</theHarvester>') > root;
  let parsed: unknown;
  try {
    xmlParser ??= new XMLParser(XML_OPTIONS);
    parsed = xmlParser.parse(complete ? xml : salvageXml(xml, root));
  } catch (error) {
    return {
      complete: false,
      warnings: [
        `the XML report is not well-formed: ${(error instanceof Error ? error.message : String(error)).slice(0, 200)}`,
      ],
    };
  }
  const report = isNode(parsed) && isNode(parsed.theHarvester) ? parsed.theHarvester : {};
  for (const email of list(report.email)) {
    collector.add('email', textOf(email), 'xml email');
  }
  for (const host of list(report.host)) {
    addXmlHost(host, collector);
  }
  const results = isNode(report.run) && isNode(report.run.results) ? report.run.results : {};
  for (const result of list(results.result)) {
    const type = isNode(result) ? result['@type'] : undefined;
    const kind = typeof type === 'string' ? XML_RESULT_TYPES[type] : undefined;
    if (kind !== undefined) {
      collector.add(kind, textOf(result), 'xml result');
    }
  }
  return {
    complete,
    warnings: complete
      ? []
      : [
          'the XML report is cut off (no </theHarvester>): findings come from the complete elements before the cut',
        ],
  };
}

/** `<host>name</host>` or `<host><ip>address</ip><hostname>name</hostname></host>`. */
function addXmlHost(host: unknown, collector: AssetCollector): void {
  if (!isNode(host) || host.hostname === undefined) {
    collector.add('host', textOf(host), 'xml host');
    return;
  }
  const name = textOf(host.hostname) ?? '';
  const values = list(host.ip).map((ip) => textOf(ip) ?? '');
  // Read like the `name:value, …` JSON entry theHarvester wrote this element from.
  collector.add('host', values.length === 0 ? name : `${name}:${values.join(',')}`, 'xml host');
}

// ---------------------------------------------------------------------------------------------
// The parser.

type Mode = 'start' | 'json' | 'xml' | 'foreign';

const LEADING_SPACE = /^[\s\uFEFF]+/;

class HarvesterReportParser implements HarvesterReportStream {
  private mode: Mode = 'start';
  private readonly collector: AssetCollector;
  private json: JsonReportReader | null = null;
  private readonly xmlParts: string[] = [];
  private xmlChars = 0;
  private foreignStart = '';
  private ended: HarvesterParseResult | null = null;

  constructor(
    private readonly scope: string,
    maxAssets: number,
  ) {
    this.collector = new AssetCollector(maxAssets);
  }

  write(chunk: string): void {
    if (this.ended !== null || typeof chunk !== 'string') {
      return;
    }
    let text = chunk;
    if (this.mode === 'start') {
      text = text.replace(LEADING_SPACE, '');
      if (text === '') {
        return;
      }
      this.mode = text.startsWith('<')
        ? 'xml'
        : text.startsWith('{') || text.startsWith('[')
          ? 'json'
          : 'foreign';
    }
    // One character more than is quoted, so the quote shows when it was shortened.
    if (this.mode === 'foreign' && this.foreignStart.length <= 40) {
      this.foreignStart += text.slice(0, 41 - this.foreignStart.length);
    }
    if (this.mode === 'json') {
      this.json ??= new JsonReportReader(this.collector);
      this.json.write(text);
    } else if (this.mode === 'xml' && this.xmlChars < MAX_XML_CHARS) {
      const part = text.slice(0, MAX_XML_CHARS - this.xmlChars);
      this.xmlParts.push(part);
      this.xmlChars += part.length;
    }
  }

  end(): HarvesterParseResult {
    this.ended ??= this.finish();
    return this.ended;
  }

  private finish(): HarvesterParseResult {
    let format: HarvesterParseResult['format'] = 'unknown';
    let complete = false;
    let warnings: string[];
    if (this.mode === 'start') {
      warnings = ['theHarvester wrote an empty report'];
    } else if (this.mode === 'foreign') {
      warnings = [
        `the report is not theHarvester output (neither a JSON object nor XML; it starts with ${quoted(this.foreignStart, 40)})`,
      ];
    } else if (this.mode === 'json' && this.json !== null) {
      const read = this.json.end();
      format = read.progress === 'not-object' ? 'unknown' : 'json';
      complete = read.progress === 'closed' && read.recognised;
      warnings = read.warnings;
    } else {
      const read = readXmlReport(this.xmlParts.join(''), this.collector);
      format = 'xml';
      complete = read.complete && this.xmlChars < MAX_XML_CHARS;
      warnings = [
        ...read.warnings,
        ...(this.xmlChars < MAX_XML_CHARS
          ? []
          : ['the XML report is larger than 64 MiB: only its start was read']),
      ];
    }
    return {
      findings: this.collector.findings(this.scope),
      warnings: [...warnings, ...this.collector.warnings()],
      format,
      complete,
    };
  }
}

/** The scanned domain, lower case without the root dot, for the in-scope notes. */
function scopeOf(context: ParseContext): string {
  return (context.target.host ?? context.target.value).trim().toLowerCase().replace(/\.$/, '');
}

/**
 * A streaming parser for one theHarvester report: feed it the text in chunks of any size, then
 * `end()`. Never throws.
 */
export function createHarvesterParser(
  context: ParseContext,
  limits: { readonly maxAssets?: number } = {},
): HarvesterReportStream {
  return new HarvesterReportParser(scopeOf(context), limits.maxAssets ?? MAX_ASSETS);
}

/**
 * Parses a theHarvester report (the JSON `--filename` writes, or the XML beside it) into one
 * `info` finding per distinct host, IP address, e-mail address, ASN and URL. Never throws: empty,
 * foreign, cut-off or garbled input gives what could be read, with warnings. The same as writing
 * `report` through `createHarvesterParser` in any chunks.
 */
export function parseHarvesterReport(report: string, context: ParseContext): HarvesterParseResult {
  const parser = createHarvesterParser(context);
  parser.write(typeof report === 'string' ? report : '');
  return parser.end();
}
