import type { SentinelEngine } from '../engine.js';
import { webConfigProblem, webConfigSchema } from '../web-config.js';
import { sentinelOptionsSchema } from './options.js';

export const sentinelEngine: SentinelEngine = {
  kind: 'sentinel',
  name: 'sentinel',
  description: 'Multi-engine orchestration with correlation and de-duplication',
  targetTypes: ['host', 'url', 'domain', 'ip'],
  optionsSchema: sentinelOptionsSchema,
  // Handed to each child whose engine takes a config (sentinel-lifecycle.ts).
  configSchema: webConfigSchema,
  configProblem: webConfigProblem,
  defaultTimeoutSeconds: 14400,
  memberEngines: (options) =>
    Array.isArray(options.engines)
      ? options.engines.filter((name): name is string => typeof name === 'string')
      : [],
};
