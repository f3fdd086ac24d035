/**
 * Sentinel correlation, counted in instructions: how much work `correlate` does at 10,000,
 * 100,000 and 1,000,000 findings, whatever the CPU caches and the machine's other load do to the
 * clock. This is what "linear growth" is judged on (bench/correlation.ts times the same runs).
 *
 * Why: in wall-clock time even a plainly linear pass over the findings grows far more than 10×
 * per tenfold on this runtime (bench/correlation.ts's reference pass), because 10,000 findings
 * fit the CPU caches and a million (about 1.5 GB of heap) do not. Instructions do not depend on
 * where the data sits, so they show the algorithm's own growth: linear is 10× per tenfold; an
 * n log n sort shows as about 12×, a quadratic step as 100×.
 *
 * How: each size runs in its own Node process under valgrind's callgrind with instrumentation
 * off (`--instr-atstart=no`). The process builds the same input as bench/correlation.ts, runs
 * `correlate` until the compiler has optimized it (20 runs on 10,000 findings, then two on the
 * input). Then, per counted run (5 at 10k and 100k, where compiler work in the background can
 * weigh on a small total and a full collection may or may not fall into a run; 1 at 1M), it
 * switches instrumentation on (`callgrind_control -i on <its own pid>`), runs `correlate`,
 * switches it off and dumps the counters (`callgrind_control -d`). The instructions of each run
 * (every thread: the garbage collector's too) are read from its dump; the median is kept.
 * valgrind runs everything 5–50× slower, so the sizes take about ten minutes in all. Without
 * valgrind on PATH the stage is reported as not measured.
 *
 * Target: at most 11× more instructions per 10× more findings (10× and 10 % for what varies:
 * the input is cut from whole sites, and the garbage collector does not run at the same points).
 * Run alone: `npx tsx bench/correlation-instructions.ts`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { correlate } from '../src/engines/sentinel/correlate.js';
import { benchInput, SIZES, siteTemplate } from './correlation.js';

/** Instructions per tenfold: 10× and 10 %. */
export const MAX_INSTRUCTION_GROWTH = 11;

export interface InstructionRow {
  readonly findings: number;
  /** The median over the counted runs. */
  readonly instructions: number;
  readonly perFinding: number;
  readonly runs: number;
  readonly lowest: number;
  readonly highest: number;
}

export interface InstructionResult {
  /** Null when valgrind is not installed. */
  readonly rows: readonly InstructionRow[] | null;
  readonly growth100kOver10k: number | null;
  readonly growth1mOver100k: number | null;
  readonly pass: boolean | null;
}

