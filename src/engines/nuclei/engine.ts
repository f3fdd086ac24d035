import type { EngineDefinition } from '../engine.js';
import { nucleiOptionsSchema } from './options.js';

export const nucleiEngine: EngineDefinition = {
  name: 'nuclei',
  description: 'Template-based detection',
  targetTypes: ['host', 'url', 'domain', 'ip'],
  binary: 'nuclei',
  versionArgs: ['-version'],
  optionsSchema: nucleiOptionsSchema,
  defaultTimeoutSeconds: 3600,
};
