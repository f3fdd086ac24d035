import type { EngineDefinition } from '../engine.js';
import { harvesterOptionsSchema } from './options.js';

// theHarvester has no version flag; --help prints its banner with the version.
export const harvesterEngine: EngineDefinition = {
  name: 'harvester',
  description: 'Passive OSINT: e-mails, hosts and addresses of a domain (theHarvester)',
  targetTypes: ['domain'],
  binary: 'theHarvester',
  versionArgs: ['--help'],
  optionsSchema: harvesterOptionsSchema,
  defaultTimeoutSeconds: 1800,
};
