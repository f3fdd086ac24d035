/**
 * nuclei output to findings, as a stream: JSON lines (`-jsonl -o`, what the engine asks for) or
 * one JSON array (`-json-export`), told apart by the first non-blank character. Deterministic and
 * free of I/O; `parseNucleiOutput(text)` is the same parser fed the whole text at once, and any
 * chunking of the text gives the same result.
 *
 * Memory: JSON lines are read one line at a time (a line with request and response reaches
 * ~150 KB; a line longer than MAX_LINE_CHARS is skipped with a warning); the array is read with
 * @streamparser/json, which hands over one element at a time and keeps none (`keepStack: false`).
 * Findings hold capped strings only (result.ts), and results of the same issue are merged.
 *
 * Never throws. Empty output is a clean scan (nuclei writes a zero-byte file when nothing
 * matched). Everything that is not a finding is counted into warnings, so "clean" and "failed"
 * stay apart: lines that are not JSON, a last line cut off (a cancelled or timed-out scan), JSON
 * values that are not nuclei results, failure events (`matcher-status: false`, `error`).
 */
import { JSONParser } from '@streamparser/json';
import type { ParseResult } from '../../domain/findings/finding.js';
import { createLineSplitter } from '../../domain/text/line-splitter.js';
import type { ParseContext, StreamingReportParser } from '../engine.js';
import { FindingCollector, hasKnownSeverity } from './finding.js';
import { readNucleiResult } from './result.js';

/** A JSON line longer than this (characters) is skipped: 100× the longest line seen in practice. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** At most this many individual error messages are quoted in warnings; the rest are counted. */
const MAX_QUOTED_ERRORS = 5;

/** Counts of everything read that did not become a finding. */
class Tally {
  results = 0;
  invalidLines = 0;
  firstInvalidLine = 0;
  truncatedLastLine = false;
  tooLongLines = 0;
  notResults = 0;
  firstNotResultProblem = '';
  failedMatches = 0;
  errors: string[] = [];
  errorCount = 0;
  unknownSeverities = new Map<string, number>();
}

/** Turns parsed JSON values into findings and counts. */
class ResultSink {
  readonly tally = new Tally();
  private readonly collector: FindingCollector;

  constructor(context: ParseContext) {
    this.collector = new FindingCollector(context.target);
  }

  accept(value: unknown): void {
    const result = readNucleiResult(value);
    const tally = this.tally;
    if ('problem' in result) {
      tally.notResults += 1;
      tally.firstNotResultProblem ||= result.problem;
      return;
    }
    if (result.error !== null) {
      tally.errorCount += 1;
      if (tally.errors.length < MAX_QUOTED_ERRORS) {
        tally.errors.push(`${result.templateId}: ${result.error}`);
      }
      return;
    }
    if (!result.matcherStatus) {
      tally.failedMatches += 1;
      return;
    }
    tally.results += 1;
    if (!hasKnownSeverity(result.severity)) {
      const shown = result.severity ?? '(none)';
      tally.unknownSeverities.set(shown, (tally.unknownSeverities.get(shown) ?? 0) + 1);
    }
    this.collector.add(result);
  }

  finish(layoutWarnings: readonly string[]): ParseResult {
    return {
      findings: this.collector.findings(),
      warnings: [...layoutWarnings, ...tallyWarnings(this.tally)],
    };
  }
}

function tallyWarnings(tally: Tally): string[] {
  const warnings: string[] = [];
  if (tally.truncatedLastLine) {
    warnings.push(
      'the last line of the nuclei output is cut off (the scan did not finish): it was skipped',
    );
  }
  if (tally.tooLongLines > 0) {
    warnings.push(
      `${tally.tooLongLines} line(s) longer than ${MAX_LINE_CHARS} characters were skipped`,
    );
  }
  if (tally.notResults > 0) {
    warnings.push(
      `${tally.notResults} JSON value(s) are not nuclei results (${tally.firstNotResultProblem}) and were skipped`,
    );
  }
  if (tally.errorCount > 0) {
    warnings.push(
      `nuclei reported ${tally.errorCount} error(s) instead of results: ${tally.errors.join('; ')}`,
    );
  }
  if (tally.failedMatches > 0) {
    warnings.push(
      `${tally.failedMatches} result(s) with matcher-status false (failed matches) are not findings`,
    );
  }
  for (const [severity, count] of tally.unknownSeverities) {
    warnings.push(`${count} result(s) had severity ${severity}; they are reported as info`);
  }
  return warnings;
}

/** JSON lines: one result per line, blank lines and `\r` ignored. */
class JsonLinesReader {
  private nonBlankLines = 0;
  /** The splitter is giving the last line (no newline after it). */
  private ending = false;
  private readonly lines = createLineSplitter({ maxChars: MAX_LINE_CHARS }, (text, cut) =>
    this.line(text, cut, this.ending),
  );

