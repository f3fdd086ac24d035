import type { EngineDefinition } from '../engine.js';
import { sqlmapOptionsSchema } from './options.js';

export const sqlmapEngine: EngineDefinition = {
  name: 'sqlmap',
  description: 'SQL injection detection',
  targetTypes: ['url'],
  binary: 'sqlmap',
  versionArgs: ['--version'],
  optionsSchema: sqlmapOptionsSchema,
  defaultTimeoutSeconds: 3600,
};
