/**
 * The process engine runner around a tool: input files written before it starts, progress from
 * both output streams, the report found by a `*` path segment, streamed through the engine's
 * parser in chunks (also across non-UTF-8 bytes), and a required report that is missing. The
 * "tool" is the real Node binary running a small script (`node -e`), spawned by the real runner.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DraftFinding, ParseResult } from '../../domain/findings/finding.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { EngineCommand, StreamingReportParser, ToolEngine } from '../../engines/engine.js';
import { nmapEngine } from '../../engines/nmap/engine.js';
import { createProcessEngineRunner, reportPaths } from './process-engine-runner.js';

const TARGET: ScanTarget = {
  type: 'url',
  value: 'https://app.example.com/',
  host: 'app.example.com',
  hostIsAddress: false,
};

/** One finding per non-empty line of the report. */
function linesToFindings(text: string): ParseResult {
  const findings = text
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line): DraftFinding => ({
        ruleId: line,
        title: line,
        severity: 'info',
        toolSeverity: null,
        category: 'test',
        location: { host: null, port: null, protocol: null, url: null },
        identifiers: { cve: [], cwe: [] },
        description: null,
        evidence: null,
        remediation: null,
        references: [],
        raw: null,
      }),
    );
  return { findings, warnings: [] };
}

/** A tool that is `node -e <script>`; the script gets the report path as process.argv[1]. */
function engineRunning(script: string, command: Partial<EngineCommand>): ToolEngine {
  return {
    ...nmapEngine,
    binary: process.execPath,
    command: {
      reportFile: 'report.txt',
      buildArgv: (_options, _target, context) => ['-e', script, context.reportPath],
      parse: (report) => linesToFindings(report),
      successExitCodes: [0],
      ...command,
    },
  };
}

async function run(engine: ReturnType<typeof engineRunning>) {
  const progress: number[] = [];
  const output = await createProcessEngineRunner(engine, {
    parentEnv: { PATH: dirname(process.execPath) },
    privileged: false,
  }).run({
    scan: { id: 'scan-1' } as ScanRecord,
    target: TARGET,
    options: {},
    pin: { address: null, privateTargetsAllowed: false },
    signal: new AbortController().signal,
    timeoutMs: 20_000,
    onProgress: (percent) => progress.push(percent),
  });
  return { output, progress };
}

