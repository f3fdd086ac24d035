import type { ToolEngine } from '../engine.js';
import { buildNiktoArgv } from './argv.js';
import { niktoOptionsSchema, niktoOptionsWithDefaults } from './options.js';
import { createNiktoParser, parseNiktoReport } from './parse.js';
import { parseNiktoProgress } from './progress.js';

// Debian installs nikto as `nikto`; upstream runs nikto.pl.
export const niktoEngine: ToolEngine = {
  kind: 'tool',
  name: 'nikto',
  description: 'Web server scanner',
  targetTypes: ['url'],
  binary: 'nikto',
  versionArgs: ['-Version'],
  optionsSchema: niktoOptionsSchema,
  defaultTimeoutSeconds: 3600,
  command: {
    reportFile: 'report.json',
    buildArgv: (options, target, context) =>
      buildNiktoArgv(niktoOptionsWithDefaults({ ...options }), target, {
        outputFile: context.reportPath,
      }),
    parse: (report, context) => parseNiktoReport(report, context),
    createParser: (context) => createNiktoParser(context),
    progress: (line, stream) => (stream === 'stdout' ? parseNiktoProgress(line) : null),
    // nikto (2.1.6, 2.5) exits 1 when it reported any item or error for a host (`$is_failure`),
    // 0 when it found nothing: both mean the scan ran. See README.md, "Exit codes".
    successExitCodes: [0, 1],
    // nikto writes its report whenever it scanned; without one it never started (a bad command
    // line exits 0, a start-up failure 1), which must not read as a clean scan.
    reportRequired: true,
  },
};
