import type { EngineDefinition } from '../engine.js';
import { sentinelOptionsSchema } from './options.js';

export const sentinelEngine: EngineDefinition = {
  name: 'sentinel',
  description: 'Multi-engine orchestration with correlation and de-duplication',
  targetTypes: ['host', 'url', 'domain', 'ip'],
  binary: null,
  versionArgs: [],
  optionsSchema: sentinelOptionsSchema,
  defaultTimeoutSeconds: 14400,
};
