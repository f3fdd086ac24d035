import type { EngineDefinition } from '../engine.js';
import { nmapOptionsSchema } from './options.js';

export const nmapEngine: EngineDefinition = {
  name: 'nmap',
  description: 'Network discovery and port/service scanning',
  targetTypes: ['host', 'ip', 'network', 'domain'],
  binary: 'nmap',
  versionArgs: ['--version'],
  optionsSchema: nmapOptionsSchema,
  defaultTimeoutSeconds: 3600,
};
