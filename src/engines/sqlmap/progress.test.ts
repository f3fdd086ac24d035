import { describe, expect, it } from 'vitest';
import { sqlmapEngine } from './engine.js';
import { parseSqlmapProgress } from './progress.js';

/**
 * stdout of a real sqlmap 1.7.2 run (`--technique=BEUSTQ --dbs`, the argv of buildSqlmapArgv)
 * against test/support/vulnerable-app.ts `/search?q=apple`, in order; the injection-point block
 * and the banner are left out. Captured on stdout: the run wrote nothing to stderr.
 */
const REAL_RUN = [
  '[*] starting @ 15:10:52 /2026-11-23/',
  "[15:10:52] [WARNING] using '/tmp/sqlmapwork/p-search/out' as the output directory",
  '[15:10:52] [INFO] testing connection to the target URL',
  '[15:10:52] [INFO] checking if the target is protected by some kind of WAF/IPS',
  '[15:10:52] [INFO] testing if the target URL content is stable',
  '[15:10:53] [INFO] target URL content is stable',
  "[15:10:53] [INFO] testing if GET parameter 'q' is dynamic",
  "[15:10:53] [INFO] GET parameter 'q' appears to be dynamic",
  "[15:10:53] [WARNING] heuristic (basic) test shows that GET parameter 'q' might not be injectable",
  "[15:10:53] [INFO] testing for SQL injection on GET parameter 'q'",
  "[15:10:53] [INFO] testing 'AND boolean-based blind - WHERE or HAVING clause'",
  `[15:10:53] [INFO] GET parameter 'q' appears to be 'AND boolean-based blind - WHERE or HAVING clause' injectable (with --string="apple")`,
  "[15:10:53] [INFO] heuristic (extended) test shows that the back-end DBMS could be 'PostgreSQL' ",
  "it looks like the back-end DBMS is 'PostgreSQL'. Do you want to skip test payloads specific for other DBMSes? [Y/n] Y",
  "for the remaining tests, do you want to include all tests for 'PostgreSQL' extending provided level (1) and risk (1) values? [Y/n] N",
  "[15:10:53] [INFO] testing 'PostgreSQL AND error-based - WHERE or HAVING clause'",
  "[15:10:53] [INFO] GET parameter 'q' is 'PostgreSQL AND error-based - WHERE or HAVING clause' injectable ",
  "[15:10:53] [INFO] testing 'Generic inline queries'",
  "[15:10:53] [INFO] testing 'PostgreSQL > 8.1 stacked queries (comment)'",
  "[15:10:53] [INFO] testing 'PostgreSQL > 8.1 AND time-based blind'",
  "[15:11:03] [INFO] GET parameter 'q' appears to be 'PostgreSQL > 8.1 AND time-based blind' injectable ",
  "[15:11:03] [INFO] testing 'Generic UNION query (NULL) - 1 to 20 columns'",
  '[15:11:03] [INFO] automatically extending ranges for UNION query injection technique tests as there is at least one other (potential) technique found',
  '[15:11:03] [INFO] target URL appears to have 2 columns in query',
  "[15:11:03] [INFO] GET parameter 'q' is 'Generic UNION query (NULL) - 1 to 20 columns' injectable",
  "GET parameter 'q' is vulnerable. Do you want to keep testing the others (if any)? [y/N] Y",
  'sqlmap identified the following injection point(s) with a total of 45 HTTP(s) requests:',
  '[15:11:03] [INFO] the back-end DBMS is PostgreSQL',
  'back-end DBMS: PostgreSQL',
  '[15:11:03] [WARNING] schema names are going to be used on PostgreSQL for enumeration as the counterpart to database names on other DBMSes',
  '[15:11:03] [INFO] fetching database (schema) names',
  "[15:11:03] [INFO] retrieved: 'public'",
  'available databases [3]:',
  '[*] public',
  '[15:11:03] [WARNING] HTTP error codes detected during run:',
  '500 (Internal Server Error) - 41 times',
  "[15:11:03] [INFO] fetched data logged to text files under '/tmp/sqlmapwork/p-search/out/127.0.0.1'",
  '[15:11:03] [WARNING] your sqlmap version is outdated',
  '[*] ending @ 15:11:03 /2026-11-23/',
];

