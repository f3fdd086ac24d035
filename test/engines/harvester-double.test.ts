/**
 * The harvester engine through the REAL process runner, with theHarvester replaced by a named
 * TEST DOUBLE (test/doubles/scanners/harvester.mjs): theHarvester cannot be installed on this
 * machine. The double is a real executable on a PATH of the test's own, spawned without a shell
 * with the allowlisted environment; it checks the argv against theHarvester's real command line,
 * prints theHarvester's progress lines and replays a real theHarvester report from
 * ../shared/fixtures/scanner-output/harvester/ to where theHarvester writes it. What the double
 * cannot show: that a real theHarvester release accepts every source name (see README.md).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DraftFinding } from '../../src/domain/findings/finding.js';
import type { EngineCommand } from '../../src/engines/engine.js';
import { buildHarvesterArgv } from '../../src/engines/harvester/argv.js';
import { harvesterEngine } from '../../src/engines/harvester/engine.js';
import {
  HARVESTER_SOURCES,
  harvesterOptionsWithDefaults,
} from '../../src/engines/harvester/options.js';
import type { EngineRunOutput } from '../../src/use-cases/ports/engine-runs.js';
import type { DoubleSettings } from '../doubles/scanners/install-double.js';
import {
  engineCommand,
  engineTarget,
  useNamedDouble,
  useTempDir,
  validatedOptions,
} from '../support/engine-runs.js';
import { sharedPath } from '../support/shared-dir.js';

const FIXTURE = (name: string) => sharedPath('fixtures', 'scanner-output', 'harvester', name);
const RUN_TIMEOUT_MS = 30_000;
const ESC = String.fromCharCode(27);

/** What theHarvester prints after the sources answered (the double prints Target/Searching). */
const REPORTING_LINES = [
  '',
  '[*] Reporting started.',
  '[*] XML File saved.',
  '[*] JSON File saved.',
];

const COMMAND = engineCommand(harvesterEngine);

const TARGET = engineTarget(harvesterEngine, 'coinbase.com', 'domain');

/** Options as the API stores them: validated, every default filled in. */
function validOptions(input: Record<string, unknown>): Record<string, unknown> {
  return validatedOptions(harvesterEngine, input);
}

const runWithDouble = useNamedDouble({
  engine: harvesterEngine,
  binary: 'theHarvester',
  tool: 'harvester',
  tempPrefix: 'rampart-harvester-double-',
  target: TARGET,
  validate: true,
  timeoutMs: RUN_TIMEOUT_MS,
});
/** Where the runner makes the scans' workspaces (each must be gone once its run is over). */
const workspaces = useTempDir('rampart-harvester-workspaces-');

interface Run {
  readonly output: EngineRunOutput;
  readonly progress: number[];
  /** Each argv the double received, as it logged it. */
  readonly argvs: string[][];
  /** From the abort (or, without one, from the start) to the end of the run. */
  readonly elapsedMs: number;
}

/**
 * Installs the named test double with `settings` on a fresh PATH directory and runs one scan
 * through the real runner. `abortAtProgress` cancels it with a real AbortController once that
 * progress value was reported (so the double is known to be running).
 */
async function run(
  settings: DoubleSettings,
  options: Record<string, unknown> = {},
  extra: {
    readonly command?: EngineCommand;
    readonly timeoutMs?: number;
    readonly abortAtProgress?: number;
  } = {},
): Promise<Run> {
  const result = await runWithDouble({
    settings,
    options,
    workspaceBase: workspaces.path,
    ...extra,
  });
  return { ...result, elapsedMs: result.msAfterAbort ?? result.elapsedMs };
}

function byCategory(findings: readonly DraftFinding[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const finding of findings) {
    counts[finding.category] = (counts[finding.category] ?? 0) + 1;
  }
  return counts;
}

