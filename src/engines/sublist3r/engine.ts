import type { EngineDefinition } from '../engine.js';
import { sublist3rOptionsSchema } from './options.js';

// Sublist3r has no version flag: the probe reports it installed with version null.
export const sublist3rEngine: EngineDefinition = {
  name: 'sublist3r',
  description: 'Subdomain enumeration',
  targetTypes: ['domain'],
  binary: 'sublist3r',
  versionArgs: ['--help'],
  optionsSchema: sublist3rOptionsSchema,
  defaultTimeoutSeconds: 1800,
};
