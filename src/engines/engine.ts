/**
 * The contract every scan engine satisfies, and the engine names of the specification. Pure data:
 * nothing here touches the file system or spawns anything (adapters/process does that).
 */
import type { TObject } from '@sinclair/typebox';
import type { ParseResult } from '../domain/findings/finding.js';
import type { ScanTarget, TargetType } from '../domain/targets/target.js';

export const ENGINE_NAMES = [
  'nmap',
  'zap',
  'trivy',
  'nuclei',
  'nikto',
  'sqlmap',
  'wapiti',
  'harvester',
  'sublist3r',
  'sentinel',
] as const;

export type EngineName = (typeof ENGINE_NAMES)[number];

export type { TargetType } from '../domain/targets/target.js';

export interface EngineDefinition {
  readonly name: EngineName;
  readonly description: string;
  /** Target types the engine takes (the specification's compatibility table; trivy adds image). */
  readonly targetTypes: readonly TargetType[];
  /** Executable looked up on PATH; null for sentinel, which runs the other engines. */
  readonly binary: string | null;
  /** Arguments that make the binary print its version. */
  readonly versionArgs: readonly string[];
  /** JSON Schema (TypeBox) of `options`: closed objects, defaults from the specification. */
  readonly optionsSchema: TObject;
  /** The scan `timeout` when the request gives none (seconds; at most 86400). */
  readonly defaultTimeoutSeconds: number;
  /** How to run the tool and read its output; absent until the engine's adapter exists. */
  readonly command?: EngineCommand;
}

/** What the one process runner needs to know about a tool: pure functions and data. */
export interface EngineCommand {
  /** File the tool writes its report to, inside the scan's private workspace; null: stdout. */
  readonly reportFile: string | null;
  /** Arguments after the binary name, from validated options (defaults filled in) and target. */
  buildArgv(
    options: Readonly<Record<string, unknown>>,
    target: ScanTarget,
    context: { readonly reportPath: string; readonly privileged: boolean },
  ): string[];
  /** Report text to findings; also given the partial report of a cancelled or timed-out run. */
  parse(report: string): ParseResult;
  /** Progress (0..99) from one line of the tool's stdout, or null. */
  progress?(line: string): number | null;
  /** Exit codes after which the report is trusted. */
  readonly successExitCodes: readonly number[];
}

export function isEngineName(value: unknown): value is EngineName {
  return typeof value === 'string' && (ENGINE_NAMES as readonly string[]).includes(value);
}
