/**
 * wapiti reports to findings. Deterministic and free of I/O: the worker adds ids and times.
 *
 * The format is told by the first character that is not whitespace (or a byte-order mark): `{`
 * is the JSON report the engine asks for, read as it streams in (parse-json.ts); `<` is the XML
 * report, collected and read at the end (parse-xml.ts); anything else is refused with a warning
 * and not kept. Both formats become the same entries, and findings.ts makes the findings.
 */
import type { ParseResult } from '../../domain/findings/finding.js';
import type { ParseContext, StreamingReportParser } from '../engine.js';
import { buildFindings } from './findings.js';
import { createJsonReportReader, type JsonReportReader } from './parse-json.js';
import { readXmlReport } from './parse-xml.js';
import type { ReportModel } from './report-model.js';

/** XML is only ever read whole; a larger XML report is read up to here, as a cut-off one. */
const MAX_XML_CHARS = 64 * 1024 * 1024;

type Mode =
  | { readonly kind: 'undecided' }
  | { readonly kind: 'json'; readonly reader: JsonReportReader }
  | { readonly kind: 'xml'; readonly parts: string[]; readonly length: number }
  | { readonly kind: 'other' };

const LEADING_SPACE = /^[\s\uFEFF]*/;

function decide(text: string): Mode {
  const first = text.replace(LEADING_SPACE, '')[0];
  if (first === undefined) {
    return { kind: 'undecided' };
  }
  const rest = text.replace(LEADING_SPACE, '');
  if (first === '{') {
    const reader = createJsonReportReader();
    reader.write(rest);
    return { kind: 'json', reader };
  }
  if (first === '<') {
    const start = rest.slice(0, MAX_XML_CHARS);
    return { kind: 'xml', parts: [start], length: start.length };
  }
  return { kind: 'other' };
}

function finish(
  read: { readonly model: ReportModel; readonly warnings: readonly string[] },
  context: ParseContext,
): ParseResult {
  const built = buildFindings(read.model, context.target);
  return { findings: built.findings, warnings: [...read.warnings, ...built.warnings] };
}

/**
 * A streaming parser for one wapiti report. `write` takes the text in chunks of any size;
 * `end` returns the findings. Never throws: empty, cut-off, malformed or foreign input gives what
 * could be read plus warnings, the same for every way of splitting the text.
 */
export function createWapitiParser(context: ParseContext): StreamingReportParser {
  let mode: Mode = { kind: 'undecided' };
  return {
    write(chunk) {
      if (typeof chunk !== 'string' || chunk === '') {
        return;
      }
      switch (mode.kind) {
        case 'undecided':
          mode = decide(chunk);
          break;
        case 'json':
          mode.reader.write(chunk);
          break;
        case 'xml':
          if (mode.length < MAX_XML_CHARS) {
            const room = MAX_XML_CHARS - mode.length;
            mode.parts.push(chunk.slice(0, room));
            mode = { ...mode, length: mode.length + Math.min(chunk.length, room) };
          }
          break;
        case 'other':
          break;
      }
    },
    end() {
      switch (mode.kind) {
        case 'undecided':
          return { findings: [], warnings: ['wapiti wrote no report (the output is empty)'] };
        case 'other':
          return {
            findings: [],
            warnings: ['the output is not a wapiti report: neither a JSON object nor XML'],
          };
        case 'json':
          return finish(mode.reader.end(), context);
        case 'xml': {
          const read = readXmlReport(mode.parts.join(''));
          const capped =
            mode.length >= MAX_XML_CHARS
              ? ['the XML report is larger than 64 Mi characters: only its start was read']
              : [];
          return finish({ model: read.model, warnings: [...read.warnings, ...capped] }, context);
        }
      }
    },
  };
}

/**
 * Parses a whole wapiti report (JSON from 3.0 on, or XML) into findings: one per entry of every
 * category. Exactly what `createWapitiParser` gives for the same text in any chunks.
 */
export function parseWapitiReport(report: string, context: ParseContext): ParseResult {
  const parser = createWapitiParser(context);
  parser.write(report);
  return parser.end();
}
