import type { ToolEngine } from '../engine.js';
import { buildHarvesterArgv } from './argv.js';
import { harvesterOptionsSchema, harvesterOptionsWithDefaults } from './options.js';
import { createHarvesterParser, parseHarvesterReport } from './parse.js';
import { createHarvesterProgress, parseHarvesterProgress } from './progress.js';

// theHarvester has no version flag; --help prints its banner with the version.
export const harvesterEngine: ToolEngine = {
  kind: 'tool',
  name: 'harvester',
  description: 'Passive OSINT: e-mails, hosts and addresses of a domain (theHarvester)',
  targetTypes: ['domain'],
  binary: 'theHarvester',
  versionArgs: ['--help'],
  optionsSchema: harvesterOptionsSchema,
  defaultTimeoutSeconds: 1800,
  command: {
    // `--filename=<workspace>/report.json` makes theHarvester write report.json and report.xml.
    reportFile: 'report.json',
    buildArgv: (options, target, context) =>
      buildHarvesterArgv(harvesterOptionsWithDefaults({ ...options }), target, {
        reportPath: context.reportPath,
      }),
    parse: (report, context) => parseHarvesterReport(report, context),
    createParser: (context) => createHarvesterParser(context),
    // Older releases print with print() (stdout), current ones through their logger: both count.
    progress: (line) => parseHarvesterProgress(line),
    // Per run: the share of the requested sources that answered moves the source band.
    createProgress: (options) =>
      createHarvesterProgress(harvesterOptionsWithDefaults({ ...options }).sources.length),
    // 0 after a run, also when sources failed; 1 for an invalid source or a crash.
    // A Python tool: unbuffered, so its progress lines arrive as they are printed.
    env: { PYTHONUNBUFFERED: '1' },
    successExitCodes: [0],
    // With --filename the report is written at the end of every run, empty or not (the
    // empty-no-results fixture is one): none after exit 0 means the run did not happen.
    reportRequired: true,
  },
};
