/**
 * sqlmap output to findings: the per-host `log` file (what the worker reads: `out/<host>/log`)
 * and the `results-*.csv` file of multiple-target mode, told apart by the CSV header line.
 * Deterministic and free of I/O; push-based and line by line, so memory stays bounded by the
 * longest line kept (MAX_LINE_CHARS) and the injection points found, never by the report size.
 *
 * Log shape (sqlmap 1.x, `lib/controller/controller.py` `_showInjections`):
 *
 *     sqlmap identified the following injection point(s) with a total of 39 HTTP(s) requests:
 *     ---
 *     Parameter: q (GET)
 *         Type: boolean-based blind
 *         Title: AND boolean-based blind - WHERE or HAVING clause
 *         Payload: q=apple' AND 4693=4693 AND 'DnFX'='DnFX
 *
 *         Type: error-based
 *         ...
 *     ---
 *     back-end DBMS: PostgreSQL
 *     available databases [3]:          (with --dbs)
 *     [*] public
 *
 * A second run against the same session appends the same block again under "sqlmap resumed the
 * following injection point(s) from stored session:"; injection points are de-duplicated on
 * (place, parameter) and their techniques merged.
 */
import type { DraftFinding, FindingLocation, ParseResult } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { createLineSplitter } from '../../domain/text/line-splitter.js';

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

// ---------------------------------------------------------------------------------------------
// Limits: a report comes from a tool run against an untrusted target.

/** Characters kept of one line; the rest of a longer line is dropped (with a warning). */
export const MAX_LINE_CHARS = 64 * 1024;
/** Distinct injection points kept; more are counted in a warning. */
const MAX_POINTS = 1000;
/** Techniques kept per injection point (sqlmap has six). */
const MAX_TECHNIQUES = 20;
/** Database names kept from `--dbs`. */
const MAX_DATABASES = 200;
/** Characters of a payload, title or fingerprint value kept in evidence. */
const MAX_VALUE_CHARS = 2000;
/** Characters of a place or parameter name kept (they go into the rule id and title). */
const MAX_NAME_CHARS = 256;

// ---------------------------------------------------------------------------------------------
// Shapes of the lines.

export const SQLMAP_CSV_HEADER = 'Target URL,Place,Parameter,Technique(s),Note(s)';

const BLOCK_HEADER =
  /^sqlmap (identified|resumed) the following injection point\(s\)(?: with a total of (\d+) HTTP\(s\) requests| from stored session)?:?\s*$/;
const FENCE = '---';
/**
 * `Parameter: <name> (<place>)`. The name may hold spaces and brackets; the place is a word
 * (`GET`, `POST`, `URI`, `Cookie`, `User-Agent`, `Referer`, `Host`, an HTTP method) or
 * `(custom) POST` / `(custom) HEADER`, so it is matched from the end.
 */
const PARAMETER = /^Parameter: (.+) \(((?:\(custom\) )?[A-Za-z][A-Za-z0-9-]*)\)\s*$/;
const TECHNIQUE_FIELD = /^\s+(Type|Title|Payload|Vector): ?(.*)$/;
/** Fingerprint lines sqlmap writes after the block. */
const FACT =
  /^(back-end DBMS|back-end DBMS operating system|web server operating system|web application technology): (.*)$/;
const DATABASES = /^available databases \[(\d+)\]:\s*$/;
const LIST_ITEM = /^\[\*\] (.*)$/;

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

const REMEDIATION =
  'Pass the value to the database as a bound parameter (a prepared statement or parameterized ' +
  'query) instead of building SQL text from it. Where user input has to choose a part of the ' +
  'query structure (a column to sort by, a table), map it through an allow list. Run the ' +
  'application with a database account that has only the privileges it needs.';

const REFERENCES = [
  'https://cwe.mitre.org/data/definitions/89.html',
  'https://cheatsheetseries.owasp.org/cheatsheets/SQL_Injection_Prevention_Cheat_Sheet.html',
];

// ---------------------------------------------------------------------------------------------
// Injection points.

interface Technique {
  readonly type: string;
  title: string | null;
  payload: string | null;
}

