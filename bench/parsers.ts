/**
 * Report parsing of every engine that runs a tool (issue 6): each real output file under
 * `../shared/fixtures/scanner-output/<engine>/` is parsed once in a fresh Node process on the
 * compiled service (bench/parse-child.mjs), the way a worker reads a report (streamed through the
 * engine's streaming parser where it has one), and that process's peak RSS is reported; target:
 * under 200 MB for any fixture. For the largest fixture of each engine that has one over 1 MB,
 * the throughput is measured too (about 2 s of repeated parses after a warm-up, MB = 10^6 bytes
 * of report). A child that only loads the modules gives the baseline RSS.
 * Run alone: `npx tsx bench/parsers.ts` (builds dist/ first).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sharedPath } from '../test/support/shared-dir.js';

const ROOT = new URL('../', import.meta.url).pathname;
const CHILD = join(ROOT, 'bench/parse-child.mjs');
const LARGE_BYTES = 1024 * 1024;
export const RSS_TARGET_MB = 200;

/**
 * sublist3r reports only names under the requested domain, so each of its fixtures is parsed for
 * the domain it was made for.
 */
const TARGET_OF_FIXTURE: Readonly<Record<string, string>> = {
  'coinbase-234-mixed-case.txt': 'coinbase.com',
  'indeed-62-subdomains.txt': 'indeed.com',
  'sonichealthcare-87-multilevel.txt': 'sonichealthcare.com',
};

/** The fixture folder of each engine (theHarvester's is `harvester`) and a target it takes. */
const ENGINES: ReadonlyArray<{ readonly engine: string; readonly target: string }> = [
  { engine: 'nmap', target: '203.0.113.10' },
  { engine: 'zap', target: 'https://app.example.com/' },
  { engine: 'trivy', target: 'alpine:3.19' },
  { engine: 'nuclei', target: 'https://app.example.com/' },
  { engine: 'nikto', target: 'https://app.example.com/' },
  { engine: 'sqlmap', target: 'https://app.example.com/search?q=1' },
  { engine: 'wapiti', target: 'https://app.example.com/' },
  { engine: 'harvester', target: 'example.com' },
  { engine: 'sublist3r', target: 'example.com' },
];

export interface ParserBenchRow {
  readonly engine: string;
  readonly file: string;
  readonly bytes: number;
  readonly findings: number;
  readonly warnings: number;
  /** Peak RSS of a process that parsed the report once. */
  readonly peakRssMb: number;
  /** Only for the largest fixture of an engine, when it is over 1 MB. */
  readonly mbPerSecond: number | null;
  /** Peak RSS of the process that parsed it over and over for the throughput figure. */
  readonly loopPeakRssMb: number | null;
}

function child(engine: string, path: string, mode: string, target: string): Record<string, number> {
  const out = execFileSync(process.execPath, [CHILD, engine, path, mode, target], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number>;
}

/** Parses every fixture of every engine; returns the rows and the baseline RSS. */
export function benchParsers(): { baselineRssMb: number; rows: ParserBenchRow[] } {
  const rows: ParserBenchRow[] = [];
  let baselineRssMb = 0;
  for (const { engine, target } of ENGINES) {
    const dir = sharedPath('fixtures', 'scanner-output', engine);
    const files = readdirSync(dir)
      .map((file) => ({ file, path: join(dir, file), bytes: statSync(join(dir, file)).size }))
      .sort((a, b) => b.bytes - a.bytes || a.file.localeCompare(b.file));
    if (baselineRssMb === 0 && files[0] !== undefined) {
      baselineRssMb = child(engine, files[0].path, 'baseline', target).peakRssMb ?? 0;
    }
    files.forEach(({ file, path, bytes }, index) => {
      const fixtureTarget = TARGET_OF_FIXTURE[file] ?? target;
      const once = child(engine, path, 'rss', fixtureTarget);
      const speed =
        index === 0 && bytes > LARGE_BYTES
          ? child(engine, path, 'throughput', fixtureTarget)
          : null;
      rows.push({
        engine,
        file,
        bytes,
        findings: once.findings ?? 0,
        warnings: once.warnings ?? 0,
        peakRssMb: once.peakRssMb ?? 0,
        mbPerSecond: speed?.mbPerSecond ?? null,
        loopPeakRssMb: speed?.peakRssMb ?? null,
      });
    });
  }
  return { baselineRssMb, rows };
}

/** Prints the table and the verdict; returns whether every fixture stayed under the target. */
export function reportParsers(result: ReturnType<typeof benchParsers>): boolean {
  console.log(
    `\nreport parsing, one fresh process per fixture (baseline RSS ${result.baselineRssMb} MB):`,
  );
  console.table(
    result.rows.map((row) => ({
      engine: row.engine,
      file: row.file,
      KB: Math.round(row.bytes / 1024),
      findings: row.findings,
      'peak RSS MB': row.peakRssMb,
      'MB/s': row.mbPerSecond ?? '',
      'RSS in the MB/s loop': row.loopPeakRssMb ?? '',
    })),
  );
  const worst = Math.max(
    ...result.rows.map((row) => Math.max(row.peakRssMb, row.loopPeakRssMb ?? 0)),
  );
  const ok = worst < RSS_TARGET_MB;
  console.log(
    `  highest peak RSS ${worst} MB (target < ${RSS_TARGET_MB} MB): ${ok ? 'met' : 'NOT met'}`,
  );
  return ok;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log('building…');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  reportParsers(benchParsers());
}
