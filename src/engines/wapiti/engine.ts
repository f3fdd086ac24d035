import type { ToolEngine } from '../engine.js';
import { webConfigOf, webConfigProblem, webConfigSchema } from '../web-config.js';
import { buildWapitiArgv } from './argv.js';
import { wapitiInputFiles } from './config.js';
import { wapitiFailure } from './failure.js';
import { wapitiOptionsSchema, wapitiOptionsWithDefaults } from './options.js';
import { createWapitiParser, parseWapitiReport } from './parse.js';
import { parseWapitiProgress } from './progress.js';

export const wapitiEngine: ToolEngine = {
  kind: 'tool',
  name: 'wapiti',
  description: 'Black-box web application scanner',
  targetTypes: ['url'],
  binary: 'wapiti',
  versionArgs: ['--version'],
  optionsSchema: wapitiOptionsSchema,
  configSchema: webConfigSchema,
  configProblem: webConfigProblem,
  defaultTimeoutSeconds: 3600,
  command: {
    reportFile: 'report.json',
    buildArgv: (options, target, context) =>
      buildWapitiArgv(wapitiOptionsWithDefaults({ ...options }), target, {
        reportPath: context.reportPath,
        workDir: context.workDir,
        config: webConfigOf(context.config),
      }),
    inputFiles: (_options, target, context) =>
      wapitiInputFiles(webConfigOf(context.config), target.value),
    parse: (report, context) => parseWapitiReport(report, context),
    createParser: (context) => createWapitiParser(context),
    // wapiti prints with print() on stdout; nothing it prints on stderr is progress, but the
    // lines are the same text wherever they arrive, so both streams are read.
    progress: (line) => parseWapitiProgress(line),
    // A crawl that found nothing (the target never answered) also exits 0, with an empty report.
    failure: (line) => wapitiFailure(line),
    // wapiti is Python: on a pipe its print() output is block-buffered, and every progress line
    // would arrive at exit (seen in a 41 s run).
    env: { PYTHONUNBUFFERED: '1' },
    // wapiti 3.0.4 exits 0 after writing the report, 2 for a refused option (argparse), 1 when
    // it crashes. It also exits 0 without a report for a URL it cannot use: a required report.
    successExitCodes: [0],
    reportRequired: true,
  },
};