describe('harvester engine with the theHarvester TEST DOUBLE and the real process runner', {
  timeout: RUN_TIMEOUT_MS * 2,
}, () => {
  it('parses the report the double replays, from the argv buildHarvesterArgv builds', async () => {
    const options = { sources: ['crtsh', 'otx', 'urlscan'], limit: 100 };
    const { output, argvs } = await run(
      { fixture: FIXTURE('all-keys-emails-asns-ips.json'), stdoutLines: REPORTING_LINES },
      options,
    );
    expect(output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    expect(byCategory(output.findings)).toEqual({ host: 236, ip: 160, email: 3, asn: 11, url: 22 });
    expect(output.findings.find((f) => f.ruleId === 'AS13335')?.category).toBe('asn');
    expect(
      output.findings.find((f) => f.location.url === 'mailto:help@coinbase.com'),
    ).toBeDefined();

    expect(argvs).toHaveLength(1);
    const [argv = []] = argvs;
    const filename = argv.find((argument) => argument.startsWith('--filename='));
    const reportPath = filename?.slice('--filename='.length) ?? '';
    const workDir = dirname(reportPath);
    expect(dirname(workDir)).toBe(workspaces.path);
    expect(argv).toEqual(
      buildHarvesterArgv(harvesterOptionsWithDefaults(validOptions(options)), TARGET, {
        reportPath: join(workDir, 'report.json'),
      }),
    );
    expect(argv).toEqual([
      '--domain=coinbase.com',
      '--source=crtsh,otx,urlscan',
      '--limit=100',
      `--filename=${join(workDir, 'report.json')}`,
    ]);
    // The scan's private workspace is gone once the run is over.
    expect(existsSync(workDir)).toBe(false);
  });

  it('passes theHarvester progress lines to onProgress, only ever going up, never 100', async () => {
    const { output, progress } = await run(
      {
        fixture: FIXTURE('hosts-with-ips.json'),
        stdoutLines: REPORTING_LINES,
        lineDelayMs: 5,
      },
      { dnsLookup: true },
    );
    expect(output.ending).toBe('completed');
    expect(byCategory(output.findings)).toEqual({ host: 538 });
    // Target, then each of the ten public sources moves the source band (5..55) by a tenth (the
    // engine's per-run reader knows how many were asked for), then reporting, XML and JSON saved.
    expect(progress).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 90, 94, 97]);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(Math.max(...progress)).toBeLessThan(100);
  });

  it('a clean run with nothing found: completed, no findings, no warnings', async () => {
    const { output } = await run({ fixture: FIXTURE('empty-no-results.json') });
    expect(output).toEqual({ findings: [], warnings: [], ending: 'completed', message: null });
  });

  it('every source name the schema allows gets through the double, with both DNS actions', async () => {
    const { output, argvs } = await run(
      { fixture: FIXTURE('empty-no-results.json') },
      { sources: [...HARVESTER_SOURCES], dnsLookup: true, dnsBrute: true },
    );
    expect(output.ending).toBe('completed');
    expect(argvs[0]).toContain(`--source=${HARVESTER_SOURCES.join(',')}`);
    expect(argvs[0]?.slice(-3, -1)).toEqual(['--dns-lookup', '--dns-brute']);
  });

  it('a non-zero exit is an engine error with theHarvester stderr in the message', async () => {
    const { output } = await run({
      stderrLines: ['ValueError: Failed to initialize StashManager'],
      exitCode: 1,
    });
    expect(output.ending).toBe('engine-error');
    expect(output.message).toBe('harvester exited with code 1');
    expect(output.detail).toBe('ValueError: Failed to initialize StashManager');
    expect(output.findings).toEqual([]);
  });

  it('an argv off theHarvester contract is refused by the double: an engine error', async () => {
    const offContract: EngineCommand = {
      ...COMMAND,
      buildArgv: (options, target, context) => [
        ...COMMAND.buildArgv(options, target, context),
        '--output=/tmp/x',
      ],
    };
    const { output, argvs } = await run(
      { fixture: FIXTURE('all-keys-emails-asns-ips.json') },
      {},
      { command: offContract },
    );
    expect(output.ending).toBe('engine-error');
    expect(output.message).toBe('harvester exited with code 64');
    expect(output.detail).toBe('theHarvester double: argv refused: unknown flag --output');
    expect(output.findings).toEqual([]);
    expect(argvs).toEqual([]);
  });

  it('a cancel while theHarvester is searching ends the run as cancelled within 2 s', async () => {
    const { output, progress, elapsedMs } = await run(
      { fixture: FIXTURE('all-keys-emails-asns-ips.json'), holdMs: 20_000 },
      { sources: ['crtsh'] },
      { abortAtProgress: 55 },
    );
    expect(output).toMatchObject({ ending: 'cancelled', message: null, findings: [] });
    // The one requested source answered: the whole source band.
    expect(progress).toEqual([5, 55]);
    expect(elapsedMs).toBeLessThan(2_000);
  });

  it('a run past its timeout ends as timed-out', async () => {
    const { output, elapsedMs } = await run(
      { fixture: FIXTURE('all-keys-emails-asns-ips.json'), holdMs: 20_000 },
      { sources: ['crtsh'] },
      { timeoutMs: 800 },
    );
    expect(output).toMatchObject({ ending: 'timed-out', message: null, findings: [] });
    expect(elapsedMs).toBeLessThan(800 + 2_000);
  });

  it('prints the lines real theHarvester prints, ANSI colours included', async () => {
    const { progress, output } = await run(
      {
        fixture: FIXTURE('empty-no-results.json'),
        stdoutLines: [`${ESC}[94m[*] Searching Shodan. `, '\tSearching for 104.16.53.36'],
      },
      { sources: ['hackertarget'] },
    );
    expect(output.ending).toBe('completed');
    // Target and the one requested source (the band's end), then the Shodan line, which cannot
    // go past it; the address line is no phase.
    expect(progress).toEqual([5, 55, 55]);
  });
});
