/**
 * The `results-*.csv` file of sqlmap's multiple-target mode, one row per line after the header:
 *
 *     Target URL,Place,Parameter,Technique(s),Note(s)
 *     http://app.example/item?id=1,GET,id,BTU,
 *
 * `csvRow` reads one line and is pure; `createCsvReader` adds the rows to the report's injection
 * points and counts what it skipped for warnings.
 */
import type { InjectionPoints } from './injection-points.js';

export const SQLMAP_CSV_HEADER = 'Target URL,Place,Parameter,Technique(s),Note(s)';

/** Technique letters of the CSV (first letter of sqlmap's `PAYLOAD.TECHNIQUE` names). */
const TECHNIQUE_LETTERS: Readonly<Record<string, string>> = {
  B: 'boolean-based blind',
  E: 'error-based',
  Q: 'inline query',
  S: 'stacked queries',
  T: 'time-based blind',
  U: 'UNION query',
};

/** sqlmap's note for injection points it could not confirm (`NOTE.FALSE_POSITIVE_OR_UNEXPLOITABLE`). */
const FALSE_POSITIVE_NOTE = /false positive/i;

/**
 * The fields of one CSV line (RFC 4180 as sqlmap's `safeCSValue` writes it: quotes only where
 * needed), or null when a quoted field does not end on this line.
 */
export function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < line.length) {
    const c = line.charAt(i);
    if (quoted) {
      if (c === '"' && line.charAt(i + 1) === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else {
      field += c;
    }
    i += 1;
  }
  if (quoted) {
    return null;
  }
  fields.push(field);
  return fields;
}

/** What one line of the CSV holds; every text field trimmed. */
export type CsvRow =
  | { readonly kind: 'blank' }
  /** Too few fields, a quoted field left open, or an empty URL, place or parameter. */
  | { readonly kind: 'malformed' }
  /** A row sqlmap marked as a false positive or unexploitable. */
  | { readonly kind: 'false-positive' }
  | {
      readonly kind: 'point';
      readonly url: string;
      readonly place: string;
      readonly parameter: string;
      /** Technique letters, upper case (`BTU`). */
      readonly letters: string;
      readonly notes: string;
    };

export function csvRow(line: string): CsvRow {
  if (line.trim() === '') {
    return { kind: 'blank' };
  }
  const fields = csvFields(line);
  if (fields === null || fields.length < 5) {
    return { kind: 'malformed' };
  }
  // Only the URL is quoted by sqlmap; a parameter name with a comma spreads over more fields.
  const [url = '', place = ''] = fields;
  const parameter = fields.slice(2, -2).join(',');
  const letters = fields.at(-2) ?? '';
  const notes = fields.at(-1) ?? '';
  if (url.trim() === '' || place.trim() === '' || parameter.trim() === '') {
    return { kind: 'malformed' };
  }
  if (FALSE_POSITIVE_NOTE.test(notes)) {
    // The log leaves these out altogether; the CSV keeps them with a note.
    return { kind: 'false-positive' };
  }
  return {
    kind: 'point',
    url: url.trim(),
    place: place.trim(),
    parameter: parameter.trim(),
    letters: letters.trim().toUpperCase(),
    notes: notes.trim(),
  };
}

/** Reads the CSV's rows (the header already taken off) into `points`. */
export interface CsvReader {
  line(text: string): void;
  warnings(): string[];
}

export function createCsvReader(points: InjectionPoints): CsvReader {
  let badRows = 0;
  let falsePositives = 0;
  return {
    line(text) {
      const row = csvRow(text);
      if (row.kind === 'malformed') {
        badRows += 1;
      } else if (row.kind === 'false-positive') {
        falsePositives += 1;
      }
      if (row.kind !== 'point') {
        return;
      }
      const point = points.pointFor(row.place, row.parameter, row.url);
      if (point === null) {
        return;
      }
      for (const letter of row.letters) {
        if (!point.letters.includes(letter)) {
          point.letters += letter;
          points.techniqueFor(point, TECHNIQUE_LETTERS[letter] ?? `technique ${letter}`);
        }
      }
      if (row.notes !== '' && !point.notes.includes(row.notes)) {
        point.notes = point.notes === '' ? row.notes : `${point.notes}; ${row.notes}`;
      }
    },
    warnings() {
      return [
        ...(badRows === 0
          ? []
          : [
              `${badRows} row(s) of the sqlmap results CSV were incomplete or malformed and skipped`,
            ]),
        ...(falsePositives === 0
          ? []
          : [
              `${falsePositives} row(s) of the sqlmap results CSV were marked by sqlmap as false positive or unexploitable and are not reported`,
            ]),
      ];
    },
  };
}
