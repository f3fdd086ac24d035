/**
 * The nikto engine through the REAL process runner, against a NAMED TEST DOUBLE of nikto 2.5
 * (test/doubles/scanners/nikto.mjs): the machine has Debian's nikto 2.1.5 (nikto-real.test.ts),
 * so 2.5's JSON report, exit codes and status lines are exercised here. The double is a
 * real executable found on PATH and spawned without a shell; it checks the argv against nikto's
 * command line (refusing anything else with exit code 64), prints the stdout lines it is given,
 * then copies a real nikto report from ../shared/fixtures/scanner-output/nikto/ to the `-output`
 * path. What this proves: the argv the runner passes is one nikto's option table accepts, the
 * report is found and parsed, nikto's status lines become progress, and exit codes, cancellation
 * and timeouts end the scan as they should. What it cannot prove: how the real nikto behaves.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import { buildNiktoArgv } from '../../src/engines/nikto/argv.js';
import { niktoEngine } from '../../src/engines/nikto/engine.js';
import { niktoOptionsWithDefaults } from '../../src/engines/nikto/options.js';
import { engineCommand, loggedArgv, useNamedDouble } from '../support/engine-runs.js';
import { sharedPath } from '../support/shared-dir.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'nikto');
const JUICE_SHOP = join(FIXTURES, 'juice-shop-2.5-array.json');

const TARGET: ScanTarget = {
  type: 'url',
  value: 'http://juice-shop.demo-targets.svc:3000/',
  host: 'juice-shop.demo-targets.svc',
  hostIsAddress: false,
};

/** nikto 2.5's stdout for a short scan with `-Display P` (status every 500 requests). */
const NIKTO_STDOUT = [
  '- Nikto v2.5.0',
  '---------------------------------------------------------------------------',
  '+ Target IP:          10.96.244.199',
  '+ Target Hostname:    juice-shop.demo-targets.svc',
  '+ Target Port:        3000',
  '+ Start Time:         2026-03-01 10:00:00 (GMT0)',
  '---------------------------------------------------------------------------',
  '+ Server: No banner retrieved',
  '+ /: Retrieved access-control-allow-origin header: *.',
  "- STATUS: Completed 500 requests (~6% complete, 4.2 minutes left): currently in plugin 'Nikto Tests'",
  '- STATUS: Running average: 100 requests: 0.01061 sec, 10 requests: 0.0106 sec.',
  "- STATUS: Completed 4000 requests (~50% complete, 2.1 minutes left): currently in plugin 'Nikto Tests'",
  "- STATUS: Completed 7500 requests (~93% complete, 12 seconds left): currently in plugin 'Nikto Tests'",
  '+ 8102 requests: 0 error(s) and 168 item(s) reported on remote host',
  '+ End Time:           2026-03-01 10:04:31 (GMT0) (271 seconds)',
  '---------------------------------------------------------------------------',
  '+ 1 host(s) tested',
];

/** Installs the named test double with a run's settings on a PATH of its own and runs one scan. */
const runWithDouble = useNamedDouble({
  engine: niktoEngine,
  binary: 'nikto',
  tool: 'nikto',
  tempPrefix: 'rampart-nikto-double-',
  target: TARGET,
  options: { tuning: '123' },
  // The double stands for nikto 2.5 (its fixtures are 2.5 JSON): the worker would have probed that.
  toolVersion: '2.5.0',
});

