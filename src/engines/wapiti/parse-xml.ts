/**
 * Reads wapiti's XML report (`--format xml`, 3.0 and later) into the shared report model:
 *
 *     <report type="security">
 *       <report_infos><info name="generatorVersion">Wapiti 3.0.4</info> … </report_infos>
 *       <vulnerabilities>
 *         <vulnerability name="<category>">
 *           <description>, <solution>, <references><reference><title/><url/></reference>…
 *           <entries><entry><method/><path/><level/><parameter/><info/><http_request/>
 *                    <curl_command/></entry>…</entries>
 *       <anomalies><anomaly name=…> … and <additionals><additional name=…> … alike
 *
 * Security: fast-xml-parser does no I/O, and with `processEntities: false` no DTD entity is
 * ever expanded (no XXE, no "billion laughs"); the five XML entities and character references
 * are decoded here, only in text outside CDATA sections.
 *
 * A cut-off report (no `</report>`) is closed after its last complete element, so every complete
 * entry still counts.
 */
import { type X2jOptions, XMLParser } from 'fast-xml-parser';
import { attr, isNode, list, textOf, XML_TREE_OPTIONS, type XmlNode } from '../xml-tree.js';
import {
  type Classification,
  cut,
  emptyModel,
  levelOf,
  type ReportEntry,
  type ReportModel,
  type ReportSection,
} from './report-model.js';

/** Section element → its item element. */
const SECTION_ITEMS: ReadonlyArray<readonly [ReportSection, string]> = [
  ['vulnerabilities', 'vulnerability'],
  ['anomalies', 'anomaly'],
  ['additionals', 'additional'],
];

const REPEATED: ReadonlySet<string> = new Set([
  'vulnerability',
  'anomaly',
  'additional',
  'entry',
  'reference',
]);

const OPTIONS: X2jOptions = {
  ...XML_TREE_OPTIONS,
  cdataPropName: '#cdata',
  isArray: (name, jpath) => REPEATED.has(name) || jpath === 'report.report_infos.info',
};

let xmlParser: XMLParser | undefined;

/**
 * Child elements of a node (or of anything else: none). Unlike the shared `nodes`, a text-only
 * or empty element keeps its text as `#text`, so an `<info>` without attributes is still read.
 */
function nodes(parent: unknown, name: string): XmlNode[] {
  return list(isNode(parent) ? parent[name] : undefined).map((item) =>
    isNode(item) ? item : { '#text': item },
  );
}

/** A node's text: entity-decoded text plus verbatim CDATA; '' for none. */
function nodeText(node: unknown): string {
  return textOf(node) ?? '';
}

/** The text of a child element (its first occurrence). */
function text(parent: unknown, name: string): string {
  return nodeText(list(isNode(parent) ? parent[name] : undefined)[0]);
}

