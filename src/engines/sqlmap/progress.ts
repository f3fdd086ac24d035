/**
 * Scan progress from sqlmap's console log. sqlmap 1.7.2 writes its log lines, and the questions
 * it answers itself under `--batch`, to **stdout** (its logger's handler is `sys.stdout`; a real
 * run leaves stderr empty), one per line:
 *
 *     [15:09:09] [INFO] testing connection to the target URL
 *     [15:09:09] [INFO] testing if GET parameter 'q' is dynamic
 *     [15:09:09] [INFO] testing 'AND boolean-based blind - WHERE or HAVING clause'
 *     GET parameter 'q' is vulnerable. Do you want to keep testing the others (if any)? [y/N] Y
 *     [15:10:16] [INFO] fetching database (schema) names
 *
 * sqlmap prints no percentage, so each recognized step is mapped onto a fixed point of the whole
 * run, in the order sqlmap goes: connection and stability checks, per parameter the dynamic and
 * heuristic checks, then the tests of each technique in the order of its payload files (boolean
 * blind, error, inline, stacked, time blind, UNION), then the injection-point report, the DBMS
 * fingerprint and enumeration. Each parameter starts the detection steps again; a caller keeps the
 * highest value, so the bar holds instead of going back. A rough guide, not a measurement.
 */

interface Step {
  readonly line: RegExp;
  readonly percent: number;
}

/** First match wins; matched against the message without the `[time] [LEVEL]` prefix. */
const STEPS: readonly Step[] = [
  { line: /^testing connection to the target URL/, percent: 2 },
  { line: /^checking if the target is protected by some kind of WAF\/IPS/, percent: 4 },
  { line: /^testing if the target URL content is stable/, percent: 6 },
  { line: /^testing if .+ parameter '.*' is dynamic/, percent: 8 },
  { line: /^heuristic \(basic\) test shows/, percent: 10 },
  { line: /^testing for SQL injection on .+ parameter '.*'/, percent: 12 },
  // `testing '<test title>'`: the band of the technique the test belongs to.
  { line: /^testing '.*boolean-based.*'$/i, percent: 15 },
  { line: /^testing '.*error-based.*'$/i, percent: 30 },
  { line: /^testing '.*inline quer.*'$/i, percent: 40 },
  { line: /^testing '.*stacked quer.*'$/i, percent: 45 },
  { line: /^testing '.*time-based.*'$/i, percent: 55 },
  { line: /^testing '.*UNION query.*'$/i, percent: 65 },
  { line: /^.+ parameter '.*' is vulnerable\. Do you want to keep testing/, percent: 75 },
  { line: /^sqlmap (identified|resumed) the following injection point/, percent: 80 },
  { line: /^the back-end DBMS is /, percent: 85 },
  { line: /^fetching (number of )?database/, percent: 90 },
  { line: /^all tested parameters do not appear to be injectable/, percent: 95 },
  { line: /^fetched data logged to text files/, percent: 97 },
];

/** `[15:09:09] [INFO] ` (also `[WARNING]`, `[CRITICAL]`, `[PAYLOAD]` …). */
const LOG_PREFIX = /^\[\d{2}:\d{2}:\d{2}\] \[[A-Z]+\] /;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character starts a colour code.
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;

/**
 * The run's progress (an integer 0..99) from one line of sqlmap's stdout, or null for any other
 * line. Never 100: only completion is.
 * @example parseSqlmapProgress("[15:09:09] [INFO] testing 'Generic UNION query (NULL) - 1 to 20 columns'") // 65
 */
export function parseSqlmapProgress(line: string): number | null {
  const message = line.replace(ANSI_ESCAPE, '').trim().replace(LOG_PREFIX, '');
  const step = STEPS.find((candidate) => candidate.line.test(message));
  return step === undefined ? null : step.percent;
}
