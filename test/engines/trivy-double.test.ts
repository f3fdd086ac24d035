/**
 * The trivy engine through the real process runner, against a NAMED TEST DOUBLE of trivy
 * (test/doubles/scanners/trivy.mjs): trivy cannot be installed on this machine. The double is a
 * real executable found on PATH and spawned without a shell; it checks its argv against trivy's
 * documented command line (refusing unknown flags, flags of the other subcommand, a missing
 * `--format json --output <file>` and a misplaced target with exit code 64) and then replays a
 * real trivy report from ../shared/fixtures/scanner-output/trivy/ to the `--output` path. What is
 * tested here is Rampart's side: argv, workspace, environment, progress, exit codes, cancel,
 * timeout and the streaming parse of the replayed report. Parsing itself is tested on every
 * fixture in src/engines/trivy/parse.test.ts.
 */
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import type { EngineCommand } from '../../src/engines/engine.js';
import { trivyEngine } from '../../src/engines/trivy/engine.js';
import { checkEngineOptions } from '../../src/engines/validate-options.js';
import type { EngineRunOutput } from '../../src/use-cases/ports/engine-runs.js';
import type { DoubleSettings } from '../doubles/scanners/install-double.js';
import { engineCommand, engineTarget, useNamedDouble } from '../support/engine-runs.js';
import { sharedPath } from '../support/shared-dir.js';

const fixture = (name: string) => sharedPath('fixtures', 'scanner-output', 'trivy', name);

/** trivy 0.6x log lines, as the real tool writes them to stderr during an image scan. */
const IMAGE_SCAN_LOG = [
  '2026-08-13T20:58:55Z\tINFO\t[vulndb] Need to update DB',
  '2026-08-13T20:58:55Z\tINFO\t[vulndb] Downloading vulnerability DB...',
  '2026-08-13T20:58:55Z\tINFO\t[vulndb] Downloading artifact...\trepo="ghcr.io/aquasecurity/trivy-db:2"',
  '2026-08-13T20:59:00Z\tINFO\t[vulndb] Artifact successfully downloaded\trepo="ghcr.io/aquasecurity/trivy-db:2"',
  '2026-08-13T20:59:00Z\tINFO\t[vuln] Vulnerability scanning is enabled',
  '2026-08-13T20:59:00Z\tINFO\t[secret] Secret scanning is enabled',
  '2026-08-13T20:59:30Z\tINFO\tDetected OS\tfamily="alpine" version="3.11.12"',
  '2026-08-13T20:59:30Z\tINFO\t[alpine] Detecting vulnerabilities...\tos_version="3.11" repository="3.11" pkg_num=33',
  '2026-08-13T20:59:30Z\tINFO\tNumber of language-specific files\tnum=1',
  '2026-08-13T20:59:30Z\tINFO\t[node-pkg] Detecting vulnerabilities...',
  '2026-08-13T20:59:31Z\tWARN\tThis OS version is no longer supported by the distribution\tfamily="alpine" version="3.11.12"',
];

const command = engineCommand(trivyEngine);

function target(value: string, type: 'image' | 'url'): ScanTarget {
  return engineTarget(trivyEngine, value, type);
}

const IMAGE = target('bkimminich/juice-shop:v12.10.2', 'image');
const REPOSITORY = target('https://github.com/example/app', 'url');

/** Installs the named test double of trivy with a run's settings on a PATH of its own. */
const runWithDouble = useNamedDouble({
  engine: trivyEngine,
  binary: 'trivy',
  tool: 'trivy',
  tempPrefix: 'rampart-trivy-double-test-',
  target: IMAGE,
  validate: true,
});

interface RunOptions {
  readonly scanTarget?: ScanTarget;
  readonly options?: Record<string, unknown>;
  readonly timeoutMs?: number;
  /** Aborts the scan as soon as progress reaches this value (trivy is then running). */
  readonly cancelAtProgress?: number;
  /** The engine command to run instead of the real one (argv the double must refuse). */
  readonly engineCommand?: EngineCommand;
}

interface RunResult {
  readonly output: EngineRunOutput;
  readonly progress: number[];
  /** Each argv the double received. */
  readonly argvs: string[][];
  readonly elapsedMs: number;
  /** From the abort to the runner's answer. */
  readonly afterCancelMs: number | null;
}

