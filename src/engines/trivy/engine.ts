import type { EngineDefinition } from '../engine.js';
import { trivyOptionsSchema } from './options.js';

// The specification's table lists trivy under url; decisions.md adds container image references.
export const trivyEngine: EngineDefinition = {
  name: 'trivy',
  description: 'Vulnerabilities, misconfigurations and secrets in images, filesystems and IaC',
  targetTypes: ['url', 'image'],
  binary: 'trivy',
  versionArgs: ['--version'],
  optionsSchema: trivyOptionsSchema,
  defaultTimeoutSeconds: 1800,
};