describe('nikto through the process runner, against the nikto test double', () => {
  it('completes (exit 1 = items reported): argv from buildNiktoArgv, report parsed, status lines are progress', async () => {
    const options = { tuning: '1234b', maxTime: '10m', ssl: false };
    const run = await runWithDouble({
      options,
      // nikto 2.5 exits 1 whenever it reported an item.
      settings: { fixture: JUICE_SHOP, stdoutLines: NIKTO_STDOUT, lineDelayMs: 10, exitCode: 1 },
    });
    expect(run.output.ending).toBe('completed');
    expect(run.output.message).toBeNull();
    expect(run.output.warnings).toEqual([]);
    expect(run.output.findings).toHaveLength(168);
    expect(run.output.findings.find((f) => f.location.url?.endsWith('/.htpasswd'))).toMatchObject({
      ruleId: '002739',
      severity: 'medium',
      category: 'sensitive-file',
      location: { host: 'juice-shop.demo-targets.svc', port: 3000, protocol: 'tcp' },
    });

    const [argv, ...more] = await loggedArgv(run.argvLog);
    expect(more).toEqual([]);
    const reportPath = argv?.[(argv?.indexOf('-output') ?? -2) + 1] ?? '';
    expect(reportPath).toMatch(/\/rampart-\d+\/[^/]+\/nikto-[^/]+\/report\.json$/);
    expect(argv).toEqual(
      buildNiktoArgv(niktoOptionsWithDefaults(options), TARGET, {
        outputFile: reportPath,
        version: '2.5.0',
      }),
    );

    expect(run.progress).toEqual([1, 2, 2, 2, 3, 10, 50, 88, 96, 97, 99]);
    expect(run.progress.every((value, i) => i === 0 || value >= (run.progress[i - 1] ?? 0))).toBe(
      true,
    );
  });

  it('exit 0 with [] is a clean scan', async () => {
    const run = await runWithDouble({ settings: { fixture: join(FIXTURES, 'empty-array.json') } });
    expect(run.output).toEqual({ findings: [], warnings: [], ending: 'completed', message: null });
  });

  it('an unresolvable host: completed, no findings, nikto’s error as a warning', async () => {
    const run = await runWithDouble({
      settings: { fixture: join(FIXTURES, 'unresolvable-host-error.json'), exitCode: 1 },
    });
    expect(run.output.ending).toBe('completed');
    expect(run.output.findings).toEqual([]);
    expect(run.output.warnings).toEqual([
      "nikto reported an error for juice-shop.demo-targets.svc: ERROR: Cannot resolve hostname 'unresolvable.example.com' because 'Name does not resolve'.",
    ]);
  });

  it('a non-success exit code ends in engine-error with nikto’s message', async () => {
    const run = await runWithDouble({
      settings: {
        exitCode: 255,
        stderrLines: ['- Could not find a valid nikto config file. Tried: /etc/nikto.conf'],
      },
    });
    expect(run.output.ending).toBe('engine-error');
    expect(run.output.message).toBe('nikto exited with code 255');
    expect(run.output.detail).toBe(
      '- Could not find a valid nikto config file. Tried: /etc/nikto.conf',
    );
    expect(run.output.findings).toEqual([]);
  });

  it('a cancel while nikto runs ends in cancelled within 2 s', async () => {
    const run = await runWithDouble({
      abortAtProgress: 0, // the first progress value
      settings: {
        fixture: JUICE_SHOP,
        stdoutLines: ['+ Target IP:          10.96.244.199'],
        holdMs: 30_000,
      },
    });
    expect(run.output.ending).toBe('cancelled');
    expect(run.progress).toEqual([2]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    // The double was stopped before it wrote the report: nothing to parse, nothing invented.
    expect(run.output.findings).toEqual([]);
  });

  it('a run past its timeout ends in timed-out', async () => {
    const started = Date.now();
    const run = await runWithDouble({
      timeoutMs: 700,
      settings: { fixture: JUICE_SHOP, holdMs: 30_000 },
    });
    expect(run.output.ending).toBe('timed-out');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it.each<[string, (argv: string[]) => string[], string]>([
    ['a stray positional argument', (argv) => [...argv, 'extra'], 'unexpected argument extra'],
    [
      'an abbreviated flag',
      (argv) => argv.map((arg) => (arg === '-host' ? '-h' : arg)),
      'unknown flag -h',
    ],
    ['a flag nikto does not have', (argv) => [...argv, '-nocolor'], 'unknown flag -nocolor'],
    ['no JSON format', (argv) => argv.map((arg) => (arg === 'json' ? 'xml' : arg)), '-Format json'],
    [
      'no report file',
      (argv) => argv.slice(0, argv.indexOf('-output')),
      '-output must be given once',
    ],
    [
      'a comma list of targets',
      (argv) => argv.map((arg) => (arg.startsWith('http') ? `${arg},http://evil.internal/` : arg)),
      'without commas',
    ],
    [
      'a tuning letter nikto lacks',
      (argv) => argv.map((arg) => (arg === '123' ? '12z' : arg)),
      '-Tuning 12z',
    ],
    ['-ssl and -nossl together', (argv) => [...argv, '-ssl', '-nossl'], 'exclude each other'],
  ])('an argv the double refuses (%s) ends in engine-error', async (_name, change, reason) => {
    const command = engineCommand(niktoEngine);
    const run = await runWithDouble({
      command: {
        ...command,
        buildArgv: (options, target, context) =>
          change(command.buildArgv(options, target, context)),
      },
      settings: { fixture: JUICE_SHOP },
    });
    expect(run.output.ending).toBe('engine-error');
    expect(run.output.message).toBe('nikto exited with code 64');
    expect(run.output.detail).toMatch(/^nikto double: argv refused: /);
    expect(run.output.detail).toContain(reason);
    expect(await loggedArgv(run.argvLog)).toEqual([]);
  });
});
