import type { ToolEngine } from '../engine.js';
import { buildNmapArgv } from './argv.js';
import { nmapOptionsSchema, nmapOptionsWithDefaults } from './options.js';
import { parseNmapXml } from './parse.js';
import { parseNmapProgress } from './progress.js';

export const nmapEngine: ToolEngine = {
  kind: 'tool',
  name: 'nmap',
  description: 'Network discovery and port/service scanning',
  targetTypes: ['host', 'ip', 'network', 'domain'],
  binary: 'nmap',
  versionArgs: ['--version'],
  optionsSchema: nmapOptionsSchema,
  defaultTimeoutSeconds: 3600,
  command: {
    reportFile: 'report.xml',
    buildArgv: (options, target, context) =>
      buildNmapArgv(nmapOptionsWithDefaults({ ...options }), target, {
        outputFile: context.reportPath,
        privileged: context.privileged,
        pinnedAddress: context.pin.address,
      }),
    parse: (report) => parseNmapXml(report),
    progress: (line, stream) => (stream === 'stdout' ? parseNmapProgress(line) : null),
    // nmap exits 0 when the scan ran, including hosts that were down; anything else is an error.
    successExitCodes: [0],
    // nmap opens the -oX file before scanning: no file means it never started a scan.
    reportRequired: true,
  },
};
