/**
 * The sublist3r contract against the REAL binary (sublist3r 1.1 from Debian, here and in CI), run
 * through the one process runner with the argv the engine builds. This machine has no internet:
 * every search engine fails at name resolution, so a run on `example.com` shows how sublist3r ends
 * when it reaches nothing (exit 0, no output file: a completed scan with no findings). To see the
 * real tool write a real report, one test serves sublist3r's "Ask" engine (the only one on plain
 * HTTP) from a local HTTP proxy (HTTP_PROXY, which requests honours): sublist3r's own scraper,
 * sorting and file writer then produce the report the parser reads. Never skipped for a missing
 * sublist3r: a worker without it could not scan either.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAndParseReport } from '../../src/adapters/process/process-engine-runner.js';
import { runProcess } from '../../src/adapters/process/run-process.js';
import { scannerEnvironment } from '../../src/adapters/process/scan-workspace.js';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import { sublist3rEngine } from '../../src/engines/sublist3r/engine.js';
import { checkEngineOptions } from '../../src/engines/validate-options.js';
import {
  type EngineRun,
  engineCommand,
  liveProcesses,
  runEngine,
  useTempDir,
} from '../support/engine-runs.js';

const TARGET: ScanTarget = {
  type: 'domain',
  value: 'example.com',
  host: 'example.com',
  hostIsAddress: false,
};

/** Search engines that give up at once without a network (Baidu sleeps 2-5 s between tries). */
const QUICK_ENGINES = ['ssl', 'passivedns', 'virustotal', 'netcraft', 'threatcrowd'];

const command = engineCommand(sublist3rEngine);

/** Workspaces of this file's runs live here, so their processes can be told from others'. */
const base = useTempDir('rampart-sublist3r-real-');

/** Live (not zombie) sublist3r processes whose working directory is under `base`. */
function ourSublist3rProcesses(): number[] {
  return liveProcesses((proc) => proc.comm === 'sublist3r' && proc.cwd().startsWith(base.path)).map(
    (proc) => proc.pid,
  );
}

interface RealRun extends EngineRun {
  readonly durationMs: number;
  /** Our sublist3r processes seen alive just before the abort. */
  readonly aliveAtAbort: number[];
}

async function runReal(
  options: Record<string, unknown>,
  settings: { timeoutMs?: number; abortAtProgress?: number } = {},
): Promise<RealRun> {
  let aliveAtAbort: number[] = [];
  const run = await runEngine({
    engine: sublist3rEngine,
    binary: 'sublist3r',
    workspaceBase: base.path,
    target: TARGET,
    options,
    validate: true,
    timeoutMs: settings.timeoutMs ?? 120_000,
    abortAtProgress: settings.abortAtProgress,
    // Let the brute-force module start its processes first.
    abortAfterMs: 500,
    beforeAbort: () => {
      aliveAtAbort = ourSublist3rProcesses();
    },
  });
  return { ...run, durationMs: run.elapsedMs, aliveAtAbort };
}

