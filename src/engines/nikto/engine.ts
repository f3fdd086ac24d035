import type { EngineDefinition } from '../engine.js';
import { niktoOptionsSchema } from './options.js';

// Debian installs nikto as `nikto`; upstream runs nikto.pl.
export const niktoEngine: EngineDefinition = {
  name: 'nikto',
  description: 'Web server scanner',
  targetTypes: ['url'],
  binary: 'nikto',
  versionArgs: ['-Version'],
  optionsSchema: niktoOptionsSchema,
  defaultTimeoutSeconds: 3600,
};