  /** `lineNumber`: the blank lines skipped before the output starts, so warnings name file lines. */
  constructor(
    private readonly sink: ResultSink,
    private lineNumber: number,
  ) {}

  write(chunk: string): void {
    this.lines.write(chunk);
  }

  end(): string[] {
    this.ending = true;
    this.lines.end();
    const tally = this.sink.tally;
    if (this.nonBlankLines > 0 && tally.invalidLines === this.nonBlankLines) {
      return [
        `the output is not nuclei JSON lines: none of its ${this.nonBlankLines} line(s) is JSON`,
      ];
    }
    return tally.invalidLines === 0
      ? []
      : [
          `${tally.invalidLines} line(s) of the nuclei output are not JSON and were skipped (first: line ${tally.firstInvalidLine})`,
        ];
  }

  private line(text: string, tooLong: boolean, last: boolean): void {
    this.lineNumber += 1;
    const tally = this.sink.tally;
    if (tooLong || text.length > MAX_LINE_CHARS) {
      this.nonBlankLines += 1;
      tally.tooLongLines += 1;
      return;
    }
    const trimmed = text.trim();
    if (trimmed === '') {
      return;
    }
    this.nonBlankLines += 1;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      // A last line without its newline that starts like a result was cut off mid-write: a
      // cancelled or timed-out scan, not bad output.
      if (last && trimmed.startsWith('{')) {
        this.nonBlankLines -= 1;
        tally.truncatedLastLine = true;
      } else {
        tally.invalidLines += 1;
        tally.firstInvalidLine ||= this.lineNumber;
      }
      return;
    }
    this.sink.accept(value);
  }
}

/** One JSON array (`-json-export`), element by element. */
class JsonArrayReader {
  private readonly parser = new JSONParser({ paths: ['$.*'], keepStack: false });
  private failure: 'invalid' | 'truncated' | null = null;
  private ending = false;

  constructor(private readonly sink: ResultSink) {
    this.parser.onValue = ({ value }) => this.sink.accept(value);
    this.parser.onError = () => {
      this.failure ??= this.ending ? 'truncated' : 'invalid';
    };
  }

  write(chunk: string): void {
    if (this.failure !== null) {
      return;
    }
    try {
      this.parser.write(chunk);
    } catch {
      this.failure ??= 'invalid';
    }
  }

  end(): string[] {
    if (this.failure === null && !this.parser.isEnded) {
      this.ending = true;
      try {
        this.parser.end();
      } catch {
        this.failure ??= 'truncated';
      }
    }
    const read = `${this.sink.tally.results} result(s) before that point were read`;
    switch (this.failure) {
      case 'invalid':
        return [`the nuclei JSON array is not valid JSON; ${read}`];
      case 'truncated':
        return [`the nuclei JSON array is cut off (the scan did not finish); ${read}`];
      default:
        return [];
    }
  }
}

/**
 * A streaming parser for nuclei output (the runner feeds it the report in chunks).
 * @example const parser = createNucleiParser({ target }); parser.write(text); parser.end().findings
 */
export function createNucleiParser(context: ParseContext): StreamingReportParser {
  const sink = new ResultSink(context);
  let reader: JsonLinesReader | JsonArrayReader | null = null;
  let newlinesBefore = 0;
  let ended: ParseResult | null = null;

  /** Chooses the layout at the first non-blank character (a BOM is skipped). */
  const route = (chunk: string): void => {
    if (reader !== null) {
      reader.write(chunk);
      return;
    }
    const first = /[^\s\uFEFF]/.exec(chunk);
    const blank = first === null ? chunk : chunk.slice(0, first.index);
    newlinesBefore += blank.split('\n').length - 1;
    if (first === null) {
      return;
    }
    reader =
      first[0] === '[' ? new JsonArrayReader(sink) : new JsonLinesReader(sink, newlinesBefore);
    reader.write(chunk.slice(first.index));
  };

  return {
    write(chunk: string): void {
      if (ended === null && typeof chunk === 'string' && chunk !== '') {
        route(chunk);
      }
    },
    end(): ParseResult {
      ended ??= sink.finish(reader === null ? [] : reader.end());
      return ended;
    },
  };
}

/**
 * Parses a whole nuclei report (JSON lines or a JSON array, nuclei 2 or 3) into findings.
 * @example parseNucleiOutput('', { target }) // { findings: [], warnings: [] }
 */
export function parseNucleiOutput(report: string, context: ParseContext): ParseResult {
  const parser = createNucleiParser(context);
  parser.write(report);
  return parser.end();
}