describe('process engine runner', () => {
  it('writes input files (0600) before the tool starts and gives the tool their paths', async () => {
    const engine = engineRunning(
      `const fs = require('node:fs'); const path = require('node:path');
       const dir = path.dirname(process.argv[1]);
       const plan = path.join(dir, 'conf', 'plan.yaml');
       const mode = (fs.statSync(plan).mode & 0o777).toString(8);
       fs.writeFileSync(process.argv[1], fs.readFileSync(plan, 'utf8') + '\\nmode ' + mode + '\\n');`,
      { inputFiles: () => [{ path: 'conf/plan.yaml', content: 'plan for the tool' }] },
    );
    const { output } = await run(engine);
    expect(output.ending).toBe('completed');
    expect(output.findings.map((finding) => finding.ruleId)).toEqual([
      'plan for the tool',
      'mode 600',
    ]);
  });

  it("adds the engine's fixed environment, which cannot replace the runner's own variables", async () => {
    const engine = engineRunning(
      `require('node:fs').writeFileSync(process.argv[1],
         [process.env.PYTHONUNBUFFERED, process.env.HOME === require('node:path').dirname(process.argv[1]),
          process.env.PATH === 'evil', process.env.DATABASE_URL].join(String.fromCharCode(10)));`,
      { env: { PYTHONUNBUFFERED: '1', HOME: '/root', PATH: 'evil' } },
    );
    const { output } = await run(engine);
    expect(output.findings.map((finding) => finding.ruleId)).toEqual(['1', 'true', 'false']);
  });

  it('refuses an input file outside the workspace', async () => {
    const engine = engineRunning('', {
      inputFiles: () => [{ path: '../escape.txt', content: 'x' }],
    });
    await expect(run(engine)).rejects.toThrow('outside the workspace');
  });

  it('reads progress from stdout and stderr, telling the streams apart', async () => {
    const engine = engineRunning(
      `console.log('out 10'); console.error('err 20'); console.log('out 30');
       require('node:fs').writeFileSync(process.argv[1], '');`,
      {
        progress: (line, stream) => {
          const [from, value] = line.split(' ');
          return from === stream.slice(3) ? Number(value) : null;
        },
      },
    );
    const { output, progress } = await run(engine);
    expect(output.ending).toBe('completed');
    expect(progress.sort((a, b) => a - b)).toEqual([10, 20, 30]);
  });

  it('reads every report a `*` segment matches, in name order', async () => {
    const engine = engineRunning(
      `const fs = require('node:fs'); const path = require('node:path');
       // argv[1] is the report path as written: <workspace>/out/*/log.
       const out = path.dirname(path.dirname(process.argv[1]));
       for (const [host, line] of [['b.example', 'second'], ['a.example', 'first']]) {
         fs.mkdirSync(path.join(out, host), { recursive: true });
         fs.writeFileSync(path.join(out, host, 'log'), line + '\\n');
       }
       fs.mkdirSync(path.join(out, 'c.example'));`,
      { reportFile: 'out/*/log' },
    );
    const { output } = await run(engine);
    expect(output.ending).toBe('completed');
    expect(output.findings.map((finding) => finding.ruleId)).toEqual(['first', 'second']);
  });

  it('finds no files for a `*` under a missing folder', async () => {
    expect(await reportPaths('/nonexistent-rampart-dir', 'out/*/log')).toEqual([]);
    expect(await reportPaths('/w', 'report.json')).toEqual(['/w/report.json']);
  });

  it('streams a large report through createParser in chunks, decoding UTF-8 across them', async () => {
    const chunks: string[] = [];
    const parser = (): StreamingReportParser => ({
      write: (chunk) => chunks.push(chunk),
      end: () => linesToFindings(chunks.join('')),
    });
    // 1 MiB of 'é' (2 bytes each), then an invalid byte: chunk edges fall inside characters.
    const engine = engineRunning(
      `const fs = require('node:fs');
       fs.writeFileSync(process.argv[1], Buffer.concat([
         Buffer.from('é'.repeat(512 * 1024) + '\\n'), Buffer.from([0xff, 0x0a])]));`,
      { createParser: parser, parse: () => ({ findings: [], warnings: ['parse was used'] }) },
    );
    const { output } = await run(engine);
    expect(output.warnings).toEqual([]);
    expect(chunks.length).toBeGreaterThan(1);
    expect(output.findings.map((finding) => finding.ruleId)).toEqual([
      'é'.repeat(512 * 1024),
      '\uFFFD',
    ]);
  });

  it('fails a run whose required report is missing after a success exit', async () => {
    const engine = engineRunning(`console.error('could not start: no such host');`, {
      reportRequired: true,
    });
    const { output } = await run(engine);
    expect(output.ending).toBe('engine-error');
    expect(output.message).toBe(`${nmapEngine.name} exited with code 0 but wrote no report`);
    expect(output.detail).toBe('could not start: no such host');
  });

  it("keeps the tool's stderr out of the scan's error: it is the log's detail only", async () => {
    const engine = engineRunning(
      `console.error('Traceback: secret-looking-token-1234 from the target'); process.exit(3);`,
      {},
    );
    const { output } = await run(engine);
    expect(output).toMatchObject({
      ending: 'engine-error',
      message: `${nmapEngine.name} exited with code 3`,
      detail: 'Traceback: secret-looking-token-1234 from the target',
    });
    expect(output.message).not.toContain('secret-looking-token');
  });

  it('fails a run whose output says it tested nothing, keeping the findings it reported', async () => {
    const engine = engineRunning(
      `console.log('FATAL first'); console.log('FATAL target unreachable'); console.log('done');
       require('node:fs').writeFileSync(process.argv[1], 'partial\\n');`,
      {
        failure: (line, stream) =>
          stream === 'stdout' && line.startsWith('FATAL ') ? line.slice(6) : null,
      },
    );
    const { output } = await run(engine);
    expect(output.ending).toBe('engine-error');
    expect(output.message).toBe(`${nmapEngine.name} failed: target unreachable`);
    expect(output.findings.map((finding) => finding.ruleId)).toEqual(['partial']);
  });

  it('treats a missing report as empty when the tool may write none', async () => {
    const engine = engineRunning('', {});
    const { output } = await run(engine);
    expect(output).toMatchObject({ ending: 'completed', findings: [], warnings: [] });
  });

  it('keeps the workspace private to the run (report paths are inside it)', async () => {
    let seen = '';
    const engine = engineRunning(
      `require('node:fs').writeFileSync(process.argv[1], process.argv[1] + '\\n');`,
      {
        parse: (report) => {
          seen = report.trim();
          return linesToFindings(report);
        },
      },
    );
    await run(engine);
    expect(seen).toMatch(/\/rampart-\d+\/[^/]+\/nmap-[^/]+\/report\.txt$/);
    await expect(readFile(seen)).rejects.toThrow();
  });
});
