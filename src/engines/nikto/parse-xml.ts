/**
 * nikto's XML report (`-Format xml`), which the service does not ask for but older reports use:
 * `<niktoscan>` → `<scandetails targetip targethostname targetport targetbanner sitename …>` →
 * optional `<ssl>` → `<item id osvdbid method>` with `<description>`, `<uri>`, `<namelink>`,
 * `<iplink>` (CDATA). nikto 2.1.6 wraps everything in a second outer `<niktoscan>`; 2.1.5 has a
 * single root. Parsed whole (the XML is small and never the format asked for).
 *
 * Security: as for nmap, fast-xml-parser does no I/O, so the DOCTYPE's `nikto.dtd` is never
 * loaded, and with `processEntities: false` no DTD-declared entity is expanded. The five XML
 * entities and character references are decoded here, in text outside CDATA and in attributes.
 */
import { type X2jOptions, XMLParser } from 'fast-xml-parser';
import type { DraftFinding } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { attr, isNode, nodes, textOf, XML_TREE_OPTIONS, type XmlNode } from '../xml-tree.js';
import { type NiktoHost, type NiktoItem, niktoItemOutcome } from './finding.js';

const REPEATED: ReadonlySet<string> = new Set(['niktoscan', 'scandetails', 'item', 'ssl']);

const OPTIONS: X2jOptions = {
  ...XML_TREE_OPTIONS,
  cdataPropName: '#cdata',
  isArray: (name) => REPEATED.has(name),
};

let parser: XMLParser | undefined;

/** Built on first use (no work at import time); XMLParser keeps no state between parses. */
function getParser(): XMLParser {
  parser ??= new XMLParser(OPTIONS);
  return parser;
}

function schemeOf(details: XmlNode): 'http' | 'https' | null {
  const site = attr(details, 'sitename') ?? '';
  if (/^https:/i.test(site)) {
    return 'https';
  }
  if (nodes(details, 'ssl').length > 0) {
    return 'https';
  }
  return /^http:/i.test(site) ? 'http' : null;
}

function hostOf(details: XmlNode): NiktoHost {
  const port = attr(details, 'targetport')?.trim() ?? '';
  const number = /^\d{1,5}$/.test(port) ? Number(port) : Number.NaN;
  return {
    hostname: attr(details, 'targethostname'),
    ip: attr(details, 'targetip'),
    port: number <= 65535 ? number : null,
    banner: attr(details, 'targetbanner'),
    scheme: schemeOf(details),
  };
}

function itemOf(node: XmlNode): NiktoItem {
  return {
    id: attr(node, 'id') ?? '',
    osvdb: attr(node, 'osvdbid'),
    method: attr(node, 'method'),
    path: textOf(node.uri),
    message: textOf(node.description) ?? '',
    references: [],
    link: textOf(node.namelink),
  };
}

/** Every `<scandetails>` under the (possibly nested) `<niktoscan>` elements. */
function scanDetails(scan: XmlNode, depth = 0): XmlNode[] {
  return [
    ...nodes(scan, 'scandetails'),
    ...(depth < 3
      ? nodes(scan, 'niktoscan').flatMap((inner) => scanDetails(inner, depth + 1))
      : []),
  ];
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

/**
 * A cut-off document made parseable: everything up to the last complete `</item>`, then closing
 * tags for the `<scandetails>` and `<niktoscan>` elements still open. Null when no item is
 * complete.
 */
function salvage(xml: string): string | null {
  const end = xml.lastIndexOf('</item>');
  if (end === -1) {
    return null;
  }
  const kept = xml.slice(0, end + '</item>'.length);
  const openDetails = count(kept, /<scandetails[\s>]/g) - count(kept, /<\/scandetails>/g);
  const openScans = count(kept, /<niktoscan[\s>]/g) - count(kept, /<\/niktoscan>/g);
  return `${kept}${'</scandetails>'.repeat(Math.max(openDetails, 0))}${'</niktoscan>'.repeat(Math.max(openScans, 0))}`;
}

export interface XmlReadResult {
  readonly findings: readonly DraftFinding[];
  readonly warnings: readonly string[];
}

function failed(warning: string): XmlReadResult {
  return { findings: [], warnings: [warning] };
}

/**
 * nikto XML (2.1.5 flat, 2.1.6 nested) to findings. Never throws: a document that is not nikto
 * XML, not well-formed or cut off gives warnings, and a cut-off one still yields every complete
 * `<item>`.
 */
export function readNiktoXml(xml: string, target: ScanTarget): XmlReadResult {
  const root = xml.search(/<niktoscan[\s>]/);
  if (root === -1) {
    return failed('the XML is not a nikto report: no <niktoscan> element');
  }
  const complete = xml.lastIndexOf('</niktoscan>') > root;
  const text = complete ? xml : salvage(xml);
  if (text === null) {
    return failed('nikto XML is truncated before its first complete <item>: nothing was read');
  }
  let parsed: unknown;
  try {
    parsed = getParser().parse(text);
  } catch (error) {
    return failed(
      `nikto XML is not well-formed: ${error instanceof Error ? error.message : error}`,
    );
  }
  const scans = isNode(parsed) ? nodes(parsed, 'niktoscan') : [];
  const findings: DraftFinding[] = [];
  const warnings: string[] = [];
  for (const details of scans.flatMap((scan) => scanDetails(scan))) {
    const host = hostOf(details);
    for (const node of nodes(details, 'item')) {
      const outcome = niktoItemOutcome(itemOf(node), host, target);
      if (outcome.kind === 'finding') {
        findings.push(outcome.finding);
      } else {
        warnings.push(outcome.warning);
      }
    }
  }
  if (!complete) {
    warnings.push(
      `nikto XML is truncated (no closing </niktoscan>): findings come from the ${findings.length} complete <item> element(s)`,
    );
  }
  return { findings, warnings };
}
