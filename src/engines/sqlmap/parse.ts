/**
 * sqlmap output to findings: the per-host `log` file (what the worker reads: `out/<host>/log`)
 * and the `results-*.csv` file of multiple-target mode, told apart by the CSV header line.
 * Deterministic and free of I/O; push-based and line by line, so memory stays bounded by the
 * longest line kept (MAX_LINE_CHARS) and the injection points found, never by the report size.
 *
 * This module splits the text into lines and hands them to the reader of the format at hand:
 * `log-reader.ts` (the log's injection-point blocks and the fingerprint after them) or
 * `csv-reader.ts`. Both collect into `injection-points.ts`, which de-duplicates the points on
 * (place, parameter) and merges their techniques; `injection-finding.ts` turns each point into
 * its finding.
 */
import type { ParseResult } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { createLineSplitter } from '../../domain/text/line-splitter.js';
import { createCsvReader, SQLMAP_CSV_HEADER } from './csv-reader.js';
import { injectionFinding } from './injection-finding.js';
import { createInjectionPoints, MAX_POINTS } from './injection-points.js';
import { createLogReader } from './log-reader.js';

/** What `parseSqlmapReport` returns besides findings and warnings. */
export interface SqlmapParseResult extends ParseResult {
  /** Which sqlmap output was read; `empty` for no text at all, `unknown` for something else. */
  readonly format: 'log' | 'csv' | 'empty' | 'unknown';
  /** False when the text ends inside an injection-point block (a cut-off write). */
  readonly complete: boolean;
}

/** A push parser: `write` chunks of the report in order, then `end` once. */
export interface SqlmapReportParser {
  write(chunk: string): void;
  end(): SqlmapParseResult;
}

/**
 * Characters kept of one line; the rest of a longer line is dropped (with a warning). A report
 * comes from a tool run against an untrusted target.
 */
export const MAX_LINE_CHARS = 64 * 1024;

/**
 * A streaming parser for one sqlmap report (several logs may be written one after another: they
 * are read as one). `context.target` supplies the URL the log does not name. Never throws.
 */
export function createSqlmapParser(context: { readonly target: ScanTarget }): SqlmapReportParser {
  const points = createInjectionPoints();
  const log = createLogReader(points);
  const csv = createCsvReader(points);
  let format: 'log' | 'csv' | null = null;
  let firstLine = true;
  let longLines = 0;
  let ended: SqlmapParseResult | null = null;

  function line(raw: string): void {
    let text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (firstLine && text.startsWith('\uFEFF')) {
      text = text.slice(1);
    }
    firstLine = false;
    if (format === null) {
      if (text.trim() === '') {
        return;
      }
      format = text.trim() === SQLMAP_CSV_HEADER ? 'csv' : 'log';
      if (format === 'csv') {
        return;
      }
    }
    if (format === 'csv') {
      csv.line(text);
    } else {
      log.line(text);
    }
  }

  function result(): SqlmapParseResult {
    const warnings = format === 'log' ? log.warnings() : format === 'csv' ? csv.warnings() : [];
    if (longLines > 0) {
      warnings.push(`${longLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut`);
    }
    if (points.dropped() > 0) {
      warnings.push(
        `more than ${MAX_POINTS} injection points: ${points.dropped()} more were not reported`,
      );
    }
    const source = format === 'csv' ? 'csv' : 'log';
    return {
      findings: points.all().map((point) => injectionFinding(point, context.target, source)),
      warnings,
      format:
        format === null ? 'empty' : format === 'log' && !log.recognized() ? 'unknown' : format,
      complete: format !== 'log' || log.complete(),
    };
  }

  const lines = createLineSplitter({ maxChars: MAX_LINE_CHARS }, (text, cut) => {
    if (cut) {
      longLines += 1;
    }
    line(text);
  });

  return {
    write(chunk) {
      if (ended !== null || typeof chunk !== 'string') {
        return;
      }
      lines.write(chunk);
    },
    end() {
      if (ended === null) {
        lines.end();
        ended = result();
      }
      return ended;
    },
  };
}

/**
 * Parses a whole sqlmap log or results CSV into findings: one `high` finding (CWE-89) per
 * injection point, i.e. per (place, parameter), and per URL for the CSV. Never throws: empty
 * input is a clean run, anything else unreadable gives warnings.
 * @example parseSqlmapReport(logText, { target }).findings[0]?.title // 'SQL injection in GET parameter `id`'
 */
export function parseSqlmapReport(
  text: string,
  context: { readonly target: ScanTarget },
): SqlmapParseResult {
  const parser = createSqlmapParser(context);
  parser.write(typeof text === 'string' ? text : '');
  return parser.end();
}
