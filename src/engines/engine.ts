/**
 * The contract every scan engine satisfies, and the engine names of the specification. Pure data:
 * nothing here touches the file system or spawns anything (adapters/process does that).
 */
import type { TObject } from '@sinclair/typebox';

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

export type TargetType = 'host' | 'url' | 'domain' | 'ip' | 'network' | 'image';

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
}

export function isEngineName(value: unknown): value is EngineName {
  return typeof value === 'string' && (ENGINE_NAMES as readonly string[]).includes(value);
}
