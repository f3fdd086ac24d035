import type { EngineDefinition } from '../engine.js';
import { wapitiOptionsSchema } from './options.js';

export const wapitiEngine: EngineDefinition = {
  name: 'wapiti',
  description: 'Black-box web application scanner',
  targetTypes: ['url'],
  binary: 'wapiti',
  versionArgs: ['--version'],
  optionsSchema: wapitiOptionsSchema,
  defaultTimeoutSeconds: 3600,
};
