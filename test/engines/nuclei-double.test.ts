/**
 * The nuclei engine through the REAL process runner, against a NAMED TEST DOUBLE of nuclei
 * (test/doubles/scanners/nuclei.mjs): nuclei cannot be installed on this machine. The double is a
 * real executable found on PATH and spawned without a shell; it checks the argv against nuclei 3's
 * command line (refusing anything else with exit code 64), prints the statistics lines it is
 * given on stderr, then copies a real nuclei output file from ../shared/fixtures/scanner-output/
 * to the `-o` path. What this proves: the argv the runner passes is one nuclei accepts, the report
 * is found and parsed, stderr statistics become progress, and exit codes, cancellation and
 * timeouts end the scan as they should. What it cannot prove: how the real nuclei behaves.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import { buildNucleiArgv } from '../../src/engines/nuclei/argv.js';
import { nucleiEngine } from '../../src/engines/nuclei/engine.js';
import { nucleiOptionsWithDefaults } from '../../src/engines/nuclei/options.js';
import { engineCommand, loggedArgv, useNamedDouble } from '../support/engine-runs.js';
import { sharedPath } from '../support/shared-dir.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'nuclei');
const DVWA_FIXTURE = join(FIXTURES, 'dvwa-mixed-severities-with-req-resp.jsonl');

const URL_TARGET: ScanTarget = {
  type: 'url',
  value: 'http://dvwa_dvwa_1/',
  host: 'dvwa_dvwa_1',
  hostIsAddress: false,
};
const DOMAIN_TARGET: ScanTarget = {
  type: 'domain',
  value: 'www.asdf.de',
  host: 'www.asdf.de',
  hostIsAddress: false,
};

/** `-stats -sj` lines as nuclei 3 prints them on stderr. */
function statsLine(percent: number): string {
  return JSON.stringify({
    duration: `0:00:0${Math.floor(percent / 20)}`,
    errors: '0',
    hosts: '1',
    matched: '3',
    percent: String(percent),
    requests: String(percent * 10),
    rps: '120',
    startedAt: '2026-01-12T13:46:50.1Z',
    templates: '412',
    total: '1000',
  });
}

/** Installs the named test double with a run's settings on a PATH of its own and runs one scan. */
const runWithDouble = useNamedDouble({
  engine: nucleiEngine,
  binary: 'nuclei',
  tool: 'nuclei',
  tempPrefix: 'rampart-nuclei-double-',
  target: URL_TARGET,
});

