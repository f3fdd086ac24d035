import type { ToolEngine } from '../engine.js';
import { buildNucleiArgv, nucleiTargetProblem } from './argv.js';
import { nucleiOptionsSchema, nucleiOptionsWithDefaults } from './options.js';
import { createNucleiParser, parseNucleiOutput } from './parse.js';
import { parseNucleiProgress } from './progress.js';

export const nucleiEngine: ToolEngine = {
  kind: 'tool',
  name: 'nuclei',
  description: 'Template-based detection',
  targetTypes: ['host', 'url', 'domain', 'ip'],
  binary: 'nuclei',
  versionArgs: ['-version'],
  optionsSchema: nucleiOptionsSchema,
  defaultTimeoutSeconds: 3600,
  targetProblem: nucleiTargetProblem,
  command: {
    reportFile: 'report.jsonl',
    buildArgv: (options, target, context) =>
      buildNucleiArgv(nucleiOptionsWithDefaults({ ...options }), target, {
        reportPath: context.reportPath,
        privateTargetsAllowed: context.pin.privateTargetsAllowed,
      }),
    parse: (report, context) => parseNucleiOutput(report, context),
    createParser: (context) => createNucleiParser(context),
    // The statistics go to stderr; stdout carries only the findings (`-silent -jsonl`).
    progress: (line, stream) => (stream === 'stderr' ? parseNucleiProgress(line) : null),
    // nuclei exits 0 whether or not anything matched; 1 for fatal errors (gologger Fatal, bad
    // flags, no templates) and for Ctrl-C.
    successExitCodes: [0],
  },
};
