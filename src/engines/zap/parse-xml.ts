/**
 * The traditional XML report (`traditional-xml` / `-plus`, `zap-baseline.py -x`, the API's
 * `xmlreport`): `<OWASPZAPReport version generated>` → `<site name host port ssl>` → `<alerts>` →
 * `<alertitem>` with the JSON keys as child elements and `<instances><instance>`; 2.12+ adds
 * `<confidencedesc>`, `<tags>` and `<statistics>`, the "plus" variant request and response
 * headers and bodies per instance. We ask ZAP for JSON; the XML reader is for reports from
 * elsewhere and the older fixtures. Unlike the JSON reader it parses the whole text at once
 * (fast-xml-parser has no streaming mode), so the text is capped.
 *
 * Security: fast-xml-parser does no I/O, and with `processEntities: false` no DTD-declared entity
 * is ever expanded; the five XML entities and character references are decoded here, only in the
 * values used. Request/response bodies and statistics are stop nodes: kept as unparsed text and
 * never read.
 */
import { type X2jOptions, XMLParser, XMLValidator } from 'fast-xml-parser';
import {
  child,
  endOfLast,
  isNode,
  list,
  nodes,
  rawText,
  XML_TREE_OPTIONS,
  type XmlNode,
} from '../xml-tree.js';
import {
  alertOf,
  capText,
  MAX_ALERT_TEXT,
  MAX_INSTANCE_TEXT,
  MAX_INSTANCES_PER_ALERT,
  type ZapAlert,
  type ZapFindingCollector,
  type ZapInstance,
  type ZapSite,
} from './alerts.js';
import { decodeEntities } from './html-text.js';

/** Characters of XML read; a longer report is cut there and salvaged like a truncated one. */
export const MAX_XML_CHARS = 64 * 1024 * 1024;

const OPTIONS: X2jOptions = {
  ...XML_TREE_OPTIONS,
  jPath: false,
  stopNodes: [
    '*.requestheader',
    '*.requestbody',
    '*.responseheader',
    '*.responsebody',
    'OWASPZAPReport.statistics',
    'OWASPZAPReport.site.statistics',
  ],
};

let parser: XMLParser | undefined;

/** Built on first use (no work at import time); XMLParser keeps no state between parses. */
function getParser(): XMLParser {
  parser ??= new XMLParser(OPTIONS);
  return parser;
}

/**
 * Text of a child element, capped; '' when absent. Decoded with `decodeEntities` (the HTML set:
 * also `&nbsp;` and the like, with `&#X…;`), not the XML-only `decodeXml`.
 */
function text(parent: XmlNode | undefined, name: string, max: number): string {
  const raw = rawText(list(parent?.[name])[0]);
  return raw === null ? '' : capText(decodeEntities(raw), max);
}

/** An attribute, decoded like `text`, capped; '' when absent. */
function attr(node: XmlNode | undefined, name: string): string {
  const value = node?.[`@${name}`];
  return typeof value === 'string' ? capText(decodeEntities(value), MAX_INSTANCE_TEXT) : '';
}

const ROOT_END = '</OWASPZAPReport>';

/**
 * A cut-off report made parseable: up to the last complete `</alertitem>` (then the open
 * `<alerts>` and `<site>` are closed) or `</site>`, whichever is later, then the root end tag.
 * Null when not even one of them is there.
 */
function salvage(xml: string, root: number): string | null {
  const alertEnd = endOfLast(xml, ['</alertitem>'], root);
  const siteEnd = endOfLast(xml, ['</site>'], root);
  if (siteEnd > alertEnd) {
    return `${xml.slice(0, siteEnd)}${ROOT_END}`;
  }
  if (alertEnd !== -1) {
    return `${xml.slice(0, alertEnd)}</alerts></site>${ROOT_END}`;
  }
  return null;
}

function readInstance(node: XmlNode): ZapInstance {
  return {
    uri: text(node, 'uri', MAX_INSTANCE_TEXT),
    method: text(node, 'method', MAX_INSTANCE_TEXT),
    param: text(node, 'param', MAX_INSTANCE_TEXT),
    attack: text(node, 'attack', MAX_INSTANCE_TEXT),
    evidence: text(node, 'evidence', MAX_INSTANCE_TEXT),
    otherinfo: text(node, 'otherinfo', MAX_INSTANCE_TEXT),
  };
}

function readAlert(node: XmlNode): { alert: ZapAlert; dropped: number } {
  const field = (name: string) => text(node, name, MAX_ALERT_TEXT);
  const all = nodes(child(node, 'instances'), 'instance');
  const tags = nodes(child(node, 'tags'), 'tag').map((tag) => ({
    tag: text(tag, 'tag', MAX_INSTANCE_TEXT),
    link: text(tag, 'link', MAX_INSTANCE_TEXT),
  }));
  return {
    alert: alertOf(field, tags, all.slice(0, MAX_INSTANCES_PER_ALERT).map(readInstance)),
    dropped: Math.max(0, all.length - MAX_INSTANCES_PER_ALERT),
  };
}

/**
 * Reads one traditional XML report into the collector. Never throws: returns the reader's
 * warnings and whether a whole ZAP report was read.
 */
export function readZapXml(
  xml: string,
  collector: ZapFindingCollector,
  cut: boolean,
): { readonly warnings: string[]; readonly complete: boolean } {
  const root = xml.indexOf('<OWASPZAPReport');
  if (root === -1) {
    return {
      warnings: ['the XML is not a ZAP report: no <OWASPZAPReport> element'],
      complete: false,
    };
  }
  const warnings: string[] = [];
  let document = xml;
  if (cut || xml.lastIndexOf(ROOT_END) < root) {
    const salvaged = salvage(xml, root);
    warnings.push(
      cut
        ? `the ZAP XML report is longer than ${MAX_XML_CHARS} characters: only its start was read`
        : `the ZAP XML report is cut off (no ${ROOT_END}): findings come from the complete alerts before that point`,
    );
    if (salvaged === null) {
      return { warnings, complete: false };
    }
    document = salvaged;
  }
  let parsed: unknown;
  try {
    // The parser itself is lenient (a mismatched end tag passes); the validator is not.
    const valid = XMLValidator.validate(document);
    if (valid !== true) {
      throw new Error(`${valid.err.msg} (line ${valid.err.line})`);
    }
    parsed = getParser().parse(document);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      warnings: [...warnings, `the ZAP XML report is not well-formed: ${capText(message, 200)}`],
      complete: false,
    };
  }
  const report = isNode(parsed) ? child(parsed, 'OWASPZAPReport') : undefined;
  if (report === undefined) {
    return {
      warnings: [...warnings, 'the XML is not a ZAP report: <OWASPZAPReport> is not the root'],
      complete: false,
    };
  }
  for (const siteNode of nodes(report, 'site')) {
    collector.addSite();
    const site: ZapSite = {
      name: attr(siteNode, 'name'),
      host: attr(siteNode, 'host'),
      port: attr(siteNode, 'port'),
      ssl: attr(siteNode, 'ssl'),
    };
    for (const alertNode of nodes(child(siteNode, 'alerts'), 'alertitem')) {
      const { alert, dropped } = readAlert(alertNode);
      collector.addAlert(site, alert);
      if (dropped > 0) {
        collector.addDroppedInstances(dropped);
      }
    }
  }
  return { warnings, complete: warnings.length === 0 };
}
