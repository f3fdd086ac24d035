// One parser measurement in a fresh Node process, on the compiled service (dist/), so the peak
// RSS is that of a worker parsing one report and not of the benchmark driver or of tsx.
// Usage: node bench/parse-child.mjs <engine> <fixture path> <rss|throughput|baseline> <target>
// Prints one JSON line. The report goes through readAndParseReport, the path a worker takes
// (streamed through the engine's createParser when it has one, else read whole and parsed).
import { basename, dirname } from 'node:path';

const [engineName, fixture, mode, targetValue] = process.argv.slice(2);
const { ENGINES } = await import('../dist/engines/registry.js');
const { readAndParseReport } = await import('../dist/adapters/process/process-engine-runner.js');
const { parseTarget } = await import('../dist/domain/targets/parse-target.js');

const engine = ENGINES[engineName];
const parsedTarget = parseTarget(targetValue, undefined, engine.targetTypes);
if (!parsedTarget.ok) {
  throw new Error(`bench target refused: ${parsedTarget.reason}`);
}
const context = { target: parsedTarget.target };
// The fixture is read where it lies: its folder stands for the workspace, its name for reportFile.
const command = { ...engine.command, reportFile: basename(fixture) };
const workDir = dirname(fixture);
const mb = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

if (mode === 'baseline') {
  process.stdout.write(
    `${JSON.stringify({ peakRssMb: mb(process.resourceUsage().maxRSS * 1024) })}\n`,
  );
} else if (mode === 'rss') {
  const result = await readAndParseReport(command, workDir, context);
  process.stdout.write(
    `${JSON.stringify({
      findings: result.findings.length,
      warnings: result.warnings.length,
      peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    })}\n`,
  );
} else {
  const { statSync } = await import('node:fs');
  const bytes = statSync(fixture).size;
  const runFor = async (ms) => {
    const started = performance.now();
    let runs = 0;
    while (performance.now() - started < ms) {
      await readAndParseReport(command, workDir, context);
      runs += 1;
    }
    return { runs, seconds: (performance.now() - started) / 1000 };
  };
  await runFor(500);
  const { runs, seconds } = await runFor(2000);
  process.stdout.write(
    `${JSON.stringify({
      mbPerSecond: Math.round(((runs * bytes) / 1e6 / seconds) * 10) / 10,
      peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    })}\n`,
  );
}