function hasValgrind(): boolean {
  return spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Runs counted per size: the median is kept (compiler work can fall into a small run). */
export function countedRuns(size: number): number {
  return size <= 100_000 ? 5 : 1;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * The instructions of each counted run at one size, in a process of its own under callgrind:
 * the child dumps the counters after each run (`callgrind_control -d`), one file each.
 */
function countAt(size: number): number[] {
  const directory = mkdtempSync(join(tmpdir(), 'rampart-callgrind-'));
  try {
    const run = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        // V8 writes machine code at run time: valgrind must notice code it already translated
        // being replaced.
        '--smc-check=all-non-file',
        `--callgrind-out-file=${join(directory, 'counts')}`,
        process.execPath,
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--child',
        String(size),
      ],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        cwd: fileURLToPath(new URL('../', import.meta.url)),
      },
    );
    if (run.status !== 0 || !(run.stdout ?? '').includes('measured')) {
      throw new Error(
        `callgrind run at ${size} failed (${run.status}): ${(run.stderr ?? '').slice(-2000)}`,
      );
    }
    // counts.1, counts.2 …: one dump per counted run (the file written at exit holds nothing).
    return readdirSync(directory)
      .filter((name) => /^counts\.\d+$/.test(name))
      .map((name) => {
        const totals = /^totals: (\d+)$/m.exec(readFileSync(join(directory, name), 'utf8'));
        return Number(totals?.[1] ?? 0);
      })
      .filter((count) => count > 0);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** In the child: warm up, then count `countedRuns(size)` runs of `correlate`, one dump each. */
function child(size: number): void {
  const template = siteTemplate();
  // Warm-up: many runs on a small input, so that the compiler optimizes whole functions with
  // complete type feedback (a few runs on a large input leave code compiled in the middle of a
  // loop, which is thrown away on the next call), then two on the input itself.
  const small = benchInput(template, 10_000);
  for (let i = 0; i < 20; i++) {
    correlate(small);
  }
  const input = benchInput(template, size);
  for (let i = 0; i < 2; i++) {
    correlate(input);
  }
  const control = (...args: string[]) =>
    execFileSync('callgrind_control', [...args, String(process.pid)], { stdio: 'ignore' });
  let outputs = 0;
  for (let run = 0; run < countedRuns(size); run++) {
    // No forced collection before the run: after one, V8 shrinks the young generation, and a
    // 10k run that otherwise fits it then pays for scavenges (seen: 15,000 instructions per
    // finding without, 24,000–30,000 with). Whether a full collection falls into a run varies
    // (seen: 15,000 or 22,000 per finding at 100k): hence several runs and the median.
    control('-i', 'on');
    outputs = correlate(input).length;
    control('-i', 'off');
    control('-d');
  }
  process.stdout.write(`measured ${outputs}\n`);
}

export function benchCorrelationInstructions(sizes: readonly number[] = SIZES): InstructionResult {
  if (!hasValgrind()) {
    return { rows: null, growth100kOver10k: null, growth1mOver100k: null, pass: null };
  }
  const rows = sizes.map((findings) => {
    const runs = countAt(findings);
    const instructions = median(runs);
    return {
      findings,
      instructions,
      perFinding: Math.round(instructions / findings),
      runs: runs.length,
      lowest: Math.min(...runs),
      highest: Math.max(...runs),
    };
  });
  const at = (size: number) => rows.find((row) => row.findings === size)?.instructions;
  const ratio = (big: number, small: number) => {
    const [a, b] = [at(big), at(small)];
    return a === undefined || b === undefined ? null : Number((a / b).toFixed(2));
  };
  const growth100kOver10k = ratio(100_000, 10_000);
  const growth1mOver100k = ratio(1_000_000, 100_000);
  const pass = [growth100kOver10k, growth1mOver100k].every(
    (growth) => growth === null || growth <= MAX_INSTRUCTION_GROWTH,
  );
  return { rows, growth100kOver10k, growth1mOver100k, pass };
}

/** Prints the figures and the PASS/FAIL line; returns whether the target was met. */
export function reportCorrelationInstructions(result: InstructionResult): boolean {
  console.log('\nsentinel correlation, instructions of one `correlate` run (callgrind):');
  if (result.rows === null) {
    console.log('  not measured: valgrind is not installed (apt-get install -y valgrind)');
    return true;
  }
  console.table(
    result.rows.map((row) => ({
      findings: row.findings,
      'instructions (median)': row.instructions,
      'per finding': row.perFinding,
      runs: row.runs,
      lowest: row.lowest,
      highest: row.highest,
    })),
  );
  console.log(
    `  growth 100k/10k ${result.growth100kOver10k ?? '-'}×, 1M/100k ${result.growth1mOver100k ?? '-'}× (linear: 10×)`,
  );
  console.log(
    `  instructions per 10× more findings (target ≤ ${MAX_INSTRUCTION_GROWTH}×): ${result.pass ? 'PASS' : 'FAIL'}`,
  );
  return result.pass === true;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--child');
  if (at !== -1) {
    child(Number(process.argv[at + 1]));
  } else {
    const result = benchCorrelationInstructions();
    if (process.argv.includes('--json')) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      process.exitCode = reportCorrelationInstructions(result) ? 0 : 1;
    }
  }
}
