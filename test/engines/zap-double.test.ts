/**
 * The zap engine through the REAL process runner, against a NAMED TEST DOUBLE of ZAP's launcher
 * (test/doubles/scanners/zap.mjs): ZAP cannot be installed on this machine. The double is a real
 * executable found on PATH as `zap.sh` and spawned without a shell; it checks the argv against
 * zap.sh's command line and the plan file the runner wrote (refusing anything else with exit code
 * 64), prints the Automation Framework lines it is given, then copies a real ZAP report from
 * ../shared/fixtures/scanner-output/zap/ to where the plan's report job writes it. What this
 * proves: the argv and the plan reach the tool as built (credentials only in the 0600 plan, never
 * in argv), the report is found and parsed, the job lines become progress, and exit codes,
 * cancellation and timeouts end the scan as they should. What it cannot prove: how the real ZAP
 * reads the plan and behaves.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import { buildZapArgv, ZAP_HOME_DIR } from '../../src/engines/zap/argv.js';
import { zapEngine } from '../../src/engines/zap/engine.js';
import { zapOptionsWithDefaults } from '../../src/engines/zap/options.js';
import { renderZapPlan } from '../../src/engines/zap/plan.js';
import { engineCommand, loggedArgv, useNamedDouble } from '../support/engine-runs.js';
import { sharedPath } from '../support/shared-dir.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'zap');
const BASELINE = join(FIXTURES, 'traditional-json-2.14-baseline.json');
const WEEKLY = join(FIXTURES, 'traditional-json-weekly-2-sites-high.json');

const TARGET: ScanTarget = {
  type: 'url',
  value: 'https://vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca/',
  host: 'vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca',
  hostIsAddress: false,
};

const SECRET = 'Bearer eyJhbGciOi.S3cr3t-t0ken.sig';

/** What `zap.sh -cmd -autorun` prints on stdout for a plan run (CommandLine.info lines). */
const ZAP_STDOUT = [
  'Found Java version 17.0.14',
  'Available memory: 3149 MB',
  'Using JVM args: -Xmx787m',
  'Job replacer started',
  'Job replacer finished, time taken: 00:00:00',
  'Job spider started',
  'Job spider found 12 URLs',
  'Job spider finished, time taken: 00:00:03',
  'Job passiveScan-wait started',
  'Job passiveScan-wait finished, time taken: 00:00:01',
  'Job activeScan started',
  'Job activeScan finished, time taken: 00:02:10',
  'Job report started',
  'Job report finished, time taken: 00:00:01',
  'Automation plan succeeded!',
];

/** Installs the named test double with a run's settings on a PATH of its own and runs one scan. */
const runWithDouble = useNamedDouble({
  engine: zapEngine,
  binary: 'zap.sh',
  tool: 'zap',
  tempPrefix: 'rampart-zap-double-',
  target: TARGET,
});

/** The scan workspace, from the `-dir <workspace>/zap-home` argument. */
function workspaceOf(argv: readonly string[]): string {
  const home = argv[argv.indexOf('-dir') + 1] ?? '';
  return home.slice(0, -`/${ZAP_HOME_DIR}`.length);
}