describe('parseSqlmapProgress', () => {
  it.each([
    ['[15:09:08] [INFO] testing connection to the target URL', 2],
    ['[15:09:09] [INFO] checking if the target is protected by some kind of WAF/IPS', 4],
    ['[15:09:09] [INFO] testing if the target URL content is stable', 6],
    ["[15:09:09] [INFO] testing if GET parameter 'id' is dynamic", 8],
    [
      "[15:09:09] [WARNING] heuristic (basic) test shows that GET parameter 'q' might not be injectable",
      10,
    ],
    ["[15:09:09] [INFO] testing for SQL injection on GET parameter 'q'", 12],
    ["[15:09:09] [INFO] testing 'AND boolean-based blind - WHERE or HAVING clause'", 15],
    ["[15:10:52] [INFO] testing 'Boolean-based blind - Parameter replace (original value)'", 15],
    [
      "[15:10:52] [INFO] testing 'MySQL >= 5.1 AND error-based - WHERE, HAVING, ORDER BY or GROUP BY clause (EXTRACTVALUE)'",
      30,
    ],
    ["[15:10:52] [INFO] testing 'Generic inline queries'", 40],
    ["[15:10:52] [INFO] testing 'Microsoft SQL Server/Sybase stacked queries (comment)'", 45],
    ["[15:10:52] [INFO] testing 'MySQL >= 5.0.12 AND time-based blind (query SLEEP)'", 55],
    ["[15:10:52] [INFO] testing 'Generic UNION query (NULL) - 1 to 10 columns'", 65],
    [
      "GET parameter 'q' is vulnerable. Do you want to keep testing the others (if any)? [y/N] Y",
      75,
    ],
    ['sqlmap identified the following injection point(s) with a total of 39 HTTP(s) requests:', 80],
    ['sqlmap resumed the following injection point(s) from stored session:', 80],
    ['[15:09:09] [INFO] the back-end DBMS is PostgreSQL', 85],
    ['[15:10:16] [INFO] fetching database (schema) names', 90],
    ['[10:00:00] [INFO] fetching database names', 90],
    [
      "[15:10:52] [CRITICAL] all tested parameters do not appear to be injectable. Try to increase values for '--level'/'--risk' options",
      95,
    ],
    ["[15:10:16] [INFO] fetched data logged to text files under '/tmp/x/out/127.0.0.1'", 97],
    ['\u001b[1m[15:09:08] [\u001b[32mINFO\u001b[0m] testing connection to the target URL', 2],
    ['[15:09:08] [INFO] testing connection to the target URL\r', 2],
  ])('reads %j as %i', (line, expected) => {
    expect(parseSqlmapProgress(line)).toBe(expected);
  });

  it.each([
    ['the banner', '       __H__'],
    ['the start line', '[*] starting @ 15:09:08 /2026-11-23/'],
    [
      'an output directory warning',
      "[15:09:08] [WARNING] using '/tmp/x/out' as the output directory",
    ],
    ['an injection-point line', 'Parameter: q (GET)'],
    ['a payload line', "    Payload: q=apple' AND 4693=4693 AND 'DnFX'='DnFX"],
    [
      'a result, not a test',
      "[15:09:09] [INFO] GET parameter 'q' appears to be 'AND boolean-based blind - WHERE or HAVING clause' injectable",
    ],
    [
      'a connection failure',
      "[15:09:53] [CRITICAL] unable to connect to the target URL ('Connection refused')",
    ],
    ['an empty line', ''],
  ])('gives null for %s', (_name, line) => {
    expect(parseSqlmapProgress(line)).toBeNull();
  });

  it('reads a real run in order: never backwards, never 100, and reaching the report', () => {
    const values = REAL_RUN.map(parseSqlmapProgress).filter(
      (value): value is number => value !== null,
    );
    expect(values).toEqual([2, 4, 6, 8, 10, 12, 15, 30, 40, 45, 55, 65, 75, 80, 85, 90, 97]);
  });

  it('is read from stdout only, where sqlmap writes its log', () => {
    const line = '[15:09:08] [INFO] testing connection to the target URL';
    expect(sqlmapEngine.command?.progress?.(line, 'stdout')).toBe(2);
    expect(sqlmapEngine.command?.progress?.(line, 'stderr')).toBeNull();
  });
});
