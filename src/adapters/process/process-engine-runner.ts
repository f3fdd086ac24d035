/**
 * Runs a real scanner for a scan: a private workspace, the argv built by the engine's pure
 * builder, the one process runner (no shell, allowlisted environment, timeout then TERM then KILL
 * of the whole group, cancellation), then the report read and parsed, also when the run was cut
 * short (a cancelled or timed-out nmap leaves partial XML whose complete hosts still count).
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { EngineCommand, EngineDefinition } from '../../engines/engine.js';
import type { EngineRunner, EngineRunOutput } from '../../use-cases/ports.js';
import { runProcess } from './run-process.js';
import { scannerEnvironment, withScanWorkspace } from './scan-workspace.js';

/** A report larger than this is read up to this size (and parsed as a partial report). */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_DETAIL = 500;

export interface ProcessEngineRunnerOptions {
  /** Where PATH, LANG, LC_ALL and TZ come from; nothing else of it reaches the scanner. */
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  /** Root can use raw-socket scans (nmap -sS). */
  readonly privileged: boolean;
  readonly killGraceMs?: number;
  /** Where workspaces are created (default: the OS temp directory). */
  readonly workspaceBase?: string;
}

async function readReport(path: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>> | null = null;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(size, MAX_REPORT_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}

function lastLines(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= MAX_ERROR_DETAIL ? trimmed : `…${trimmed.slice(-MAX_ERROR_DETAIL)}`;
}

export function createProcessEngineRunner(
  engine: EngineDefinition & { readonly binary: string; readonly command: EngineCommand },
  options: ProcessEngineRunnerOptions,
): EngineRunner {
  const command = engine.command;
  return {
    run(request) {
      return withScanWorkspace(
        `rampart-${engine.name}`,
        async (dir): Promise<EngineRunOutput> => {
          const reportPath = join(dir, command.reportFile ?? 'stdout.txt');
          const argv = command.buildArgv(request.options, request.target, {
            reportPath,
            privileged: options.privileged,
          });
          const result = await runProcess({
            binary: engine.binary,
            argv,
            cwd: dir,
            env: scannerEnvironment(options.parentEnv, dir),
            timeoutMs: request.timeoutMs,
            signal: request.signal,
            ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
            onStdoutLine: (line) => {
              const percent = command.progress?.(line);
              if (percent !== null && percent !== undefined) {
                request.onProgress(percent);
              }
            },
          });
          if (result.spawnError !== null) {
            return {
              findings: [],
              warnings: [],
              ending: 'engine-error',
              message: `${engine.name} could not be started: ${result.spawnError}`,
            };
          }
          const report = command.reportFile === null ? result.stdout : await readReport(reportPath);
          const parsed =
            report.trim() === '' ? { findings: [], warnings: [] } : command.parse(report);
          const base = { findings: parsed.findings, warnings: parsed.warnings };
          if (result.cancelled) {
            return { ...base, ending: 'cancelled', message: null };
          }
          if (result.timedOut) {
            return { ...base, ending: 'timed-out', message: null };
          }
          if (result.exitCode === null || !command.successExitCodes.includes(result.exitCode)) {
            const how =
              result.exitCode === null
                ? `was ended by ${result.signal ?? 'a signal'}`
                : `exited with code ${result.exitCode}`;
            const detail = lastLines(result.stderr);
            return {
              ...base,
              ending: 'engine-error',
              message: `${engine.name} ${how}${detail ? `: ${detail}` : ''}`,
            };
          }
          return { ...base, ending: 'completed', message: null };
        },
        options.workspaceBase,
      );
    },
  };
}