describe('nuclei through the process runner, against the nuclei test double', () => {
  it('completes: the argv is buildNucleiArgv, the report is parsed, stderr stats are progress', async () => {
    const options = { templates: ['cves', 'exposures'], tags: ['php'], rateLimit: 50 };
    const run = await runWithDouble({
      options,
      settings: {
        fixture: DVWA_FIXTURE,
        // nuclei -silent -jsonl prints each finding on stdout too: not progress.
        stdoutLines: ['{"template-id":"git-config","info":{"severity":"medium"}}'],
        stderrLines: [
          statsLine(0),
          statsLine(35),
          '[WRN] a log line',
          statsLine(70),
          statsLine(100),
        ],
        lineDelayMs: 20,
      },
    });
    expect(run.output.ending).toBe('completed');
    expect(run.output.message).toBeNull();
    expect(run.output.warnings).toEqual([]);
    expect(run.output.findings).toHaveLength(27);
    expect(run.output.findings.find((f) => f.ruleId === 'dvwa-default-login')).toMatchObject({
      severity: 'critical',
      location: { host: 'dvwa_dvwa_1', port: 80, url: 'http://dvwa_dvwa_1/index.php' },
      identifiers: { cwe: ['CWE-798'] },
    });

    const [argv, ...more] = await loggedArgv(run.argvLog);
    expect(more).toEqual([]);
    const reportArg = argv?.find((arg) => arg.startsWith('-o=')) ?? '';
    const reportPath = reportArg.slice('-o='.length);
    expect(reportPath).toMatch(/\/rampart-\d+\/[^/]+\/nuclei-[^/]+\/report\.jsonl$/);
    expect(argv).toEqual(
      buildNucleiArgv(nucleiOptionsWithDefaults(options), URL_TARGET, {
        reportPath,
        privateTargetsAllowed: false,
      }),
    );
    // Private targets are not allowed in this run (the default pin): nuclei refuses them itself.
    expect(argv).toEqual(expect.arrayContaining(['-ni', '-lna']));

    expect(run.progress).toEqual([0, 35, 70, 99]);
    expect(run.progress.every((value, i) => i === 0 || value >= (run.progress[i - 1] ?? 0))).toBe(
      true,
    );
  });

  it('takes config headers, cookies and credentials from a -H file, never on the argv', async () => {
    const run = await runWithDouble({
      config: {
        cookies: { session: 's3ssion' },
        headers: { 'X-Api-Key': 'k3y' },
        auth: { type: 'bearer', token: 't0ken' },
        userAgent: 'Rampart test',
      },
      settings: { fixture: DVWA_FIXTURE },
    });
    expect(run.output.ending).toBe('completed');
    const [argv] = await loggedArgv(run.argvLog);
    const headerArg = argv?.find((arg) => arg.startsWith('-H=')) ?? '';
    expect(headerArg).toMatch(/\/nuclei-[^/]+\/headers\.txt$/);
    for (const secret of ['s3ssion', 'k3y', 't0ken']) {
      expect(argv?.join(' ')).not.toContain(secret);
    }
    expect(
      nucleiEngine.command.inputFiles?.({}, URL_TARGET, {
        reportPath: '/ws/report.jsonl',
        workDir: '/ws',
        config: {
          cookies: { session: 's3ssion', lang: 'en' },
          auth: { type: 'basic', username: 'alice', password: 'pw' },
        },
      }),
    ).toEqual([
      {
        path: 'headers.txt',
        content: `Cookie: session=s3ssion; lang=en\nAuthorization: Basic ${Buffer.from('alice:pw').toString('base64')}\n`,
      },
    ]);
  });

  it('reads a JSON-array report and a domain target', async () => {
    const run = await runWithDouble({
      target: DOMAIN_TARGET,
      settings: { fixture: join(FIXTURES, 'json-export-array-dns-ssl.json') },
    });
    expect(run.output.ending).toBe('completed');
    expect(run.output.findings.map((f) => f.ruleId)).toEqual([
      'dns-saas-service-detection:wix',
      'caa-fingerprint',
      'ssl-issuer',
      'ssl-dns-names',
      'tls-version',
    ]);
    const [argv] = await loggedArgv(run.argvLog);
    expect(argv?.[0]).toBe('-u=www.asdf.de');
  });

  it('runs without -lna, and still with -ni, when private targets are allowed', async () => {
    const run = await runWithDouble({
      pin: { address: null, privateTargetsAllowed: true },
      settings: { fixture: DVWA_FIXTURE },
    });
    expect(run.output.ending).toBe('completed');
    const [argv] = await loggedArgv(run.argvLog);
    expect(argv).toContain('-ni');
    expect(argv).not.toContain('-lna');
  });

  it('a zero-byte report is a clean scan', async () => {
    const run = await runWithDouble({ settings: { fixture: join(FIXTURES, 'empty.jsonl') } });
    expect(run.output).toEqual({ findings: [], warnings: [], ending: 'completed', message: null });
  });

  it('a non-success exit code ends in engine-error with nuclei’s message', async () => {
    const run = await runWithDouble({
      settings: {
        exitCode: 1,
        stderrLines: ['[FTL] Could not run nuclei: no templates provided for scan'],
      },
    });
    expect(run.output.ending).toBe('engine-error');
    expect(run.output.message).toBe('nuclei exited with code 1');
    expect(run.output.detail).toBe('[FTL] Could not run nuclei: no templates provided for scan');
    expect(run.output.findings).toEqual([]);
  });

  it('a cancel while nuclei runs ends in cancelled within 2 s', async () => {
    const run = await runWithDouble({
      abortAtProgress: 0, // the first progress value
      settings: { fixture: DVWA_FIXTURE, stderrLines: [statsLine(12)], holdMs: 30_000 },
    });
    expect(run.output.ending).toBe('cancelled');
    expect(run.progress).toEqual([12]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    // The double was stopped before it wrote the report: nothing to parse, nothing invented.
    expect(run.output.findings).toEqual([]);
  });

  it('a run past its timeout ends in timed-out', async () => {
    const started = Date.now();
    const run = await runWithDouble({
      timeoutMs: 700,
      settings: { fixture: DVWA_FIXTURE, holdMs: 30_000 },
    });
    expect(run.output.ending).toBe('timed-out');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it.each<[string, (argv: string[]) => string[], string]>([
    ['a stray positional argument', (argv) => [...argv, 'extra-target'], 'no positional'],
    ['the nuclei 2 switch -json', (argv) => [...argv, '-json'], 'unknown flag -json'],
    ['no JSON lines switch', (argv) => argv.filter((arg) => arg !== '-jsonl'), '-jsonl'],
    ['no report file', (argv) => argv.filter((arg) => !arg.startsWith('-o=')), '-o is required'],
    ['interactsh left on', (argv) => argv.filter((arg) => arg !== '-ni'), '-ni is required'],
    [
      'a target list that goflags would split',
      (argv) => argv.map((arg) => (arg.startsWith('-u=') ? '-u=a.example,b.example' : arg)),
      'exactly one target',
    ],
    [
      'a severity nuclei does not know',
      (argv) => [...argv, '-severity=severe'],
      'invalid severity',
    ],
  ])('an argv the double refuses (%s) ends in engine-error', async (_name, change, reason) => {
    const command = engineCommand(nucleiEngine);
    const run = await runWithDouble({
      command: {
        ...command,
        buildArgv: (options, target, context) =>
          change(command.buildArgv(options, target, context)),
      },
      settings: { fixture: DVWA_FIXTURE },
    });
    expect(run.output.ending).toBe('engine-error');
    expect(run.output.message).toBe('nuclei exited with code 64');
    expect(run.output.detail).toMatch(/^nuclei double: argv refused: /);
    expect(run.output.detail).toContain(reason);
    expect(await loggedArgv(run.argvLog)).toEqual([]);
  });
});
