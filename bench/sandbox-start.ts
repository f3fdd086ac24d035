/**
 * The scanner sandbox's cost per scan start (issue 18): a real tool (`nmap --version`, which
 * starts and exits) spawned through the one process runner in a fresh scan workspace, bare and
 * inside the sandbox (bwrap, setpriv, prlimit and the workspace given to the scanner user),
 * alternating, after a warm-up. Reports the medians and their difference; target: < 50 ms.
 * Needs what the sandbox needs (root, bwrap, the scanner user); otherwise it reports why it was
 * skipped. Run alone: `npx tsx bench/sandbox-start.ts`.
 */
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { findOnPath } from '../src/adapters/process/probe-binaries.js';
import { runProcess } from '../src/adapters/process/run-process.js';
import { type Sandbox, sandboxCommand } from '../src/adapters/process/sandbox.js';
import { scannerEnvironment, withScanWorkspace } from '../src/adapters/process/scan-workspace.js';
import { loadConfig } from '../src/config/load-config.js';
import { scannerSandbox } from '../src/main/scanner-sandbox.js';

const WARM_UP = 5;
const STARTS = Number(process.env.BENCH_SANDBOX_STARTS ?? 40);
const TOOL = 'nmap';
const TOOL_ARGV = ['--version'];

export type SandboxStartBench =
  | { readonly skipped: string }
  | {
      readonly tool: string;
      readonly starts: number;
      readonly bareMedianMs: number;
      readonly sandboxedMedianMs: number;
      readonly costMedianMs: number;
      readonly bareP90Ms: number;
      readonly sandboxedP90Ms: number;
      readonly met: boolean;
    };

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, index)] ?? Number.NaN) * 10) / 10;
}

/** One scan start and its end: workspace, spawn, exit, workspace removed. Milliseconds. */
async function start(binaryPath: string, sandbox: Sandbox | null): Promise<number> {
  const started = performance.now();
  await withScanWorkspace(
    'rampart-bench-sandbox',
    async (dir) => {
      const command =
        sandbox === null
          ? { binary: binaryPath, argv: TOOL_ARGV }
          : sandboxCommand(sandbox, {
              binaryPath,
              argv: TOOL_ARGV,
              workDir: dir,
              rawSockets: false,
            });
      const result = await runProcess({
        ...command,
        cwd: dir,
        env: scannerEnvironment({ PATH: process.env.PATH }, dir),
        timeoutMs: 30_000,
      });
      if (result.exitCode !== 0) {
        throw new Error(`${TOOL} failed in the benchmark: ${result.stderr || result.spawnError}`);
      }
    },
    undefined,
    sandbox === null ? undefined : { uid: sandbox.uid, gid: sandbox.gid },
  );
  return performance.now() - started;
}

export async function benchSandboxStart(): Promise<SandboxStartBench> {
  const sandbox = await scannerSandbox(
    loadConfig({ SCANNER_SANDBOX: 'auto', PATH: process.env.PATH }),
    pino({ level: 'silent' }),
  );
  if (sandbox === null) {
    return { skipped: 'no scanner sandbox on this machine (needs root, bwrap, the scanner user)' };
  }
  const binaryPath = await findOnPath(TOOL, process.env.PATH ?? '');
  if (binaryPath === null) {
    return { skipped: `${TOOL} is not installed` };
  }
  for (let i = 0; i < WARM_UP; i += 1) {
    await start(binaryPath, null);
    await start(binaryPath, sandbox);
  }
  const bare: number[] = [];
  const sandboxed: number[] = [];
  for (let i = 0; i < STARTS; i += 1) {
    bare.push(await start(binaryPath, null));
    sandboxed.push(await start(binaryPath, sandbox));
  }
  const bareMedianMs = percentile(bare, 50);
  const sandboxedMedianMs = percentile(sandboxed, 50);
  const costMedianMs = Math.round((sandboxedMedianMs - bareMedianMs) * 10) / 10;
  return {
    tool: `${binaryPath} ${TOOL_ARGV.join(' ')}`,
    starts: STARTS,
    bareMedianMs,
    sandboxedMedianMs,
    costMedianMs,
    bareP90Ms: percentile(bare, 90),
    sandboxedP90Ms: percentile(sandboxed, 90),
    met: costMedianMs < 50,
  };
}

/** One line for the console. */
export function describeSandboxStart(result: SandboxStartBench): string {
  if ('skipped' in result) {
    return `scanner sandbox start: skipped (${result.skipped})`;
  }
  return (
    `scanner sandbox start, ${result.tool}, ${result.starts} alternating starts: bare median ` +
    `${result.bareMedianMs} ms (p90 ${result.bareP90Ms}), sandboxed median ` +
    `${result.sandboxedMedianMs} ms (p90 ${result.sandboxedP90Ms}); cost ${result.costMedianMs} ms ` +
    `(target < 50 ms): ${result.met ? 'met' : 'NOT met'}`
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(describeSandboxStart(await benchSandboxStart()));
}
