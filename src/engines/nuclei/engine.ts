import type { ToolEngine } from '../engine.js';
import { webConfigOf, webConfigProblem } from '../web-config.js';
import { buildNucleiArgv, nucleiTargetProblem } from './argv.js';
import { NUCLEI_HEADERS_FILE, nucleiConfigSchema, nucleiHeaderLines } from './config.js';
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
  configSchema: nucleiConfigSchema,
  configProblem: webConfigProblem,
  defaultTimeoutSeconds: 3600,
  targetProblem: nucleiTargetProblem,
  command: {
    reportFile: 'report.jsonl',
    buildArgv: (options, target, context) => [
      ...buildNucleiArgv(nucleiOptionsWithDefaults({ ...options }), target, {
        reportPath: context.reportPath,
        privateTargetsAllowed: context.pin.privateTargetsAllowed,
      }),
      // Headers, cookies, credentials and user agent: from a file, never on the argv.
      ...(nucleiHeaderLines(webConfigOf(context.config)).length === 0
        ? []
        : [`-H=${context.workDir}/${NUCLEI_HEADERS_FILE}`]),
    ],
    inputFiles: (_options, _target, context) => {
      const lines = nucleiHeaderLines(webConfigOf(context.config));
      return lines.length === 0
        ? []
        : [{ path: NUCLEI_HEADERS_FILE, content: `${lines.join('\n')}\n` }];
    },
    parse: (report, context) => parseNucleiOutput(report, context),
    createParser: (context) => createNucleiParser(context),
    // The statistics go to stderr; stdout carries only the findings (`-silent -jsonl`).
    progress: (line, stream) => (stream === 'stderr' ? parseNucleiProgress(line) : null),
    // nuclei exits 0 whether or not anything matched; 1 for fatal errors (gologger Fatal, bad
    // flags, no templates) and for Ctrl-C.
    successExitCodes: [0],
  },
};
