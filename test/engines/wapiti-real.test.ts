/**
 * The wapiti contract against the real binary (wapiti 3.0.4 from Debian here and in CI): the
 * engine's command runs through the one process runner (argv array, private workspace as HOME,
 * allowlisted environment) against the deliberately vulnerable test app, and the JSON report
 * wapiti writes is streamed through the engine's parser. Never skipped for a missing wapiti: a
 * worker without it could not scan either.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessEngineRunner } from '../../src/adapters/process/process-engine-runner.js';
import { finalizeFindings } from '../../src/domain/findings/fingerprint.js';
import type { ScanRecord } from '../../src/domain/scans/scan.js';
import { parseTarget } from '../../src/domain/targets/parse-target.js';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import type { EngineCommand } from '../../src/engines/engine.js';
import { checkEngineOptions } from '../../src/engines/validate-options.js';
import { wapitiEngine } from '../../src/engines/wapiti/engine.js';
import type { EngineRunOutput } from '../../src/use-cases/ports.js';
import { startVulnerableApp, type VulnerableApp } from '../support/vulnerable-app.js';

const WAPITI_TIMEOUT_MS = 60_000;

function realCommand(): EngineCommand {
  const command = wapitiEngine.command;
  if (command === undefined) {
    throw new Error('the wapiti engine has no command');
  }
  return command;
}

const runner = createProcessEngineRunner(
  { ...wapitiEngine, binary: 'wapiti', command: realCommand() },
  { parentEnv: { PATH: process.env.PATH }, privileged: false },
);

function urlTarget(value: string): ScanTarget {
  const parsed = parseTarget(value, 'url', ['url'], 'wapiti');
  if (!parsed.ok) {
    throw new Error(`test target refused: ${parsed.reason}`);
  }
  return parsed.target;
}

function scanRecord(target: ScanTarget): ScanRecord {
  return {
    id: '00000000-0000-4000-8000-000000000031',
    tenantId: '00000000-0000-4000-8000-000000000032',
    apiKeyId: null,
    scanType: 'wapiti',
    name: 'wapiti real',
    target: target.value,
    targetType: 'url',
    priority: 'normal',
    status: 'running',
    progress: 0,
    tags: [],
    options: {},
    config: {},
    timeoutSeconds: 60,
    assetId: null,
    callbackUrl: null,
    templateId: null,
    parentScanId: null,
    resultCount: 0,
    findingsSummary: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
    riskScore: 0,
    error: null,
    attempts: 1,
    createdAt: new Date(0),
    startedAt: new Date(0),
    completedAt: null,
  };
}

interface RealRun {
  readonly output: EngineRunOutput;
  readonly progress: number[];
  readonly durationMs: number;
  /** From the abort to the runner's answer; null when not cancelled. */
  readonly msAfterAbort: number | null;
}

/**
 * One scan through the runner, with options validated (and defaulted) as the API would. With
 * `cancelWhenRunning`, the scan is aborted once its wapiti process has been up for 500 ms.
 */
