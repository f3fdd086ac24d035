import { describe, expect, it } from 'vitest';
import { parseZapProgress } from './progress.js';

describe('parseZapProgress', () => {
  it.each<[string, number | null]>([
    // Automation Framework lines as ZAP prints them on stdout (CommandLine.info).
    ['Job replacer started', 1],
    ['Job replacer finished, time taken: 00:00:00', 2],
    ['Job spider started', 2],
    ['Job spider requesting URL https://app.example.com/', null],
    ['Job spider found 47 URLs', null],
    ['Job spider finished, time taken: 00:00:03', 20],
    ['Job spiderAjax started', 20],
    ['Job spiderAjax found 17 URLs', null],
    ['Job spiderAjax test of type stats passed: At least X URLs found [17 >= 1]', null],
    ['Job spiderAjax finished, time taken: 00:00:22', 35],
    ['Job passiveScan-wait started', 35],
    ['Job passiveScan-wait finished', 40],
    ['Job activeScan set defaultStrength = medium', null],
    ['Job activeScan started', 40],
    ['Job activeScan terminated', null],
    ['Job activeScan finished, time taken: 00:41:07', 95],
    ['Job report started', 95],
    ['Job report finished, time taken: 00:00:01', 98],
    ['Automation plan succeeded!', 99],
    ['Automation plan warnings:', 99],
    ['Automation plan failures:', 99],
    // The same text through log4j (when -nostdout is not given).
    ['2022-03-16 13:49:06,372 [main ] INFO  CommandLine - Job spider started', 2],
    [
      '7536 [ZAP-daemon] INFO  org.parosproxy.paros.CommandLine - Job spider finished, time taken: 00:00:03',
      20,
    ],
    // Everything else.
    ['Job delay started', null],
    ['Job spidering started', null],
    ['Job spider startedx', null],
    ['Found Java version 17.0.14', null],
    ['Available memory: 3149 MB', null],
    ['', null],
    ['Job constructor started', null],
  ])('%j → %s', (line, expected) => {
    expect(parseZapProgress(line)).toBe(expected);
  });

  it('rises through a whole plan run and never reaches 100', () => {
    const run = [
      'Job spider started',
      'Job spider finished, time taken: 00:00:03',
      'Job spiderAjax started',
      'Job spiderAjax finished, time taken: 00:00:22',
      'Job passiveScan-wait started',
      'Job passiveScan-wait finished, time taken: 00:00:01',
      'Job activeScan started',
      'Job activeScan finished, time taken: 00:12:00',
      'Job report started',
      'Job report finished, time taken: 00:00:01',
      'Automation plan succeeded!',
    ].map(parseZapProgress);
    expect(run).toEqual([2, 20, 20, 35, 35, 40, 40, 95, 95, 98, 99]);
    for (let i = 1; i < run.length; i += 1) {
      expect(run[i]).toBeGreaterThanOrEqual(run[i - 1] ?? 0);
    }
  });
});