/** Runs one scan of the trivy double installed with `settings`, options validated as the API would. */
async function scanWithDouble(settings: DoubleSettings, run: RunOptions = {}): Promise<RunResult> {
  const result = await runWithDouble({
    settings,
    target: run.scanTarget,
    options: run.options,
    timeoutMs: run.timeoutMs,
    abortAtProgress: run.cancelAtProgress,
    command: run.engineCommand,
  });
  return { ...result, afterCancelMs: result.msAfterAbort };
}

/** The report path the double was given (`--output <path>`). */
function outputOf(argv: readonly string[]): string {
  const at = argv.indexOf('--output');
  return at === -1 ? '' : (argv[at + 1] ?? '');
}

describe('trivy engine through the process runner, against the trivy TEST DOUBLE', () => {
  it('image scan: the argv buildArgv builds, phase progress from stderr, the replayed report parsed', async () => {
    const options = {
      scanners: ['vuln', 'secret'],
      severity: ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'],
    };
    const { output, progress, argvs } = await scanWithDouble(
      { fixture: fixture('image-schema2-alpine-node-secrets.json'), stderrLines: IMAGE_SCAN_LOG },
      { options },
    );
    expect(output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    expect(argvs).toHaveLength(1);
    const [argv = []] = argvs;
    const reportPath = outputOf(argv);
    expect(reportPath).toMatch(/\/rampart-\d+\/[^/]+\/trivy-[^/]+\/report\.json$/);
    const checked = checkEngineOptions(trivyEngine, options);
    expect(argv).toEqual(
      command.buildArgv(checked.ok ? checked.options : {}, IMAGE, {
        reportPath,
        workDir: dirname(reportPath),
        privileged: false,
        pin: { address: null, privateTargetsAllowed: false },
      }),
    );
    expect(argv.slice(0, 1)).toEqual(['image']);
    expect(argv.slice(-2)).toEqual(['--', 'bkimminich/juice-shop:v12.10.2']);
    // 182 vulnerability records (150 distinct package issues) and 3 secrets.
    expect(output.findings).toHaveLength(153);
    expect(
      output.findings.find((f) => f.ruleId === 'CVE-2021-3807|ansi-regex@4.1.0|Node.js'),
    ).toMatchObject({
      severity: 'high',
      category: 'vulnerability',
      identifiers: { cve: ['CVE-2021-3807'], cwe: ['CWE-1333'] },
    });
    expect(progress).toEqual([2, 5, 15, 20, 20, 70, 80, 80, 80]);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('repository scan: `trivy repository <url>` and findings located at the repository', async () => {
    const { output, argvs } = await scanWithDouble(
      { fixture: fixture('fs-vulns-misconfig-secrets.json') },
      { scanTarget: REPOSITORY, options: { scanners: ['vuln', 'misconfig', 'secret'] } },
    );
    expect(output.ending).toBe('completed');
    const [argv = []] = argvs;
    expect(argv[0]).toBe('repository');
    expect(argv).not.toContain('--image-src');
    expect(argv.slice(-2)).toEqual(['--', 'https://github.com/example/app']);
    expect(output.findings.map((f) => [f.category, f.location.url])).toEqual([
      ['vulnerability', 'https://github.com/example/app'],
      ['vulnerability', 'https://github.com/example/app'],
      ['misconfiguration', 'https://github.com/example/app'],
      ['secret', 'https://github.com/example/app'],
      ['secret', 'https://github.com/example/app'],
    ]);
  });

  it('streams the 2.6 MB cluster report from the workspace: every finding and the resource errors', async () => {
    const { output } = await scanWithDouble({ fixture: fixture('large-k8s-cluster-2.6mb.json') });
    expect(output.ending).toBe('completed');
    expect(output.findings).toHaveLength(672);
    expect(output.warnings).toHaveLength(2);
    expect(output.warnings[0]).toMatch(/^trivy could not scan securecodebox-system\/Deployment\//);
  });

  it('a clean image (null report of an old trivy) completes with no findings', async () => {
    const { output } = await scanWithDouble({ fixture: fixture('legacy-null.json') });
    expect(output).toEqual({ findings: [], warnings: [], ending: 'completed', message: null });
  });

  it('exit code 1 (trivy failed) is an engine error naming trivy’s message', async () => {
    const { output } = await scanWithDouble({
      exitCode: 1,
      stderrLines: [
        '2026-08-13T20:58:55Z\tINFO\t[vulndb] Need to update DB',
        '2026-08-13T20:59:02Z\tFATAL\tFatal error\trun error: image scan error: unable to find the specified image "bkimminich/juice-shop:v12.10.2"',
      ],
    });
    expect(output.ending).toBe('engine-error');
    expect(output.message).toBe('trivy exited with code 1');
    expect(output.detail).toMatch(/^.*unable to find the specified image/s);
    expect(output.findings).toEqual([]);
  });

  it('a cancel while trivy runs ends the scan as cancelled within 2 s', async () => {
    const { output, afterCancelMs, progress } = await scanWithDouble(
      {
        fixture: fixture('image-schema2-alpine-node-secrets.json'),
        stderrLines: IMAGE_SCAN_LOG.slice(0, 2),
        holdMs: 20_000,
      },
      { cancelAtProgress: 5 },
    );
    expect(output.ending).toBe('cancelled');
    expect(afterCancelMs).not.toBeNull();
    expect(afterCancelMs ?? Number.POSITIVE_INFINITY).toBeLessThan(2000);
    // Killed before writing its report: nothing to parse, and the progress seen so far arrived.
    expect(output.findings).toEqual([]);
    expect(progress).toEqual([2, 5]);
  });

  it('a run past the scan timeout ends as timed-out', async () => {
    const { output, elapsedMs } = await scanWithDouble(
      { fixture: fixture('image-schema2-alpine-node-secrets.json'), holdMs: 20_000 },
      { timeoutMs: 600 },
    );
    expect(output.ending).toBe('timed-out');
    expect(elapsedMs).toBeLessThan(5000);
  });

  it.each<[string, (argv: string[]) => string[], RegExp]>([
    [
      'an unknown flag',
      (argv) => [...argv.slice(0, -2), '--no-such-flag', ...argv.slice(-2)],
      /unknown flag --no-such-flag/,
    ],
    [
      'a flag of the other subcommand (--branch is trivy repository’s)',
      (argv) => [...argv.slice(0, -2), '--branch=main', ...argv.slice(-2)],
      /unknown flag --branch/,
    ],
    [
      'no --format json',
      (argv) => argv.filter((arg, i) => arg !== '--format' && argv[i - 1] !== '--format'),
      /--format\/-f must be given once, got 0/,
    ],
    [
      'the target before --',
      (argv) => [...argv.slice(0, -2), argv.at(-1) ?? '', '--'],
      /the target must be the one argument after --/,
    ],
    [
      'a severity trivy does not know',
      (argv) => argv.map((arg) => (arg.startsWith('--severity=') ? '--severity=SEVERE' : arg)),
      /--severity does not take "SEVERE"/,
    ],
  ])('argv with %s is refused by the double: an engine error', async (_name, change, reason) => {
    const refusing: EngineCommand = {
      ...command,
      buildArgv: (options, scanTarget, context) =>
        change(command.buildArgv(options, scanTarget, context)),
    };
    const { output } = await scanWithDouble(
      { fixture: fixture('image-schema2-no-vulns.json') },
      { engineCommand: refusing },
    );
    expect(output.ending).toBe('engine-error');
    expect(output.message).toBe('trivy exited with code 64');
    expect(output.detail).toMatch(/^trivy double: argv refused: /);
    expect(output.detail).toMatch(reason);
  });

  it('--image-src on a repository scan is refused, as trivy repository has no such flag', async () => {
    const imageOnly: EngineCommand = {
      ...command,
      buildArgv: (options, scanTarget, context) => {
        const argv = command.buildArgv(options, scanTarget, context);
        return [...argv.slice(0, -2), '--image-src', 'remote', ...argv.slice(-2)];
      },
    };
    const { output } = await scanWithDouble(
      { fixture: fixture('fs-vulns-misconfig-secrets.json') },
      { scanTarget: REPOSITORY, engineCommand: imageOnly },
    );
    expect(output.ending).toBe('engine-error');
    expect(output.detail).toMatch(/unknown flag --image-src/);
  });
});