interface InjectionPoint {
  readonly place: string;
  readonly parameter: string;
  /** The CSV's `Target URL`; null for the log, which names no URL. */
  readonly url: string | null;
  readonly techniques: Technique[];
  /** The CSV's technique letters (`BTU`), merged over repeated rows; '' for the log. */
  letters: string;
  notes: string;
  readonly facts: Map<string, string>;
  databases: string[];
}

function clip(value: string): string {
  return value.length <= MAX_VALUE_CHARS ? value : `${value.slice(0, MAX_VALUE_CHARS)}…`;
}

/** Host, port and URL of a finding at `url`; the port is the scheme's default when not given. */
function locationOf(url: string, fallbackHost: string | null): FindingLocation {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    const defaultPort =
      parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : null;
    const port = parsed.port === '' ? defaultPort : Number(parsed.port);
    return { host: host === '' ? fallbackHost : host, port, protocol: null, url };
  } catch {
    return { host: fallbackHost, port: null, protocol: null, url };
  }
}

function finding(point: InjectionPoint, target: ScanTarget, source: 'log' | 'csv'): DraftFinding {
  const url = point.url ?? target.value;
  const types = point.techniques.map((technique) => technique.type);
  const dbms = point.facts.get('back-end DBMS') ?? null;
  const techniqueEvidence =
    point.letters !== ''
      ? [`Technique(s): ${point.letters} (${types.join(', ')})`]
      : point.techniques.map((technique) =>
          [
            `Type: ${technique.type}`,
            ...(technique.title === null ? [] : [`Title: ${technique.title}`]),
            ...(technique.payload === null ? [] : [`Payload: ${technique.payload}`]),
          ].join('\n'),
        );
  const factEvidence = [...point.facts].map(([name, value]) => `${name}: ${value}`);
  const evidence = [
    ...techniqueEvidence,
    [
      ...factEvidence,
      ...(point.databases.length === 0 ? [] : [`databases: ${point.databases.join(', ')}`]),
      ...(point.notes === '' ? [] : [`note: ${point.notes}`]),
    ].join('\n'),
  ]
    .filter((part) => part !== '')
    .join('\n\n');
  return {
    ruleId: `sql-injection:${point.place}:${point.parameter}`,
    title: `SQL injection in ${point.place} parameter \`${point.parameter}\``,
    severity: 'high',
    toolSeverity: null,
    category: 'sql-injection',
    location: locationOf(url, target.host),
    identifiers: { cve: [], cwe: ['CWE-89'] },
    description:
      `sqlmap confirmed that the ${point.place} parameter \`${point.parameter}\` of ${url} is ` +
      `injectable${types.length === 0 ? '' : ` (${types.join(', ')})`}.` +
      (dbms === null ? '' : ` Back-end DBMS: ${dbms}.`) +
      ' Through it an attacker can read or change data in the database, and depending on the ' +
      'DBMS and its privileges reach files or commands on the database server.',
    evidence: evidence === '' ? null : evidence,
    remediation: REMEDIATION,
    references: REFERENCES,
    raw: {
      source,
      place: point.place,
      parameter: point.parameter,
      ...(point.url === null ? {} : { url: point.url }),
      techniques: point.techniques.map((technique) => ({
        type: technique.type.slice(0, MAX_NAME_CHARS),
        title: technique.title === null ? null : technique.title.slice(0, MAX_NAME_CHARS),
      })),
      dbms,
      ...(point.databases.length === 0 ? {} : { databases: point.databases.slice(0, 20) }),
      ...(point.notes === '' ? {} : { notes: point.notes }),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// CSV rows (RFC 4180 as sqlmap's `safeCSValue` writes it: quotes only where needed).

/** The fields of one CSV line, or null when a quoted field does not end on this line. */
function csvFields(line: string): string[] | null {
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

// ---------------------------------------------------------------------------------------------
// The parser.

type LogState = 'outside' | 'expect-fence' | 'in-block' | 'databases';

/**
 * A streaming parser for one sqlmap report (several logs may be written one after another: they
 * are read as one). `context.target` supplies the URL the log does not name. Never throws.
 */
export function createSqlmapParser(context: { readonly target: ScanTarget }): SqlmapReportParser {
  const points = new Map<string, InjectionPoint>();
  let format: 'log' | 'csv' | null = null;
  let firstLine = true;
  let ended: SqlmapParseResult | null = null;

  // Log state.
  let state: LogState = 'outside';
  let recognized = false;
  let firstUnknown: string | null = null;
  let point: InjectionPoint | null = null;
  let technique: Technique | null = null;
  let lastField: 'title' | 'payload' | null = null;
  /** Points of the latest block: the fingerprint lines after it are theirs. */
  let blockPoints: InjectionPoint[] = [];
  let droppedPoints = 0;
  let longLines = 0;
  let continuationLines = 0;

  // CSV state.
  let badRows = 0;
  let falsePositives = 0;

  function pointFor(
    rawPlace: string,
    rawParameter: string,
    url: string | null,
  ): InjectionPoint | null {
    const place = rawPlace.slice(0, MAX_NAME_CHARS);
    const parameter = rawParameter.slice(0, MAX_NAME_CHARS);
    const key = JSON.stringify([url, place, parameter]);
    const known = points.get(key);
    if (known !== undefined) {
      return known;
    }
    if (points.size >= MAX_POINTS) {
      droppedPoints += 1;
      return null;
    }
    const created: InjectionPoint = {
      place,
      parameter,
      url,
      techniques: [],
      letters: '',
      notes: '',
      facts: new Map(),
      databases: [],
    };
    points.set(key, created);
    return created;
  }

  /** The technique of this type on the point (the first one reported wins), or a new one. */
  function techniqueFor(target: InjectionPoint, type: string): Technique | null {
    const known = target.techniques.find((candidate) => candidate.type === type);
    if (known !== undefined) {
      // A repeated type (resumed session) keeps its first title and payload.
      return null;
    }
    if (target.techniques.length >= MAX_TECHNIQUES) {
      return null;
    }
    const created: Technique = { type, title: null, payload: null };
    target.techniques.push(created);
    return created;
  }

  function closeTechnique(): void {
    technique = null;
    lastField = null;
  }

  function logLine(line: string): void {
    switch (state) {
      case 'expect-fence':
        if (line.trim() === FENCE) {
          state = 'in-block';
          blockPoints = [];
          return;
        }
        state = 'outside';
        outsideLine(line);
        return;
      case 'in-block':
        blockLine(line);
        return;
      case 'databases': {
        const item = LIST_ITEM.exec(line);
        if (item !== null) {
          addDatabase(item[1] ?? '');
          return;
        }
        state = 'outside';
        outsideLine(line);
        return;
      }
      default:
        outsideLine(line);
    }
  }

  function addDatabase(name: string): void {
    for (const target of blockPoints) {
      if (target.databases.length < MAX_DATABASES && !target.databases.includes(name)) {
        target.databases.push(clip(name));
      }
    }
  }

  function outsideLine(line: string): void {
    if (line.trim() === '') {
      return;
    }
    if (BLOCK_HEADER.test(line.trim())) {
      recognized = true;
      state = 'expect-fence';
      return;
    }
    const fact = FACT.exec(line);
    if (fact !== null) {
      recognized = true;
      const [, name = '', value = ''] = fact;
      for (const target of blockPoints) {
        if (!target.facts.has(name)) {
          target.facts.set(name, clip(value.trim()));
        }
      }
      return;
    }
    if (DATABASES.test(line)) {
      recognized = true;
      state = 'databases';
      return;
    }
    // Continuation lines of a multi-line fingerprint (`back-end DBMS: active fingerprint: …`
    // followed by indented lines) and anything else sqlmap may add are skipped.
    firstUnknown ??= line;
  }

  function blockLine(line: string): void {
    if (line.trim() === FENCE) {
      closeTechnique();
      point = null;
      state = 'outside';
      return;
    }
    if (line.trim() === '') {
      closeTechnique();
      return;
    }
    if (line.startsWith('Parameter: ')) {
      closeTechnique();
      const parameter = PARAMETER.exec(line);
      // Without its `(place)` the line is cut or not sqlmap's: what follows belongs to no point.
      point = null;
      if (parameter === null) {
        continuationLines += 1;
        return;
      }
      recognized = true;
      const [, name = '', place = ''] = parameter;
      point = pointFor(place, name.trim(), null);
      if (point !== null && !blockPoints.includes(point)) {
        blockPoints.push(point);
      }
      return;
    }
    const field = TECHNIQUE_FIELD.exec(line);
    if (field !== null && point === null) {
      // A technique of a point that was not kept (over the limit, or a malformed line).
      return;
    }
    if (field !== null && point !== null) {
      const [, key = '', value = ''] = field;
      if (key === 'Type') {
        technique = techniqueFor(point, value.trim().slice(0, MAX_NAME_CHARS));
        lastField = null;
      } else if (technique !== null && key === 'Title') {
        technique.title = clip(value);
        lastField = 'title';
      } else if (technique !== null && key === 'Payload') {
        technique.payload = clip(value);
        lastField = 'payload';
      } else {
        // Vector (only with -v 2 and up) and fields of a repeated technique are not kept.
        lastField = null;
      }
      return;
    }
    // A payload that held a line break goes on over the next lines.
    if (technique !== null && lastField !== null) {
      const current = technique[lastField] ?? '';
      technique[lastField] = clip(`${current}\n${line}`);
    } else {
      continuationLines += 1;
    }
  }

  function csvLine(line: string): void {
    if (line.trim() === '') {
      return;
    }
    const fields = csvFields(line);
    if (fields === null || fields.length < 5) {
      badRows += 1;
      return;
    }
    // Only the URL is quoted by sqlmap; a parameter name with a comma spreads over more fields.
    const [url = '', place = ''] = fields;
    const parameter = fields.slice(2, -2).join(',');
    const letters = fields.at(-2) ?? '';
    const notes = fields.at(-1) ?? '';
    if (url.trim() === '' || place.trim() === '' || parameter.trim() === '') {
      badRows += 1;
      return;
    }
    if (FALSE_POSITIVE_NOTE.test(notes)) {
      // The log leaves these out altogether; the CSV keeps them with a note.
      falsePositives += 1;
      return;
    }
    const target = pointFor(place.trim(), parameter.trim(), url.trim());
    if (target === null) {
      return;
    }
    for (const letter of letters.trim().toUpperCase()) {
      if (!target.letters.includes(letter)) {
        target.letters += letter;
        techniqueFor(target, TECHNIQUE_LETTERS[letter] ?? `technique ${letter}`);
      }
    }
    if (notes.trim() !== '' && !target.notes.includes(notes.trim())) {
      target.notes = target.notes === '' ? notes.trim() : `${target.notes}; ${notes.trim()}`;
    }
  }

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
      csvLine(text);
    } else {
      logLine(text);
    }
  }

  function result(): SqlmapParseResult {
    const complete = !(format === 'log' && (state === 'in-block' || state === 'expect-fence'));
    const all = [...points.values()];
    const out: string[] = [];
    if (format === 'log' && !recognized) {
      out.push(
        `the report is neither a sqlmap log nor a sqlmap results CSV (first line: ${JSON.stringify((firstUnknown ?? '').slice(0, 80))})`,
      );
    }
    if (!complete) {
      out.push(
        `the sqlmap log is truncated inside an injection-point block (no closing '---'): the run did not finish writing it; ${all.length} injection point(s) were read`,
      );
    }
    if (continuationLines > 0) {
      out.push(`${continuationLines} line(s) inside an injection-point block were not understood`);
    }
    if (badRows > 0) {
      out.push(
        `${badRows} row(s) of the sqlmap results CSV were incomplete or malformed and skipped`,
      );
    }
    if (falsePositives > 0) {
      out.push(
        `${falsePositives} row(s) of the sqlmap results CSV were marked by sqlmap as false positive or unexploitable and are not reported`,
      );
    }
    if (longLines > 0) {
      out.push(`${longLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut`);
    }
    if (droppedPoints > 0) {
      out.push(`more than ${MAX_POINTS} injection points: ${droppedPoints} more were not reported`);
    }
    const source = format === 'csv' ? 'csv' : 'log';
    return {
      findings: all.map((p) => finding(p, context.target, source)),
      warnings: out,
      format: format === null ? 'empty' : format === 'log' && !recognized ? 'unknown' : format,
      complete,
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