describe('sublist3r (real binary) without a network', () => {
  it('ends completed with no findings when no search engine can be reached', async () => {
    const run = await runReal({ engines: QUICK_ENGINES });
    // sublist3r exits 0 and writes no file: that is zero subdomains, not an error.
    expect(run.output).toEqual({ findings: [], warnings: [], ending: 'completed', message: null });
    // Usage errors also exit 0, so the progress lines prove sublist3r took the argv and ran:
    // "Enumerating subdomains now for example.com", then one "Searching now in …" per engine.
    expect(run.progress).toEqual([1, ...QUICK_ENGINES.map(() => 2)]);
    expect(run.durationMs).toBeLessThan(30_000);
    expect(ourSublist3rProcesses()).toEqual([]);
  }, 60_000);

  it('with the default options (all eleven engines) it ends too, within a minute', async () => {
    const run = await runReal({});
    expect(run.output).toEqual({ findings: [], warnings: [], ending: 'completed', message: null });
    expect(run.progress).toEqual([1, ...Array.from({ length: 11 }, () => 2)]);
    // Measured here: 6-15 s, nearly all of it Baidu's 2-5 s pauses between its retries.
    expect(run.durationMs).toBeLessThan(60_000);
  }, 90_000);

  it('a cancelled run (brute force, which waits for DNS forever here) ends within 2 s', async () => {
    const run = await runReal(
      { engines: ['ssl'], bruteforce: true, threads: 2 },
      { abortAtProgress: 50 },
    );
    expect(run.progress).toEqual([1, 2, 50]);
    // The leader, the multiprocessing manager and subbrute's workers were running.
    expect(run.aliveAtAbort.length).toBeGreaterThan(1);
    expect(run.output.ending).toBe('cancelled');
    expect(run.output.findings).toEqual([]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    expect(ourSublist3rProcesses()).toEqual([]);
  }, 60_000);

  it('a run past its timeout ends timed-out, and nothing of it is left', async () => {
    const run = await runReal(
      { engines: ['ssl'], bruteforce: true, threads: 2 },
      { timeoutMs: 3_000 },
    );
    expect(run.output.ending).toBe('timed-out');
    expect(run.durationMs).toBeLessThan(3_000 + 2_500);
    expect(ourSublist3rProcesses()).toEqual([]);
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// A real report: sublist3r's Ask engine answered by a local proxy.

/** What the fake ask.com returns: result URLs as sublist3r's Ask scraper expects them. */
const ASK_RESULTS = [
  'https://WWW.Example.com/start',
  'api.example.com',
  'https://x.y.example.com:8443/login',
  'http://www.example.com/again',
  'other.org',
  'localhost',
];

function askPage(): string {
  return `<html><body>${ASK_RESULTS.map((url) => `<p class="web-result-url">${url}</p>`).join('')}</body></html>`;
}

describe('sublist3r (real binary) writing a real report', () => {
  let proxy: Server;
  let proxyPort = 0;
  let listener: TcpServer;
  let openPort = 0;
  const requests: string[] = [];

  beforeAll(async () => {
    proxy = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(askPage());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
    listener = createTcpServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    openPort = (listener.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    await new Promise((resolve) => listener.close(resolve));
  });

  /**
   * One run with the runner's parts (argv from the engine, runProcess, readAndParseReport) but an
   * environment with HTTP_PROXY, which the runner's allowlist would drop. It runs outside the
   * sandbox, as the test's own user, so the scanner egress rules (which refuse 127.0.0.1 to the
   * scanner user) do not judge it: the proxy and the port sublist3r probes stay on 127.0.0.1.
   */
  async function runThroughProxy(
    options: Record<string, unknown>,
    /** Added after validation: options the service refuses, run only to show why. */
    unchecked: Record<string, unknown> = {},
  ) {
    const checked = checkEngineOptions(sublist3rEngine, options);
    if (!checked.ok) {
      throw new Error(checked.error.message);
    }
    const workDir = await mkdtemp(join(base.path, 'proxy-'));
    const reportPath = join(workDir, 'subdomains.txt');
    const argv = command.buildArgv({ ...checked.options, ...unchecked }, TARGET, {
      reportPath,
      workDir,
      privileged: false,
      pin: { address: null, privateTargetsAllowed: false },
    });
    const stdout: string[] = [];
    const result = await runProcess({
      binary: 'sublist3r',
      argv,
      cwd: workDir,
      env: {
        ...scannerEnvironment({ PATH: process.env.PATH }, workDir),
        HTTP_PROXY: `http://127.0.0.1:${proxyPort}`,
      },
      timeoutMs: 60_000,
      onStdoutLine: (line) => stdout.push(line),
    });
    const parsed = await readAndParseReport(command, workDir, { target: TARGET });
    const report = readFileSync(reportPath, 'utf8');
    await rm(workDir, { recursive: true, force: true });
    return { argv, result, parsed, report, stdout };
  }

  it("parses the file sublist3r wrote: names lower-cased, ports dropped, others' names skipped", async () => {
    const run = await runThroughProxy({ engines: ['ask'] });
    expect(run.result).toMatchObject({ exitCode: 0, timedOut: false, spawnError: null });
    expect(requests.length).toBeGreaterThan(0);
    expect(requests[0]).toMatch(/^http:\/\/www\.ask\.com\/web\?q=site:example\.com/);
    // sublist3r's own output: netlocs as scraped, sorted its way, LF line ends.
    expect(run.report).toBe(
      'WWW.Example.com\nwww.example.com\napi.example.com\nx.y.example.com:8443\nlocalhost\nother.org\n',
    );
    expect(run.parsed.findings.map((f) => [f.location.host, f.evidence])).toEqual([
      ['www.example.com', 'sublist3r output line: WWW.Example.com'],
      ['api.example.com', 'sublist3r output line: api.example.com'],
      ['x.y.example.com', 'sublist3r output line: x.y.example.com:8443'],
    ]);
    expect(run.parsed.warnings).toEqual([
      '2 name(s) outside example.com were skipped (first: "localhost")',
    ]);
    const progress = run.stdout.map((line) => command.progress?.(line, 'stdout') ?? null);
    expect(progress.filter((value) => value !== null)).toEqual([1, 2, 90, 95]);
  }, 60_000);

  it('with ports (which the service refuses, for this), sublist3r probes every name it found, even loopback ones, and says so only on stdout', async () => {
    expect(checkEngineOptions(sublist3rEngine, { ports: String(openPort) }).ok).toBe(false);
    const run = await runThroughProxy({ engines: ['ask'] }, { ports: String(openPort) });
    expect(run.argv).toContain(`--ports=${openPort}`);
    expect(run.result.exitCode).toBe(0);
    // The open port is printed on stdout only: the report (and so the findings) hold names only.
    expect(run.stdout).toContain(`localhost - Found open ports: ${openPort}`);
    expect(run.report).not.toContain(String(openPort));
    expect(run.parsed.findings).toHaveLength(3);
    expect(run.parsed.findings.every((f) => f.location.port === null)).toBe(true);
    const progress = run.stdout.map((line) => command.progress?.(line, 'stdout') ?? null);
    expect(progress.filter((value) => value !== null)).toEqual([1, 2, 90, 95, 96]);
  }, 60_000);
});
