/**
 * ZAP reports to findings. Deterministic and free of I/O: the worker adds ids and times.
 *
 * The format is told by the first character that is not whitespace (or a byte-order mark):
 * `{`/`[` is JSON (the `traditional-json` report the plan asks for, read as a stream with bounded
 * memory), `<` is XML (the traditional XML report of other ZAP runs), anything else is not a ZAP
 * report. `parseZapReport(text)` is `createZapParser()` fed the whole text, so both agree for any
 * chunking. Neither ever throws: empty, cut-off, damaged or foreign input gives what could be
 * read plus warnings.
 */
import type { ParseResult } from '../../domain/findings/finding.js';
import type { StreamingReportParser } from '../engine.js';
import { ZapFindingCollector } from './alerts.js';
import { ZapJsonReader } from './parse-json.js';
import { MAX_XML_CHARS, readZapXml } from './parse-xml.js';

type Reader =
  | { readonly kind: 'undecided' }
  | { readonly kind: 'json'; readonly reader: ZapJsonReader }
  | { readonly kind: 'xml'; readonly parts: string[]; length: number; cut: boolean }
  | { readonly kind: 'other' };

const LEADING_SPACE = /^[\s\uFEFF]*/;

/**
 * A streaming parser for one ZAP report (JSON or XML). `write` each chunk, then `end` once.
 * @example const p = createZapParser(); p.write(a); p.write(b); p.end().findings
 */
export function createZapParser(): StreamingReportParser {
  const collector = new ZapFindingCollector();
  let state: Reader = { kind: 'undecided' };

  /** Picks the reader from the first character that is not whitespace; none yet: wait. */
  function decide(text: string): void {
    const start = LEADING_SPACE.exec(text)?.[0].length ?? 0;
    if (start === text.length) {
      return;
    }
    const first = text[start];
    const body = text.slice(start);
    if (first === '{' || first === '[') {
      const reader = new ZapJsonReader(collector);
      state = { kind: 'json', reader };
      reader.write(body);
    } else if (first === '<') {
      state = { kind: 'xml', parts: [], length: 0, cut: false };
      addXml(body);
    } else {
      state = { kind: 'other' };
    }
  }

  function addXml(chunk: string): void {
    if (state.kind !== 'xml' || state.cut) {
      return;
    }
    const room = MAX_XML_CHARS - state.length;
    const piece = chunk.length <= room ? chunk : chunk.slice(0, room);
    state.parts.push(piece);
    state.length += piece.length;
    state.cut = chunk.length > room;
  }

  return {
    write(chunk: string): void {
      switch (state.kind) {
        case 'undecided':
          // Whitespace only so far, which neither reader needs.
          decide(chunk);
          return;
        case 'json':
          state.reader.write(chunk);
          return;
        case 'xml':
          addXml(chunk);
          return;
        case 'other':
          return;
      }
    },
    end(): ParseResult {
      switch (state.kind) {
        case 'undecided':
          return { findings: [], warnings: ['ZAP wrote an empty report'] };
        case 'other':
          return {
            findings: [],
            warnings: ['the report is neither ZAP JSON nor ZAP XML'],
          };
        case 'json': {
          const { warnings, complete } = state.reader.end();
          return collector.result(warnings, complete);
        }
        case 'xml': {
          const { warnings, complete } = readZapXml(state.parts.join(''), collector, state.cut);
          return collector.result(warnings, complete);
        }
      }
    },
  };
}

/**
 * Parses a whole ZAP report (traditional JSON of any version from 2.9, or traditional XML).
 * @example parseZapReport(readFileSync('report.json', 'utf8')).findings.length
 */
export function parseZapReport(text: string): ParseResult {
  const parser = createZapParser();
  parser.write(typeof text === 'string' ? text : '');
  return parser.end();
}
