/**
 * The `?format=csv` rendering of scan results: one row per finding, RFC 4180, safe to open in a
 * spreadsheet.
 */
import type { Finding } from './finding.js';

/** The header row, in column order. */
export const CSV_COLUMNS = [
  'id',
  'scanId',
  'engine',
  'severity',
  'toolSeverity',
  'title',
  'category',
  'host',
  'port',
  'protocol',
  'url',
  'cve',
  'cwe',
  'fingerprint',
  'description',
  'remediation',
  'references',
  'createdAt',
  // Issue 23, appended so that the columns before keep their places: empty for a finding that
  // feeds no issue (see toFindingView).
  'issueId',
  'triage',
  'baselineState',
] as const;

/** Joins the values of multi-value columns (`cve`, `cwe`, `references`). */
export const CSV_MULTI_VALUE_SEPARATOR = ';';

const LINE_END = '\r\n';

// OWASP "CSV Injection": spreadsheet programs evaluate a cell that begins with one of these as a
// formula (tab and CR because some programs strip them and then see the next character).
const FORMULA_TRIGGER = /^[=+\-@\t\r]/;

// RFC 4180 requires quoting for the separator, quotes and line breaks. `;` is quoted too: Excel
// in many European locales splits on `;`, and a cell starting after an unquoted `;` would escape
// the formula check above (`x;=HYPERLINK(…)`).
const NEEDS_QUOTES = /[",;\r\n]/;

/**
 * One field, ready to be placed between commas:
 * 1. formula injection guard (OWASP): a value beginning with `=`, `+`, `-`, `@`, tab or carriage
 *    return gets a leading `'`, which spreadsheets show as text instead of evaluating it. The
 *    value changes visibly (`-1` reads `'-1`); that is the accepted price of the guard, which
 *    applies to every column alike;
 * 2. RFC 4180 quoting: a value containing `"`, `,`, `;`, CR or LF is enclosed in double quotes,
 *    with each `"` doubled. Line breaks inside a value are kept as they are.
 * @example escapeCsvField('=1+1') // "'=1+1"
 * @example escapeCsvField('say "hi", then go') // '"say ""hi"", then go"'
 */
export function escapeCsvField(value: string): string {
  const guarded = FORMULA_TRIGGER.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** ISO 8601 in UTC, or empty for an invalid date (rather than throwing mid-file). */
function isoOrEmpty(date: Date): string {
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

function row(finding: Finding): string[] {
  const { location, identifiers } = finding;
  return [
    finding.id,
    finding.scanId,
    finding.engine,
    finding.severity,
    finding.toolSeverity ?? '',
    finding.title,
    finding.category,
    location.host ?? '',
    location.port === null ? '' : String(location.port),
    location.protocol ?? '',
    location.url ?? '',
    identifiers.cve.join(CSV_MULTI_VALUE_SEPARATOR),
    identifiers.cwe.join(CSV_MULTI_VALUE_SEPARATOR),
    finding.fingerprint,
    finding.description ?? '',
    finding.remediation ?? '',
    finding.references.join(CSV_MULTI_VALUE_SEPARATOR),
    isoOrEmpty(finding.createdAt),
    finding.issue?.id ?? '',
    finding.issue?.triage.state ?? '',
    finding.issue?.baselineState ?? '',
  ];
}

/** The header line, CRLF included: the first line of every CSV export. */
export function csvHeaderLine(): string {
  return CSV_COLUMNS.join(',') + LINE_END;
}

/** One finding's record, CRLF included (fields through `escapeCsvField`). */
export function csvRecordLine(finding: Finding): string {
  return row(finding).map(escapeCsvField).join(',') + LINE_END;
}

/**
 * Renders findings as CSV (RFC 4180): the `CSV_COLUMNS` header, then one record per finding in
 * the order given. Every record, the last included, ends with CRLF; null values are empty fields;
 * `cve`, `cwe` and `references` are joined with `;`; `createdAt` is ISO 8601 UTC. Each field goes
 * through `escapeCsvField` (formula-injection guard, then quoting). No byte-order mark is added.
 * An empty list gives the header line alone.
 * @example renderCsv([]) // 'id,scanId,engine,…,references,createdAt\r\n'
 */
export function renderCsv(findings: readonly Finding[]): string {
  return csvHeaderLine() + findings.map(csvRecordLine).join('');
}