function nonEmpty(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function classificationOf(item: XmlNode): Classification {
  return {
    description: nonEmpty(cut(text(item, 'description'), 8000)),
    solution: nonEmpty(cut(text(item, 'solution'), 8000)),
    references: nodes(item.references, 'reference').map((reference) => ({
      title: cut(text(reference, 'title').trim(), 300),
      url: cut(text(reference, 'url').trim(), 500),
    })),
  };
}

function entryOf(section: ReportSection, category: string, entry: XmlNode): ReportEntry {
  return {
    section,
    category: cut(category, 200),
    method: cut(text(entry, 'method').trim(), 16).toUpperCase() || 'GET',
    path: cut(text(entry, 'path')),
    info: cut(text(entry, 'info')),
    level: levelOf(text(entry, 'level')),
    parameter: cut(text(entry, 'parameter'), 200),
    httpRequest: cut(text(entry, 'http_request')),
    curlCommand: cut(text(entry, 'curl_command')),
    module: nonEmpty(cut(text(entry, 'module'), 64)),
    // 3.0.4 writes no WSTG codes in XML; later versions' XML layout for them is not read.
    wstg: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Cut-off documents.

/** Elements after whose end tag a document can be cut and closed again. */
const CUT_POINTS: ReadonlySet<string> = new Set([
  'entry',
  'entries',
  'vulnerability',
  'anomaly',
  'additional',
  'report_infos',
  'vulnerabilities',
  'anomalies',
  'additionals',
]);

/**
 * The document up to the end of its last complete element of CUT_POINTS, with the elements
 * still open there closed; null when there is none. Tags are tracked outside CDATA sections,
 * comments and processing instructions (a request in CDATA may contain `<`). Linear.
 */
export function closeTruncatedXml(xml: string): string | null {
  const stack: string[] = [];
  let best: { end: number; open: readonly string[] } | null = null;
  let index = xml.indexOf('<');
  while (index !== -1) {
    const skipTo = xml.startsWith('<![CDATA[', index)
      ? ']]>'
      : xml.startsWith('<!--', index)
        ? '-->'
        : xml.startsWith('<?', index) || xml.startsWith('<!', index)
          ? '>'
          : null;
    const close = xml.indexOf(skipTo ?? '>', index);
    if (close === -1) {
      break;
    }
    const end = close + (skipTo ?? '>').length;
    if (skipTo === null) {
      const tag = xml.slice(index + 1, close);
      const name = /^\/?([A-Za-z_][\w.-]*)/.exec(tag)?.[1] ?? '';
      if (tag.startsWith('/')) {
        stack.pop();
        if (CUT_POINTS.has(name)) {
          best = { end, open: [...stack] };
        }
      } else if (!tag.endsWith('/')) {
        stack.push(name);
      }
    }
    index = xml.indexOf('<', end);
  }
  if (best === null) {
    return null;
  }
  const closing = [...best.open]
    .reverse()
    .map((name) => `</${name}>`)
    .join('');
  return `${xml.slice(0, best.end)}${closing}`;
}

// ---------------------------------------------------------------------------------------------

/** The parsed document, or the parser's complaint (the same for the same text). */
function parseXml(xml: string): { readonly tree: unknown } | { readonly error: string } {
  xmlParser ??= new XMLParser(OPTIONS);
  try {
    return { tree: xmlParser.parse(xml) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function readReport(report: XmlNode): ReportModel {
  const model = emptyModel();
  const infos = new Map(
    nodes(report.report_infos, 'info').map((info) => [attr(info, 'name') ?? '', nodeText(info)]),
  );
  model.infos = {
    target: nonEmpty(infos.get('target') ?? ''),
    version: nonEmpty(infos.get('generatorVersion') ?? ''),
    scope: nonEmpty(infos.get('scope') ?? ''),
  };
  for (const [section, itemName] of SECTION_ITEMS) {
    for (const item of nodes(report[section], itemName)) {
      const category = attr(item, 'name') ?? '';
      if (!model.classifications.has(category)) {
        model.classifications.set(category, classificationOf(item));
      }
      for (const entry of nodes(item.entries, 'entry')) {
        model.entries.push(entryOf(section, category, entry));
      }
    }
  }
  return model;
}

/**
 * A wapiti XML report as the shared model, with warnings. Never throws: a cut-off document is
 * closed after its last complete element; anything unreadable gives an empty model and a warning.
 */
export function readXmlReport(xml: string): { model: ReportModel; warnings: string[] } {
  const complete = /<\/report>\s*$/.test(xml);
  const closed = complete ? xml : closeTruncatedXml(xml);
  const parsed = closed === null ? null : parseXml(closed);
  if (parsed !== null && 'error' in parsed) {
    return {
      model: emptyModel(),
      warnings: [`the XML report could not be read: ${cut(parsed.error, 200)}`],
    };
  }
  const report = isNode(parsed?.tree) ? nodes(parsed.tree, 'report')[0] : undefined;
  if (report === undefined) {
    const legacy = /<vulnerabilityTypeList\b/.test(xml);
    return {
      model: emptyModel(),
      warnings: [
        legacy
          ? 'the XML is an old wapiti 2.x report (<vulnerabilityTypeList>), which is not read'
          : 'the XML is not a readable wapiti report (no <report> element)',
      ],
    };
  }
  const model = readReport(report);
  const warnings = complete
    ? []
    : [
        `the XML report is truncated (no </report>): the scan may not have finished; findings come from the ${model.entries.length} complete entr(y/ies)`,
      ];
  return { model, warnings };
}
