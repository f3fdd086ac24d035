import type { ToolEngine } from '../engine.js';
import { buildTrivyArgv } from './argv.js';
import { trivyOptionsSchema, trivyOptionsWithDefaults } from './options.js';
import { createTrivyParser, parseTrivyJson } from './parse.js';
import { parseTrivyProgress } from './progress.js';

// The specification's table lists trivy under url; decisions.md adds container image references.
export const trivyEngine: ToolEngine = {
  kind: 'tool',
  name: 'trivy',
  description: 'Vulnerabilities, misconfigurations and secrets in images, filesystems and IaC',
  targetTypes: ['url', 'image'],
  binary: 'trivy',
  versionArgs: ['--version'],
  optionsSchema: trivyOptionsSchema,
  defaultTimeoutSeconds: 1800,
  command: {
    reportFile: 'report.json',
    buildArgv: (options, target, context) =>
      buildTrivyArgv(trivyOptionsWithDefaults({ ...options }), target, {
        reportPath: context.reportPath,
      }),
    parse: parseTrivyJson,
    // Preferred by the runner: a cluster or image report of many MB is never held whole.
    createParser: createTrivyParser,
    // trivy logs its phases on stderr; stdout carries nothing with `--output` and `--no-progress`,
    // but a line there is read the same way (the patterns only match trivy's log messages).
    progress: (line) => parseTrivyProgress(line),
    // trivy exits 0 after a scan whatever it found (no `--exit-code` is passed); 1 is an error
    // (image not found, database download failed, its own timeout) and its report cannot be trusted.
    successExitCodes: [0],
  },
};
