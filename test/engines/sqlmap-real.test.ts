/**
 * The sqlmap contract against the real binary (sqlmap 1.7.2 from Debian here and in CI): the
 * engine's command runs through the one process runner (argv array, private workspace, allowlisted
 * environment) against the deliberately vulnerable test app, and the `out/<host>/log` sqlmap
 * writes is streamed through the engine's parser. Never skipped for a missing sqlmap: a worker
 * without it could not scan either.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessEngineRunner } from '../../src/adapters/process/process-engine-runner.js';
import type { ScanRecord } from '../../src/domain/scans/scan.js';
import { parseTarget } from '../../src/domain/targets/parse-target.js';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import type { EngineCommand } from '../../src/engines/engine.js';
import { sqlmapEngine } from '../../src/engines/sqlmap/engine.js';
import { checkEngineOptions } from '../../src/engines/validate-options.js';
import type { EngineRunOutput } from '../../src/use-cases/ports.js';
import { startVulnerableApp, type VulnerableApp } from '../support/vulnerable-app.js';

const SQLMAP_TIMEOUT_MS = 60_000;

function realCommand(): EngineCommand {
  const command = sqlmapEngine.command;
  if (command === undefined) {
    throw new Error('the sqlmap engine has no command');
  }
  return command;
}

const runner = createProcessEngineRunner(
  { ...sqlmapEngine, binary: 'sqlmap', command: realCommand() },
  { parentEnv: { PATH: process.env.PATH }, privileged: false },
);

function urlTarget(value: string): ScanTarget {
  const parsed = parseTarget(value, 'url', ['url'], 'sqlmap');
  if (!parsed.ok) {
    throw new Error(`test target refused: ${parsed.reason}`);
  }
  return parsed.target;
}

function scanRecord(target: ScanTarget): ScanRecord {
  return {
    id: '00000000-0000-4000-8000-000000000021',
    tenantId: '00000000-0000-4000-8000-000000000022',
    apiKeyId: null,
    scanType: 'sqlmap',
    name: 'sqlmap real',
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

/** One scan through the runner, with options validated as the API would. */
async function scan(
  url: string,
  options: Record<string, unknown>,
  cancelOnProgress = false,
): Promise<RealRun> {
  const check = checkEngineOptions(sqlmapEngine, options);
  if (!check.ok) {
    throw new Error(`test options refused: ${check.error.message}`);
  }
  const target = urlTarget(url);
  const controller = new AbortController();
  const progress: number[] = [];
  let abortedAt: number | null = null;
  const started = Date.now();
  const output = await runner.run({
    scan: scanRecord(target),
    target,
    options: check.options,
    signal: controller.signal,
    timeoutMs: SQLMAP_TIMEOUT_MS,
    onProgress: (percent) => {
      progress.push(percent);
      if (cancelOnProgress && abortedAt === null) {
        abortedAt = Date.now();
        controller.abort();
      }
    },
  });
  const ended = Date.now();
  return {
    output,
    progress,
    durationMs: ended - started,
    msAfterAbort: abortedAt === null ? null : ended - abortedAt,
  };
}

/** sqlmap processes (python3 running /usr/bin/sqlmap) that are children of this test process. */
function sqlmapChildren(): number[] {
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
        cmdline.includes('sqlmap') &&
        cmdline.includes('--ignore-stdin')
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
/** Accepts connections and never answers: sqlmap waits on "testing connection to the target URL". */
let silent: Server;
const silentSockets = new Set<Socket>();

beforeAll(async () => {
  app = await startVulnerableApp();
  silent = createServer((socket) => {
    silentSockets.add(socket);
    socket.on('error', () => {
      // sqlmap's connection is cut when it is killed; expected here.
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

describe('sqlmap (real binary) through the process runner', { timeout: 90_000 }, () => {
  it('finds the planted injection in GET parameter q, with the DBMS and --dbs output', async () => {
    const url = `${app.url}search?q=apple`;
    const run = await scan(url, { level: 1, risk: 1, technique: 'BEU', dbs: true });
    expect(run.output).toMatchObject({ ending: 'completed', message: null, warnings: [] });
    expect(run.output.findings).toHaveLength(1);
    const [finding] = run.output.findings;
    const port = Number(new URL(app.url).port);
    expect(finding).toMatchObject({
      ruleId: 'sql-injection:GET:q',
      title: 'SQL injection in GET parameter `q`',
      severity: 'high',
      toolSeverity: null,
      category: 'sql-injection',
      location: { host: '127.0.0.1', port, protocol: null, url },
      identifiers: { cve: [], cwe: ['CWE-89'] },
      raw: { source: 'log', place: 'GET', parameter: 'q', dbms: 'PostgreSQL' },
    });
    // BEU asked, and all three work against the app (error-based thanks to its 500 page).
    expect(finding?.evidence?.match(/^Type: .*$/gm)).toEqual([
      'Type: boolean-based blind',
      'Type: error-based',
      'Type: UNION query',
    ]);
    expect(finding?.evidence).toContain('back-end DBMS: PostgreSQL');
    expect(finding?.evidence).toContain('databases: information_schema, pg_catalog, public');
    // Progress comes from stdout (the engine ignores stderr), stays below 100 and gets far.
    expect(run.progress.length).toBeGreaterThan(5);
    expect(run.progress.every((p) => Number.isInteger(p) && p >= 0 && p <= 99)).toBe(true);
    expect(Math.max(...run.progress)).toBeGreaterThanOrEqual(90);
    expect(run.durationMs).toBeLessThan(30_000);
  });

  it('reports no SQL injection for a page that only reflects its parameter', async () => {
    const run = await scan(`${app.url}hello?name=x`, { technique: 'BEU' });
    expect(run.output).toMatchObject({ ending: 'completed', findings: [], warnings: [] });
    // The run went through the tests and told us so on stdout.
    expect(run.progress).toContain(95);
    expect(run.durationMs).toBeLessThan(30_000);
  });

  it('stops a cancelled running sqlmap within 2 s', async () => {
    // The silent server keeps sqlmap waiting on its first request (its own timeout is 30 s).
    const port = (silent.address() as { port: number }).port;
    const before = sqlmapChildren();
    const run = await scan(`http://127.0.0.1:${port}/item?id=1`, { technique: 'B' }, true);
    expect(run.progress[0]).toBe(2);
    expect(run.output.ending).toBe('cancelled');
    expect(run.output.findings).toEqual([]);
    expect(run.msAfterAbort).not.toBeNull();
    expect(run.msAfterAbort ?? Number.POSITIVE_INFINITY).toBeLessThan(2_000);
    expect(sqlmapChildren().filter((pid) => !before.includes(pid))).toEqual([]);
  });
});
