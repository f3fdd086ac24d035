/**
 * parseNmapXml throughput: the largest nmap fixture (today the nmap 5.21 /24 sweep, 51 KB, 256
 * hosts of which 4 are up) parsed over and over for about 2 s after a warm-up. Reports MB/s
 * (MB = 10^6 bytes of UTF-8 input) and the process's peak resident set size.
 * Run alone: `npx tsx bench/nmap-parse.ts`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseNmapXml } from '../src/engines/nmap/parse.js';
import { sharedPath } from '../test/support/shared-dir.js';

const WARM_UP_MS = 500;
const MEASURE_MS = 2000;
/** Parses between clock reads and RSS samples; small enough to stop close to MEASURE_MS. */
const BATCH = 20;

export interface NmapParseBench {
  readonly file: string;
  readonly bytes: number;
  readonly mbPerSecond: number;
  readonly peakRssMb: number;
  readonly findings: number;
}

function largestFixture(): { file: string; path: string } {
  const dir = sharedPath('fixtures', 'scanner-output', 'nmap');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.xml'))
    .map((name) => ({ file: name, path: join(dir, name), size: statSync(join(dir, name)).size }))
    .sort((a, b) => b.size - a.size || a.file.localeCompare(b.file));
  const largest = files[0];
  if (largest === undefined) {
    throw new Error(`no nmap fixture in ${dir}`);
  }
  return largest;
}

/** Runs `parse` in batches until `ms` have passed; returns how many parses ran. */
async function parseFor(ms: number, parse: () => void, onBatch: () => void): Promise<number> {
  const started = performance.now();
  let runs = 0;
  while (performance.now() - started < ms) {
    for (let i = 0; i < BATCH; i += 1) {
      parse();
    }
    runs += BATCH;
    onBatch();
    // Let the event loop turn (timers, GC finalizers) as a worker process would.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return runs;
}

/** Parses the largest nmap fixture for ~2 s and reports throughput and peak memory. */
export async function benchNmapParse(): Promise<NmapParseBench> {
  const { file, path } = largestFixture();
  const xml = readFileSync(path, 'utf8');
  const bytes = Buffer.byteLength(xml, 'utf8');
  const findings = parseNmapXml(xml).findings.length;
  let peakRss = process.memoryUsage().rss;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };
  await parseFor(WARM_UP_MS, () => parseNmapXml(xml), sample);
  const started = performance.now();
  const runs = await parseFor(MEASURE_MS, () => parseNmapXml(xml), sample);
  const seconds = (performance.now() - started) / 1000;
  // maxRSS (KiB) is the kernel's high-water mark and also catches peaks between samples.
  const peakRssBytes = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
  return {
    file,
    bytes,
    mbPerSecond: Math.round(((runs * bytes) / 1e6 / seconds) * 10) / 10,
    peakRssMb: Math.round((peakRssBytes / 1024 / 1024) * 10) / 10,
    findings,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchNmapParse();
  console.log(
    `nmap parse: ${result.file} (${result.bytes} bytes, ${result.findings} findings): ` +
      `${result.mbPerSecond} MB/s, peak RSS ${result.peakRssMb} MB`,
  );
}
