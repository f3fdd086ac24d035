import type { EngineDefinition } from '../engine.js';
import { zapOptionsSchema } from './options.js';

// zap.sh is ZAP's launcher (the packaged scripts zap-baseline.py / zap-full-scan.py wrap it).
export const zapEngine: EngineDefinition = {
  name: 'zap',
  description: 'OWASP ZAP web application dynamic testing',
  targetTypes: ['url'],
  binary: 'zap.sh',
  versionArgs: ['-cmd', '-version'],
  optionsSchema: zapOptionsSchema,
  defaultTimeoutSeconds: 7200,
};
