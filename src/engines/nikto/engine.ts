import type { ToolEngine } from '../engine.js';
import { webConfigOf } from '../web-config.js';
import { buildNiktoArgv } from './argv.js';
import {
  NIKTO_CONFIG_FILE,
  niktoAuthFlags,
  niktoConfigLines,
  niktoConfigProblem,
  niktoConfigSchema,
} from './config.js';
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
  configSchema: niktoConfigSchema,
  configProblem: niktoConfigProblem,
  defaultTimeoutSeconds: 3600,
  command: {
    // JSON or XML by the version the worker probed (argv.ts); the file keeps its name either
    // way, and parse.ts reads both.
    reportFile: 'report.json',
    buildArgv: (options, target, context) => [
      ...buildNiktoArgv(niktoOptionsWithDefaults({ ...options }), target, {
        outputFile: context.reportPath,
        version: context.toolVersion ?? null,
      }),
      // Basic authentication: nikto takes it only as `-id` (README.md, "Config").
      ...niktoAuthFlags(webConfigOf(context.config)),
    ],
    // Cookies and user agent: in `$HOME/nikto.conf` (the workspace), read after the system
    // config file, never on the argv (config.ts).
    inputFiles: (_options, _target, context) => {
      const lines = niktoConfigLines(webConfigOf(context.config));
      return lines.length === 0
        ? []
        : [{ path: NIKTO_CONFIG_FILE, content: `${lines.join('\n')}\n` }];
    },
    parse: (report, context) => parseNiktoReport(report, context),
    createParser: (context) => createNiktoParser(context),
    progress: (line, stream) => (stream === 'stdout' ? parseNiktoProgress(line) : null),
    // nikto (2.1.6, 2.5) exits 1 when it reported any item or error for a host (`$is_failure`),
    // 0 when it found nothing: both mean the scan ran. See README.md, "Exit codes".
    successExitCodes: [0, 1],
    // Debian's nikto (2.1.5) reads /etc/nikto/config.txt, which points it at its plugins,
    // databases and templates in /var/lib/nikto: the sandbox shows both (upstream nikto keeps
    // everything beside nikto.pl, which the sandbox shows as the tool's own directory).
    readOnlyPaths: ['/etc/nikto', '/var/lib/nikto'],
    // nikto writes its report whenever it scanned; without one it never started (a bad command
    // line exits 0, a start-up failure 1), which must not read as a clean scan.
    reportRequired: true,
  },
};
