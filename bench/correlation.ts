/**
 * Sentinel correlation speed: `correlate` on findings of five engines at 10,000, 100,000 and
 * 1,000,000 findings. The input is real scanner output: one "site" is made of the fixtures of
 * nmap (16 open ports and their vulners findings), nuclei (a DVWA scan), ZAP (a baseline scan),
 * wapiti (two reports) and nikto (a Tomcat scan), parsed once with each engine's parser and
 * moved onto one host (test/support/sentinel-findings.ts), so that on every site cross-engine
 * merges really happen (nmap port 80 with nuclei's technology detections, the missing
 * X-Frame-Options of nuclei and nikto, the missing HSTS of ZAP and wapiti …). The site is then
 * replicated over as many hosts as the size needs, each copy with its own host, URLs,
 * fingerprints, scan ids and finding ids.
 *
 * Per size: one warm-up run, then the median of several runs (5, 3 at 1M) of `correlate` alone
 * (building the input is not timed). Reported: median time, µs per finding, the number of
 * findings out and of merged ones, and the growth 100k/10k and 1M/100k (linear is ≈ 10×; an
 * n log n sort gives ≈ 12×; beyond that, a million findings and their output no longer fit in
 * the CPU caches, and the garbage collector works on a heap of a few GB). Targets: 100,000
 * findings in under 1 s; growth at most 15× per 10× more findings.
 * Run alone: `npx tsx --expose-gc bench/correlation.ts` (with --expose-gc the previous run's
 * output is collected before each timed run; without it the figures are noisier).
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { DraftFinding } from '../src/domain/findings/finding.js';
import type { EngineName } from '../src/engines/engine.js';
import { correlate } from '../src/engines/sentinel/correlate.js';
import type { CorrelatedFinding, SourceFinding } from '../src/engines/sentinel/types.js';
import { asSources, parseFixture, rehome } from '../test/support/sentinel-findings.js';

export const SIZES = [10_000, 100_000, 1_000_000] as const;
export const TARGET_MS_AT_100K = 1000;
/** Growth allowed per 10× more findings: ≈ 10× is linear, n log n sorting adds ≈ 20 %. */
export const MAX_GROWTH = 15;

/** The host every finding of the site template is on; replicas replace it. */
const SITE = 'site.bench.example';
const ORIGIN = `http://${SITE}`;

/** Fixtures of one site: engine, file, the target it was parsed for, where it was scanned. */
const SITE_FIXTURES: ReadonlyArray<{
  readonly engine: EngineName;
  readonly file: string;
  readonly target: string;
  readonly from: string;
  readonly to: string;
}> = [
  {
    engine: 'nmap',
    file: 'services-os-scripts-all-ports.xml',
    target: '172.28.1.3',
    from: '172.28.1.3',
    to: SITE,
  },
  {
    engine: 'nuclei',
    file: 'dvwa-mixed-severities-with-req-resp.jsonl',
    target: ORIGIN,
    from: 'http://dvwa_dvwa_1',
    to: ORIGIN,
  },
  {
    engine: 'zap',
    file: 'traditional-json-2.14-baseline.json',
    target: 'https://vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca/',
    from: 'https://vhers-virus-scan-tools-c82b4c-tools.apps.silver.devops.gov.bc.ca',
    to: ORIGIN,
  },
  {
    engine: 'wapiti',
    file: 'xml-3.0.4-juiceshop.xml',
    target: 'https://juice-shop.herokuapp.com/',
    from: 'https://juice-shop.herokuapp.com',
    to: ORIGIN,
  },
  {
    engine: 'wapiti',
    file: 'json-3.2.10-sqli-xss-csrf.json',
    target: 'http://testaspnet.vulnweb.com/',
    from: 'http://testaspnet.vulnweb.com',
    to: ORIGIN,
  },
  {
    engine: 'nikto',
    file: 'localhost-2.1.5-flat.xml',
    target: 'http://localhost:8070/',
    from: 'http://localhost:8070',
    to: ORIGIN,
  },
];

/** The findings of one site, as the source findings of five child scans. */
export function siteTemplate(): SourceFinding[] {
  const drafts = new Map<EngineName, DraftFinding[]>();
  for (const { engine, file, target, from, to } of SITE_FIXTURES) {
    const moved = rehome(parseFixture(engine, file, target), from, to);
    drafts.set(engine, [...(drafts.get(engine) ?? []), ...moved]);
  }
  return [...drafts].flatMap(([engine, list]) => asSources(engine, list));
}

/**
 * The template on host `s<replica>.bench.example`: new host, URLs, fingerprint and ids. Each
 * finding is written as one object literal with its fields in a fixed order, as the service's
 * row mapper builds the stored findings correlation reads (so objects share one shape, as they
 * do in production, instead of one shape per parser).
 */
