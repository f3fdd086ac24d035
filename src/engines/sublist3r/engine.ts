import type { ToolEngine } from '../engine.js';
import { buildSublist3rArgv, isSublist3rDomain } from './argv.js';
import { sublist3rOptionsSchema, sublist3rOptionsWithDefaults } from './options.js';
import { createSublist3rParser, parseSublist3rOutput } from './parse.js';
import { parseSublist3rProgress } from './progress.js';

// Sublist3r has no version flag: the probe reports it installed with version null.
export const sublist3rEngine: ToolEngine = {
  kind: 'tool',
  name: 'sublist3r',
  description: 'Subdomain enumeration',
  targetTypes: ['domain'],
  binary: 'sublist3r',
  versionArgs: ['--help'],
  optionsSchema: sublist3rOptionsSchema,
  defaultTimeoutSeconds: 1800,
  // sublist3r prints an error and exits 0 with no file for names it refuses: refused up front.
  targetProblem: (target) =>
    isSublist3rDomain(target.value)
      ? null
      : 'sublist3r takes only letters, digits, single hyphens and dots, ending in a letters-only label (no punycode labels)',
  optionsProblem: (options) =>
    options.ports === undefined
      ? null
      : {
          field: 'ports',
          reason:
            'not supported: sublist3r probes every name it finds (private addresses included, past TARGET_NOT_ALLOWED) and reports open ports only on its console; scan the subdomains with nmap',
        },
  command: {
    // Written only when sublist3r found something; a missing file is zero subdomains.
    reportFile: 'subdomains.txt',
    buildArgv: (options, target, context) =>
      buildSublist3rArgv(sublist3rOptionsWithDefaults({ ...options }), target, {
        outputFile: context.reportPath,
      }),
    parse: (report, context) => parseSublist3rOutput(report, context),
    createParser: (context) => createSublist3rParser(context),
    progress: (line, stream) => (stream === 'stdout' ? parseSublist3rProgress(line) : null),
    // sublist3r 1.1 exits 0 whatever happens inside it: when every search engine failed (Python
    // tracebacks on stderr), for a domain it refuses, even for a usage error (its argparse error
    // handler calls `sys.exit()`). Anything else (a crash of the main process, 1) is an error.
    // A Python tool: unbuffered, so its progress lines arrive as they are printed.
    env: { PYTHONUNBUFFERED: '1' },
    successExitCodes: [0],
  },
};
