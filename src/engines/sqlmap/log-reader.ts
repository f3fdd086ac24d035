/**
 * sqlmap's per-host `log` file (sqlmap 1.x, `lib/controller/controller.py` `_showInjections`),
 * read line by line into the report's injection points:
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
 * following injection point(s) from stored session:"; the points it names again are the same
 * points, their techniques merged. The fingerprint and database lines after a block belong to the
 * points of that block.
 */
import {
  clip,
  type InjectionPoint,
  type InjectionPoints,
  MAX_NAME_CHARS,
  type Technique,
} from './injection-points.js';

/** Database names kept from `--dbs`. */
const MAX_DATABASES = 200;

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

type LogState = 'outside' | 'expect-fence' | 'in-block' | 'databases';

/** Reads the log's lines (without their line ends) into `points`. */
export interface LogReader {
  line(text: string): void;
  /** Whether any line was one sqlmap writes about injection points (else it is not its log). */
  recognized(): boolean;
  /** False while inside an injection-point block (a cut-off write, once the log has ended). */
  complete(): boolean;
  warnings(): string[];
}

export function createLogReader(points: InjectionPoints): LogReader {
  let state: LogState = 'outside';
  let recognized = false;
  let firstUnknown: string | null = null;
  let point: InjectionPoint | null = null;
  let technique: Technique | null = null;
  let lastField: 'title' | 'payload' | null = null;
  /** Points of the latest block: the fingerprint lines after it are theirs. */
  let blockPoints: InjectionPoint[] = [];
  let continuationLines = 0;

  function closeTechnique(): void {
    technique = null;
    lastField = null;
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
      point = points.pointFor(place, name.trim(), null);
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
        technique = points.techniqueFor(point, value.trim().slice(0, MAX_NAME_CHARS));
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

  const complete = () => state !== 'in-block' && state !== 'expect-fence';

  return {
    line(line) {
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
    },
    recognized: () => recognized,
    complete,
    warnings() {
      const out: string[] = [];
      if (!recognized) {
        out.push(
          `the report is neither a sqlmap log nor a sqlmap results CSV (first line: ${JSON.stringify((firstUnknown ?? '').slice(0, 80))})`,
        );
      }
      if (!complete()) {
        out.push(
          `the sqlmap log is truncated inside an injection-point block (no closing '---'): the run did not finish writing it; ${points.all().length} injection point(s) were read`,
        );
      }
      if (continuationLines > 0) {
        out.push(
          `${continuationLines} line(s) inside an injection-point block were not understood`,
        );
      }
      return out;
    },
  };
}