function replicate(template: readonly SourceFinding[], replica: number): SourceFinding[] {
  const host = `s${replica}.bench.example`;
  const suffix = replica.toString(16).padStart(8, '0');
  return template.map((finding) => ({
    engine: finding.engine,
    scanId: `${finding.scanId}-${replica}`,
    findingId: `${finding.findingId}-${replica}`,
    // A fingerprint of its own, as random as a real one (a SHA-256), so sorting compares like it
    // does on real fingerprints.
    fingerprint: createHash('sha256').update(`${finding.fingerprint}:${suffix}`).digest('hex'),
    ruleId: finding.ruleId,
    title: finding.title,
    severity: finding.severity,
    toolSeverity: finding.toolSeverity,
    category: finding.category,
    location: {
      host: finding.location.host === SITE ? host : finding.location.host,
      port: finding.location.port,
      protocol: finding.location.protocol,
      url: finding.location.url?.replace(`//${SITE}`, `//${host}`) ?? null,
    },
    identifiers: finding.identifiers,
    description: finding.description,
    evidence: finding.evidence,
    remediation: finding.remediation,
    references: finding.references,
    raw: finding.raw,
  }));
}

/** `count` findings: whole sites, the last one cut. */
export function benchInput(template: readonly SourceFinding[], count: number): SourceFinding[] {
  const findings: SourceFinding[] = [];
  for (let replica = 0; findings.length < count; replica++) {
    findings.push(...replicate(template, replica));
  }
  return findings.slice(0, count);
}

export interface CorrelationBenchRow {
  readonly findings: number;
  readonly runs: number;
  readonly medianMs: number;
  readonly usPerFinding: number;
  readonly outputs: number;
  readonly merged: number;
}

export interface CorrelationBenchResult {
  readonly siteFindings: number;
  readonly rows: readonly CorrelationBenchRow[];
  /** Median time at 100k over the median at 10k; null when a size was not run. */
  readonly growth100kOver10k: number | null;
  readonly growth1mOver100k: number | null;
  readonly pass: boolean;
}

/** `global.gc` when node runs with --expose-gc (`npx tsx --expose-gc bench/correlation.ts`). */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

function countsOf(result: readonly CorrelatedFinding[]): { outputs: number; merged: number } {
  return {
    outputs: result.length,
    merged: result.filter((finding) => finding.sources.length > 1).length,
  };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Runs `correlate` at each size (one warm-up, then the runs) and returns the medians. */
export async function benchCorrelation(
  sizes: readonly number[] = SIZES,
): Promise<CorrelationBenchResult> {
  const template = siteTemplate();
  const rows: CorrelationBenchRow[] = [];
  for (const size of sizes) {
    const input = benchInput(template, size);
    // The warm-up run also gives the counts; its output is dropped before the timed runs.
    const { outputs, merged } = countsOf(correlate(input));
    const runs = size >= 1_000_000 ? 3 : 5;
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      // The previous run's output is garbage now: collect it before timing the next run when the
      // process allows it (node --expose-gc), and let pending work settle in any case.
      collectGarbage?.();
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      correlate(input);
      times.push(performance.now() - started);
    }
    const medianMs = median(times);
    rows.push({
      findings: size,
      runs,
      medianMs: Number(medianMs.toFixed(1)),
      usPerFinding: Number(((medianMs * 1000) / size).toFixed(2)),
      outputs,
      merged,
    });
  }
  const at = (size: number) => rows.find((row) => row.findings === size)?.medianMs ?? null;
  const ratio = (big: number, small: number) => {
    const [a, b] = [at(big), at(small)];
    return a === null || b === null || b === 0 ? null : Number((a / b).toFixed(2));
  };
  const growth100kOver10k = ratio(100_000, 10_000);
  const growth1mOver100k = ratio(1_000_000, 100_000);
  const at100k = at(100_000);
  const pass =
    (at100k === null || at100k < TARGET_MS_AT_100K) &&
    [growth100kOver10k, growth1mOver100k].every((g) => g === null || g <= MAX_GROWTH);
  return { siteFindings: template.length, rows, growth100kOver10k, growth1mOver100k, pass };
}

/** Prints the figures and PASS/FAIL lines; returns whether every target was met. */
export function reportCorrelation(result: CorrelationBenchResult): boolean {
  console.log(
    `\nsentinel correlation: nmap, nuclei, zap, wapiti and nikto findings (real fixtures, ${result.siteFindings} per host) replicated over many hosts:`,
  );
  console.table(
    result.rows.map((row) => ({
      findings: row.findings,
      'median ms': row.medianMs,
      'µs/finding': row.usPerFinding,
      runs: row.runs,
      'findings out': row.outputs,
      merged: row.merged,
    })),
  );
  const growth = `growth 100k/10k ${result.growth100kOver10k ?? '-'}×, 1M/100k ${result.growth1mOver100k ?? '-'}× (linear ≈ 10×)`;
  console.log(`  ${growth}`);
  const at100k = result.rows.find((row) => row.findings === 100_000)?.medianMs;
  if (at100k !== undefined) {
    console.log(
      `  100,000 findings in ${at100k} ms (target < ${TARGET_MS_AT_100K} ms): ${at100k < TARGET_MS_AT_100K ? 'PASS' : 'FAIL'}`,
    );
  }
  const growthOk = [result.growth100kOver10k, result.growth1mOver100k].every(
    (g) => g === null || g <= MAX_GROWTH,
  );
  console.log(
    `  growth per 10× more findings (target ≤ ${MAX_GROWTH}×): ${growthOk ? 'PASS' : 'FAIL'}`,
  );
  return result.pass;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchCorrelation()
    .then((result) => {
      // `--json`: the result alone, for bench/run.ts, which runs this stage in a fresh process.
      if (process.argv.includes('--json')) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      process.exitCode = reportCorrelation(result) ? 0 : 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