describe('zap through the process runner, against the zap.sh test double', () => {
  it('completes: argv from buildZapArgv, credentials only in the 0600 plan, report parsed, job lines are progress', async () => {
    const options = {
      scanPolicy: 'light',
      contextExclude: ['.*/logout.*'],
      authentication: { type: 'header', headerName: 'Authorization', headerValue: SECRET },
    };
    const run = await runWithDouble({
      options,
      settings: { fixture: BASELINE, stdoutLines: ZAP_STDOUT, lineDelayMs: 10 },
    });
    expect(run.output.ending).toBe('completed');
    expect(run.output.message).toBeNull();
    expect(run.output.warnings).toEqual([]);
    expect(run.output.findings).toHaveLength(35);
    expect(
      run.output.findings.find(
        (f) => f.ruleId === '10035-1' && f.location.url === `${TARGET.value}robots.txt`,
      ),
    ).toMatchObject({
      title: 'Strict-Transport-Security Header Not Set',
      severity: 'low',
      location: { host: TARGET.host, port: 443, protocol: null },
      identifiers: { cve: [], cwe: ['CWE-319'] },
    });

    const [argv, ...more] = await loggedArgv(run.argvLog);
    expect(more).toEqual([]);
    const workDir = workspaceOf(argv ?? []);
    expect(workDir).toMatch(/\/rampart-\d+\/[^/]+\/zap-[^/]+$/);
    expect(argv).toEqual(buildZapArgv(TARGET, { workDir }));
    expect(JSON.stringify(argv)).not.toContain('S3cr3t');
    expect(JSON.stringify(argv)).not.toContain(TARGET.host ?? '');

    // The plan ZAP read is the one the engine renders, with the secret, readable by its owner only.
    const plan = await readFile(`${run.argvLog}.plan.yaml`, 'utf8');
    expect(plan).toBe(
      renderZapPlan(zapOptionsWithDefaults(options), TARGET, {
        reportDir: workDir,
        reportFile: 'report.json',
      }),
    );
    expect(plan).toContain(`replacementString: "${SECRET}"`);
    expect(await readFile(`${run.argvLog}.plan-mode`, 'utf8')).toBe('600');

    expect(run.progress).toEqual([1, 2, 2, 20, 35, 40, 40, 95, 95, 98, 99]);
    expect(run.progress.every((value, i) => i === 0 || value >= (run.progress[i - 1] ?? 0))).toBe(
      true,
    );
  });

  it('exit 2 (plan warnings) is a success: the report is read', async () => {
    const run = await runWithDouble({
      settings: {
        fixture: WEEKLY,
        exitCode: 2,
        stdoutLines: ['Automation plan warnings:', '\tJob spider found only 3 URLs'],
      },
    });
    expect(run.output.ending).toBe('completed');
    expect(run.output.findings).toHaveLength(352);
    expect(run.output.warnings).toEqual([
      '15 alert(s) list fewer instances than their count (300 of 3085 occurrences): findings cover the listed instances',
    ]);
    expect(run.progress).toEqual([99]);
  });

  it('exit 1 (plan errors) ends in engine-error with ZAP’s message, keeping what the report holds', async () => {
    const run = await runWithDouble({
      settings: {
        fixture: BASELINE,
        exitCode: 1,
        stderrLines: [
          'Job spider failed to access URL https://vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca/ check that it is valid : connection refused',
        ],
      },
    });
    expect(run.output.ending).toBe('engine-error');
    expect(run.output.message).toBe('zap exited with code 1');
    expect(run.output.detail).toBe(
      'Job spider failed to access URL https://vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca/ check that it is valid : connection refused',
    );
    expect(run.output.findings).toHaveLength(35);
  });

  it('a cancel while ZAP runs ends in cancelled within 2 s', async () => {
    const run = await runWithDouble({
      abortAtProgress: 0, // the first progress value
      settings: { fixture: BASELINE, stdoutLines: ['Job spider started'], holdMs: 30_000 },
    });
    expect(run.output.ending).toBe('cancelled');
    expect(run.progress).toEqual([2]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    // ZAP writes its report as the plan's last job: a cancelled run has none.
    expect(run.output.findings).toEqual([]);
  });

  it('a run past its timeout ends in timed-out', async () => {
    const started = Date.now();
    const run = await runWithDouble({
      timeoutMs: 700,
      settings: { fixture: BASELINE, holdMs: 30_000 },
    });
    expect(run.output.ending).toBe('timed-out');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it.each<[string, (argv: string[]) => string[], string]>([
    [
      'the target on the command line',
      (argv) => [...argv, TARGET.value],
      'unexpected argument https://',
    ],
    ['a flag ZAP does not have', (argv) => [...argv, '-target'], 'unknown flag -target'],
    [
      'a glued flag value',
      (argv) => argv.map((arg) => (arg === '-cmd' ? '-dir=/tmp/x' : arg)),
      'no -flag=value form',
    ],
    ['no -cmd', (argv) => argv.filter((arg) => arg !== '-cmd'), '-cmd must be given once'],
    ['-daemon with -cmd', (argv) => [...argv, '-daemon'], 'cannot be used at the same time'],
    ['no plan', (argv) => argv.slice(0, argv.indexOf('-autorun')), '-autorun must be given once'],
    [
      'a plan path that does not exist',
      (argv) => argv.map((arg) => (arg.endsWith('/plan.yaml') ? `${arg}.missing` : arg)),
      '-autorun names no readable plan',
    ],
    [
      'a -config without key=value',
      (argv) => argv.map((arg) => (arg.startsWith('network.') ? 'port0' : arg)),
      '-config takes key=value',
    ],
  ])('an argv the double refuses (%s) ends in engine-error', async (_name, change, reason) => {
    const command = engineCommand(zapEngine);
    const run = await runWithDouble({
      command: {
        ...command,
        buildArgv: (options, target, context) =>
          change(command.buildArgv(options, target, context)),
      },
      settings: { fixture: BASELINE },
    });
    expect(run.output.ending).toBe('engine-error');
    expect(run.output.message).toBe('zap exited with code 64');
    expect(run.output.detail).toMatch(/^zap double: argv refused: /);
    expect(run.output.detail).toContain(reason);
    expect(await loggedArgv(run.argvLog)).toEqual([]);
  });

  it('a plan without the target ends in engine-error', async () => {
    const command = engineCommand(zapEngine);
    const run = await runWithDouble({
      command: {
        ...command,
        inputFiles: (options, target, context) =>
          (command.inputFiles?.(options, target, context) ?? []).map((file) => ({
            ...file,
            content: file.content.replace(/ {6}urls:\n {8}- "[^"]*"\n/, ''),
          })),
      },
      settings: { fixture: BASELINE },
    });
    expect(run.output.ending).toBe('engine-error');
    expect(run.output.message).toBe('zap exited with code 64');
    expect(run.output.detail).toBe(
      'zap double: argv refused: the plan names no target URL (env.contexts[0].urls)',
    );
  });
});
