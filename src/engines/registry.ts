import type { DraftFinding } from '../domain/findings/finding.js';
import { ENGINE_NAMES, type EngineDefinition, type EngineName, isEngineName } from './engine.js';
import { harvesterEngine } from './harvester/engine.js';
import { niktoEngine } from './nikto/engine.js';
import { nmapEngine } from './nmap/engine.js';
import { nucleiEngine } from './nuclei/engine.js';
import { confirmedBy } from './sentinel/confidence.js';
import { sentinelEngine } from './sentinel/engine.js';
import { sqlmapEngine } from './sqlmap/engine.js';
import { sublist3rEngine } from './sublist3r/engine.js';
import { trivyEngine } from './trivy/engine.js';
import { wapitiEngine } from './wapiti/engine.js';
import { zapEngine } from './zap/engine.js';

/** Every engine of the specification, by name. */
export const ENGINES: Readonly<Record<EngineName, EngineDefinition>> = {
  nmap: nmapEngine,
  zap: zapEngine,
  trivy: trivyEngine,
  nuclei: nucleiEngine,
  nikto: niktoEngine,
  sqlmap: sqlmapEngine,
  wapiti: wapitiEngine,
  harvester: harvesterEngine,
  sublist3r: sublist3rEngine,
  sentinel: sentinelEngine,
};

/** The engines in the specification's order. */
export function listEngines(): EngineDefinition[] {
  return ENGINE_NAMES.map((name) => ENGINES[name]);
}

/** Whether scans of this engine run as child scans of other engines (sentinel). */
export function runsAsChildScans(scanType: string): boolean {
  return isEngineName(scanType) && ENGINES[scanType].kind !== 'tool';
}

/**
 * Whether a finding of `engine` was confirmed by exploitation (sqlmap's injection points, a nuclei
 * out-of-band callback, a ZAP alert a user confirmed): the column of the weakness severity table
 * it takes (domain/findings/weakness-severity.ts). The rules are the correlation's confidence
 * ratings (engines/sentinel/confidence.ts), shared so that one finding is rated one way.
 */
export const isConfirmedBy: (engine: string) => (draft: DraftFinding) => boolean = confirmedBy;
