import { describe, expect, it } from 'vitest';
import { parseNucleiProgress } from './progress.js';

/** A `-stats -sj` line as nuclei 3 prints it (string values, keys sorted by Go's encoder). */
function statsLine(fields: Record<string, string>): string {
  return JSON.stringify({
    duration: '0:00:04',
    errors: '0',
    hosts: '1',
    matched: '2',
    percent: '42',
    requests: '420',
    rps: '105',
    startedAt: '2024-05-02T10:00:00.123456789Z',
    templates: '310',
    total: '1000',
    ...fields,
  });
}

describe('parseNucleiProgress', () => {
  it.each<[string, string, number | null]>([
    ['a -sj statistics line', statsLine({}), 42],
    ['the start of the scan', statsLine({ percent: '0', requests: '0' }), 0],
    [
      'the last line reaches 100%: shown as 99',
      statsLine({ percent: '100', requests: '1000' }),
      99,
    ],
    ['requests past the estimate (retries)', statsLine({ percent: '137', requests: '1370' }), 99],
    [
      'total 0 (templates still loading): the percent of a division by zero is ignored',
      statsLine({ percent: '9223372036854775808', requests: '0', total: '0' }),
      null,
    ],
    ['no percent: requests/total', statsLine({ percent: '', requests: '250', total: '1000' }), 25],
    ['numbers instead of strings', '{"percent":37,"requests":37,"templates":1,"total":100}', 37],
    ['with a trailing CR', `${statsLine({ percent: '7' })}\r`, 7],
    [
      'the text form (-stats without -sj)',
      '[0:00:05] | Templates: 310 | Hosts: 1 | RPS: 84 | Matched: 0 | Errors: 3 | Requests: 420/1000 (42%)',
      42,
    ],
    [
      'the text form at 100%',
      '[0:00:09] | Templates: 1 | Hosts: 1 | RPS: 1 | Matched: 0 | Errors: 0 | Requests: 5/5 (100%)',
      99,
    ],
    ['a finding on the wrong stream', '{"template-id":"x","info":{"severity":"low"}}', null],
    ['a log line', '[INF] Current nuclei version: v3.3.7 (latest)', null],
    ['a warning', '[WRN] Found 2 templates with runtime error', null],
    ['broken JSON', '{"percent":"4', null],
    ['a JSON array', '[1,2]', null],
    ['empty', '', null],
    [
      'a very long line',
      `{"percent":"5","templates":"1","requests":"1","total":"2","x":"${'a'.repeat(5000)}"}`,
      null,
    ],
  ])('%s → %s', (_name, line, expected) => {
    expect(parseNucleiProgress(line)).toBe(expected);
  });

  it('a real run rises and never reaches 100', () => {
    const lines = [0, 13, 27, 55, 81, 100].map((percent) =>
      statsLine({ percent: String(percent), requests: String(percent * 10) }),
    );
    const values = lines.map(parseNucleiProgress);
    expect(values).toEqual([0, 13, 27, 55, 81, 99]);
  });
});
