import type { SentinelEngine } from '../engine.js';
import { sentinelOptionsSchema } from './options.js';

export const sentinelEngine: SentinelEngine = {
  kind: 'sentinel',
  name: 'sentinel',
  description: 'Multi-engine orchestration with correlation and de-duplication',
  targetTypes: ['host', 'url', 'domain', 'ip'],
  optionsSchema: sentinelOptionsSchema,
  defaultTimeoutSeconds: 14400,
  memberEngines: (options) =>
    Array.isArray(options.engines)
      ? options.engines.filter((name): name is string => typeof name === 'string')
      : [],
};
