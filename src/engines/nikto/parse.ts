/**
 * nikto report text to findings, pushed in chunks (`createNiktoParser`) or whole (`parseNiktoReport`,
 * which is the same parser fed once, so both always agree). Deterministic and free of I/O.
 *
 * The format is told from the first character that is not whitespace (or a byte-order mark):
 * `[` or `{` is nikto JSON, read as a stream (parse-json.ts); `<` is nikto XML, collected and read
 * whole at the end (parse-xml.ts); anything else is not a nikto report and gives a warning.
 * README.md has the finding mapping.
 */
import type { ParseResult } from '../../domain/findings/finding.js';
import type { ParseContext, StreamingReportParser } from '../engine.js';
import { NiktoJsonReader } from './parse-json.js';
import { readNiktoXml } from './parse-xml.js';

/**
 * XML is read whole, so it is collected only up to this size (the service asks for JSON; XML is
 * for older reports). Beyond it the start is parsed as a cut-off document.
 */
export const MAX_XML_CHARS = 64 * 1024 * 1024;

/** How much of unrecognised input is kept to quote in the warning. */
const QUOTE_CHARS = 40;

type Mode =
  | { readonly kind: 'undecided'; pending: string }
  | { readonly kind: 'json'; readonly reader: NiktoJsonReader }
  | { readonly kind: 'xml'; readonly parts: string[]; size: number; cut: boolean }
  | { readonly kind: 'other'; readonly start: string };

const LEADING_SPACE = /^[\s\uFEFF]*/;

/**
 * A streaming nikto report parser: `write` each chunk, then `end` once. Never throws; `end` returns
 * what could be read, with warnings for empty, unknown, malformed or cut-off input.
 */
export function createNiktoParser(context: ParseContext): StreamingReportParser {
  let mode: Mode = { kind: 'undecided', pending: '' };

  const decide = (text: string): void => {
    const first = text.charAt(0);
    if (first === '[' || first === '{') {
      const reader = new NiktoJsonReader(context.target);
      reader.write(text);
      mode = { kind: 'json', reader };
    } else if (first === '<') {
      mode = { kind: 'xml', parts: [], size: 0, cut: false };
      collectXml(mode, text);
    } else {
      mode = { kind: 'other', start: text.slice(0, QUOTE_CHARS) };
    }
  };

  return {
    write(chunk: string): void {
      if (typeof chunk !== 'string' || chunk === '') {
        return;
      }
      switch (mode.kind) {
        case 'undecided': {
          const text = (mode.pending + chunk).replace(LEADING_SPACE, '');
          if (text === '') {
            mode.pending = '';
          } else {
            decide(text);
          }
          break;
        }
        case 'json':
          mode.reader.write(chunk);
          break;
        case 'xml':
          collectXml(mode, chunk);
          break;
        case 'other':
          break;
      }
    },
    end(): ParseResult {
      switch (mode.kind) {
        case 'undecided':
          return { findings: [], warnings: ['nikto wrote an empty report'] };
        case 'json':
          return mode.reader.end();
        case 'xml': {
          const result = readNiktoXml(mode.parts.join(''), context.target);
          return mode.cut
            ? {
                findings: result.findings,
                warnings: [
                  ...result.warnings,
                  `the XML report is larger than ${MAX_XML_CHARS} characters; only its start was read`,
                ],
              }
            : result;
        }
        case 'other':
          return {
            findings: [],
            warnings: [
              `the report is not nikto JSON or XML (it starts with ${JSON.stringify(mode.start)})`,
            ],
          };
      }
    },
  };
}

function collectXml(
  mode: { readonly parts: string[]; size: number; cut: boolean },
  chunk: string,
): void {
  const room = MAX_XML_CHARS - mode.size;
  if (room <= 0) {
    mode.cut = true;
    return;
  }
  const kept = chunk.length <= room ? chunk : chunk.slice(0, room);
  mode.cut ||= kept.length < chunk.length;
  mode.parts.push(kept);
  mode.size += kept.length;
}

/**
 * A whole nikto report (JSON of 2.1.6 or 2.5, XML of 2.1.5 or 2.1.6) to findings and warnings.
 * @example parseNiktoReport('[]', { target }) // { findings: [], warnings: [] }
 */
export function parseNiktoReport(report: string, context: ParseContext): ParseResult {
  const parser = createNiktoParser(context);
  parser.write(report);
  return parser.end();
}
