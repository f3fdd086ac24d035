import type { ToolEngine } from '../engine.js';
import { buildNmapArgv } from './argv.js';
import { nmapOptionsSchema, nmapOptionsWithDefaults } from './options.js';
import { parseNmapXml } from './parse.js';
import { parseNmapProgress } from './progress.js';

/** SYN, UDP and OS detection: the scans that send packets of nmap's own making. */
const RAW_SOCKET_FLAGS: ReadonlySet<string> = new Set(['-sS', '-sU', '-O']);

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
    // The flags of buildNmapArgv that open raw sockets (`-sS` is chosen when privileged). As the
    // sandbox's unprivileged user nmap checks for root unless NMAP_PRIVILEGED says otherwise.
    rawSockets: {
      needed: (argv) => argv.slice(0, argv.indexOf('--')).some((arg) => RAW_SOCKET_FLAGS.has(arg)),
      env: { NMAP_PRIVILEGED: '1' },
    },
    // nmap exits 0 when the scan ran, including hosts that were down; anything else is an error.
    successExitCodes: [0],
    // nmap opens the -oX file before scanning: no file means it never started a scan.
    reportRequired: true,
  },
};
