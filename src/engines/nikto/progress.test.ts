import { describe, expect, it } from 'vitest';
import { parseNiktoProgress } from './progress.js';

describe('parseNiktoProgress', () => {
  // Lines as nikto prints them on stdout (nikto_core.plugin: dump_target_info, status_report;
  // nikto.pl: the per-host summary and the end).
  it.each([
    ['- Nikto v2.5.0', 1],
    ['+ Target IP:          192.0.2.20', 2],
    ['+ Target Hostname:    shop.example.com', 2],
    ['+ Target Port:        443', 2],
    ['+ Start Time:         2026-03-01 10:00:00 (GMT0)', 3],
    ['- STATUS: Starting up!', 4],
    [
      "- STATUS: Completed 500 requests (~6% complete, 12.3 minutes left): currently in plugin 'Nikto Tests'",
      10,
    ],
    [
      "- STATUS: Completed 4000 requests (~50% complete, 3.1 minutes left): currently in plugin 'Nikto Tests'",
      50,
    ],
    ['- STATUS: Completed 7500 requests (~99% complete, 2 seconds left)', 94],
    // nikto 2.1.x wording: "tests", and the plugin inside the parenthesis.
    [
      "- STATUS: Completed 1500 tests (~23% complete, 4.1 minutes left: currently in plugin 'Nikto Tests')",
      25,
    ],
    ['- STATUS: Finishing up!', 95],
    ['+ 8081 requests: 0 error(s) and 12 item(s) reported on remote host', 96],
    ['+ 26 items checked: 0 error(s) and 1 item(s) reported on remote host', 96],
    ['+ SCAN TERMINATED:  1 error(s) and 3 item(s) reported on remote host', 96],
    ['+ End Time:           2026-03-01 10:12:13 (GMT0) (733 seconds)', 97],
    ['+ 1 host(s) tested', 99],
    ['- STATUS: Completed 500 requests (~6% complete, 12.3 minutes left)\r', 10],
  ])('reads %j as %i', (line, expected) => {
    expect(parseNiktoProgress(line)).toBe(expected);
  });

  it.each([
    ['a finding line', "+ /: Uncommon header 'x-cache' found, with contents: HIT"],
    [
      'the running average',
      '- STATUS: Running average: 100 requests: 0.01061 sec, 10 requests: 0.0106 sec.',
    ],
    [
      'a status line without a percentage',
      "- STATUS: Completed 500 requests: currently in plugin 'Nikto Tests'",
    ],
    ['the server banner', '+ Server: nginx/1.25'],
    ['the divider', '---------------------------------------------------------------------------'],
    ['an error', '+ ERROR: Host maximum execution time of 600 seconds reached'],
    ['an empty line', ''],
  ])('gives null for %s', (_name, line) => {
    expect(parseNiktoProgress(line)).toBeNull();
  });

  it('never goes back and never reaches 100 over a whole run in nikto order', () => {
    const run = [
      '- Nikto v2.5.0',
      '+ Target IP:          192.0.2.20',
      '+ Start Time:         2026-03-01 10:00:00 (GMT0)',
      ...[0, 10, 25, 50, 75, 99, 100].map(
        (percent) =>
          `- STATUS: Completed ${percent * 80} requests (~${percent}% complete, 1 minutes left)`,
      ),
      '+ 8081 requests: 0 error(s) and 12 item(s) reported on remote host',
      '+ End Time:           2026-03-01 10:12:13 (GMT0) (733 seconds)',
      '+ 1 host(s) tested',
    ];
    const values = run.map(parseNiktoProgress);
    expect(values.every((value) => value !== null && value >= 0 && value <= 99)).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => (a ?? 0) - (b ?? 0)));
  });
});
