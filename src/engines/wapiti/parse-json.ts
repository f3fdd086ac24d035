/**
 * Reads wapiti's JSON report (`--format json`) piece by piece with @streamparser/json: only the
 * values a finding needs are ever built (one classification, one entry, the `infos` object at a
 * time), and parsed siblings are dropped (`keepStack: false`), so the report is never held whole.
 *
 * Shape (3.0.4 writes the keys in this order; the reader does not rely on it):
 *
 *     { "classifications": { "<category>": { "desc", "sol", "ref": { "<title>": "<url>" } } },
 *       "vulnerabilities": { "<category>": [ { "method", "path", "info", "level", … } ] },
 *       "anomalies": { … same … }, "additionals": { … same … },
 *       "infos": { "target", "date", "version", "scope" } }
 *
 * Entries are kept in report order as small `ReportEntry` records (long texts already cut) until
 * the end, because their description and CWE come from `classifications` and their severity scale
 * from `infos.version`, which a writer may put anywhere (3.0.4 puts `infos` last).
 */
import { JSONParser } from '@streamparser/json';
import {
  classificationFromJson,
  emptyModel,
  entryFromJson,
  infosFromJson,
  REPORT_SECTIONS,
  type ReportModel,
  type ReportSection,
} from './report-model.js';

const PATHS = [
  '$.classifications.*',
  '$.vulnerabilities.*.*',
  '$.anomalies.*.*',
  '$.additionals.*.*',
  '$.infos',
];

interface StackFrame {
  readonly key?: unknown;
}

export interface JsonReportReader {
  write(chunk: string): void;
  end(): { readonly model: ReportModel; readonly warnings: string[] };
}

function isSection(value: unknown): value is ReportSection {
  return typeof value === 'string' && (REPORT_SECTIONS as readonly string[]).includes(value);
}

/**
 * A reader for text that starts with `{`. Never throws: a syntax error or a cut-off document
 * stops the reading, and `end` returns every value completed before it, with a warning. The
 * warning texts do not depend on how the text was split into chunks.
 */
export function createJsonReportReader(): JsonReportReader {
  const model = emptyModel();
  const parser = new JSONParser({ paths: PATHS, keepStack: false });
  let failed = false;
  let trailingData = false;
  let documentEnded = false;
  let wapitiKeys = 0;

  parser.onValue = ({ value, key, stack }) => {
    const frames = stack as readonly StackFrame[];
    const top = frames[1]?.key;
    if (frames.length === 1 && key === 'infos') {
      model.infos = infosFromJson(value);
      wapitiKeys += 1;
    } else if (frames.length === 2 && top === 'classifications' && typeof key === 'string') {
      model.classifications.set(key, classificationFromJson(value));
      wapitiKeys += 1;
    } else if (frames.length === 3 && isSection(top)) {
      const category = frames[2]?.key;
      const entry = entryFromJson(top, typeof category === 'string' ? category : '', value);
      if (entry !== null) {
        model.entries.push(entry);
        wapitiKeys += 1;
      }
    }
  };
  parser.onEnd = () => {
    documentEnded = true;
  };
  parser.onError = () => {
    // After the root object closed, anything but whitespace is reported as data past the end;
    // closing a parser whose document already ended reports an error too, which is no error.
    if (documentEnded) {
      trailingData = true;
    } else {
      failed = true;
    }
  };

  return {
    write(chunk) {
      if (failed || trailingData) {
        return;
      }
      try {
        parser.write(chunk);
      } catch {
        failed = !documentEnded;
      }
    },
    end() {
      if (!failed && !trailingData && !documentEnded) {
        try {
          parser.end();
        } catch {
          failed = true;
        }
      }
      return { model, warnings: readerWarnings(model, { failed, trailingData, wapitiKeys }) };
    },
  };
}

function readerWarnings(
  model: ReportModel,
  state: { failed: boolean; trailingData: boolean; wapitiKeys: number },
): string[] {
  const warnings: string[] = [];
  if (state.failed) {
    warnings.push(
      `the JSON report is truncated or not well-formed (the scan may not have finished): findings come from the ${model.entries.length} entr(y/ies) read before the break`,
    );
  } else if (state.wapitiKeys === 0) {
    warnings.push('the JSON is not a wapiti report: it has no classifications, entries or infos');
  } else if (model.infos === null) {
    warnings.push('the wapiti report has no "infos" section');
  }
  if (state.trailingData) {
    warnings.push('unexpected data after the end of the JSON report was ignored');
  }
  return warnings;
}
