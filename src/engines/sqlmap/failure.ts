/**
 * sqlmap exits 0 also when it could not test anything: the target refused the connection, or the
 * URL has no parameter to inject into. Its log file stays empty, so only these `[CRITICAL]` lines
 * on stdout tell such a run from a clean one. sqlmap 1.7.2 writes, for a closed port:
 *
 *     [15:29:57] [CRITICAL] unable to connect to the target URL ('Connection refused'). sqlmap is going to retry the request(s)
 *     [15:29:57] [CRITICAL] unable to connect to the target URL ('Connection refused')
 *
 * The first is a retry notice, the second the verdict. A name sqlmap cannot resolve itself
 * (`[CRITICAL] host 'shop.example' does not exist`) ends the same way, with nothing tested.
 * `[CRITICAL] all tested parameters do not appear to be injectable` is a clean result, not a
 * failure, and is not matched.
 */

/**
 * Each known failure and the fixed message it ends the scan with. The line itself is not passed
 * on: its details (the system's error text, parts of the target's answer) come from outside, and
 * a scan's error reaches the API and the `scan.failed` body (issue 18).
 */
const FAILURES: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^unable to connect to the target URL(?!.*going to retry)/,
    'unable to connect to the target URL',
  ],
  [/^no parameter\(s\) found for testing/, 'no parameter found for testing in the target URL'],
  // sqlmap resolves the name itself (checks.py, checkConnection); the worker's own check said it
  // resolved, so this is a name that resolves differently for the tool, or no longer does.
  [
    /^(?:host '.*' does not exist|problem occurred while resolving a host name)/,
    'the target host name did not resolve for sqlmap',
  ],
];

const CRITICAL_LINE = /^(?:\[[0-9:]{8}\] )?\[CRITICAL\] (.+)$/;

/**
 * The failure a stdout line of sqlmap reports, as a fixed message, or null (also for every other
 * line).
 * @example sqlmapFailure("[15:29:57] [CRITICAL] unable to connect to the target URL ('Connection refused')")
 *   // 'unable to connect to the target URL'
 */
export function sqlmapFailure(line: string): string | null {
  const message = CRITICAL_LINE.exec(line.trim())?.[1];
  if (message === undefined) {
    return null;
  }
  return FAILURES.find(([pattern]) => pattern.test(message))?.[1] ?? null;
}