async function scan(
  url: string,
  options: Record<string, unknown>,
  cancelWhenRunning = false,
): Promise<RealRun> {
  const check = checkEngineOptions(wapitiEngine, options);
  if (!check.ok) {
    throw new Error(`test options refused: ${check.error.message}`);
  }
  const target = urlTarget(url);
  const controller = new AbortController();
  const progress: number[] = [];
  let abortedAt: number | null = null;
  const before = wapitiChildren();
  const started = Date.now();
  const running = runner.run({
    scan: scanRecord(target),
    target,
    options: check.options,
    signal: controller.signal,
    timeoutMs: WAPITI_TIMEOUT_MS,
    onProgress: (percent) => progress.push(percent),
  });
  if (cancelWhenRunning) {
    const deadline = Date.now() + 10_000;
    while (!wapitiChildren().some((pid) => !before.includes(pid)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    abortedAt = Date.now();
    controller.abort();
  }
  const output = await running;
  const ended = Date.now();
  return {
    output,
    progress,
    durationMs: ended - started,
    msAfterAbort: abortedAt === null ? null : ended - abortedAt,
  };
}

/** wapiti processes (python3 running /usr/bin/wapiti) that are children of this test process. */
function wapitiChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (
        fields[0] !== 'Z' &&
        Number(fields[1]) === process.pid &&
        cmdline.includes('wapiti') &&
        cmdline.includes('--no-bugreport')
      ) {
        pids.push(Number(entry));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

let app: VulnerableApp;
/** Accepts connections and never answers: wapiti's crawler waits on its first request. */
let silent: Server;
const silentSockets = new Set<Socket>();

beforeAll(async () => {
  app = await startVulnerableApp();
  silent = createServer((socket) => {
    silentSockets.add(socket);
    socket.on('error', () => {
      // wapiti's connection is cut when it is killed; expected here.
    });
    socket.on('close', () => silentSockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of silentSockets) {
    socket.destroy();
  }
  await new Promise((resolve) => silent.close(resolve));
  await app.close();
});

describe('wapiti (real binary) through the process runner', { timeout: 90_000 }, () => {
  it('finds the reflected XSS in /hello?name and the SQL injection in /search?q', async () => {
    // Two modules, a shallow crawl, and maxTime so the real wapiti also takes the time flags.
    const run = await scan(app.url, { modules: ['xss', 'sql'], maxDepth: 2, maxTime: '60s' });
    expect(run.output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    const port = Number(new URL(app.url).port);
    const vulnerabilities = finalizeFindings('wapiti', run.output.findings).filter(
      (finding) => finding.category === 'vulnerability',
    );
    expect(vulnerabilities.map((finding) => finding.ruleId).sort()).toEqual([
      'cross-site-scripting:GET:name',
      'sql-injection:GET:q',
    ]);
    const sqli = vulnerabilities.find((finding) => finding.ruleId === 'sql-injection:GET:q');
    expect(sqli).toMatchObject({
      title: 'SQL Injection in /search (parameter q)',
      severity: 'critical',
      toolSeverity: '4',
      location: { host: '127.0.0.1', port, protocol: 'tcp', url: `${app.url}search` },
      identifiers: { cve: [], cwe: ['CWE-89'] },
      raw: { section: 'vulnerabilities', category: 'SQL Injection', parameter: 'q', level: 4 },
    });
    expect(sqli?.evidence).toContain('curl: curl "http://127.0.0.1:');
    const xss = vulnerabilities.find(
      (finding) => finding.ruleId === 'cross-site-scripting:GET:name',
    );
    expect(xss).toMatchObject({
      title: 'Cross Site Scripting in /hello (parameter name)',
      severity: 'medium',
      toolSeverity: '2',
      location: { host: '127.0.0.1', port, protocol: 'tcp', url: `${app.url}hello` },
      identifiers: { cve: [], cwe: ['CWE-79'] },
    });
    expect(xss?.remediation).toMatch(/\S/);
    // Progress: the crawl, both modules (sql 54, xss 60) and the report line, in that order.
    expect(run.progress).toEqual(expect.arrayContaining([2, 11, 20, 54, 60, 98]));
    expect(run.progress.every((p) => Number.isInteger(p) && p >= 0 && p <= 99)).toBe(true);
    expect(run.progress.indexOf(54)).toBeLessThan(run.progress.indexOf(60));
    expect(run.durationMs).toBeLessThan(30_000);
  });

  it('a rescan finds the same two flaws with the same fingerprints', async () => {
    const options = { modules: ['xss', 'sql'], maxDepth: 2 };
    const fingerprints = async () =>
      finalizeFindings('wapiti', (await scan(app.url, options)).output.findings)
        .filter((finding) => finding.category === 'vulnerability')
        .map((finding) => finding.fingerprint)
        .sort();
    const first = await fingerprints();
    expect(first).toHaveLength(2);
    expect(await fingerprints()).toEqual(first);
  });

  it('stops a cancelled running wapiti within 2 s', async () => {
    // The silent server keeps wapiti's crawler waiting on its first request (for seconds).
    const port = (silent.address() as { port: number }).port;
    const before = wapitiChildren();
    const run = await scan(`http://127.0.0.1:${port}/`, { modules: ['xss'] }, true);
    expect(run.output.ending).toBe('cancelled');
    expect(run.output.findings).toEqual([]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    expect(run.durationMs).toBeLessThan(5_000);
    expect(wapitiChildren().filter((pid) => !before.includes(pid))).toEqual([]);
  });
});
