/**
 * The ZAP command line: `zap.sh` runs one Automation Framework plan inline and exits. Pure; the
 * worker spawns it without a shell. Nothing from the request reaches argv: the target, every
 * option and every credential are in the plan file (`plan.ts`), which the runner writes into the
 * workspace with mode 0600 before ZAP starts. The contract is in README.md.
 *
 * Flags checked against zaproxy/zaproxy `CommandLine.java` (core: `-cmd`, `-silent`, `-nostdout`,
 * `-dir`, `-config`), the automation add-on (`-autorun <filename>`) and the network add-on
 * (`network.localServers.mainProxy.*` options). ZAP reads each value as the argument after its
 * flag (there is no `--` and no `-flag=value` form); all values here are paths and settings built
 * by the engine.
 */
import type { ScanTarget } from '../../domain/targets/target.js';

/** The plan file, relative to the workspace (written by the runner through `inputFiles`). */
export const ZAP_PLAN_FILE = 'plan.yaml';
/** ZAP's home directory (config, add-on state, session database, `zap.log`) in the workspace. */
export const ZAP_HOME_DIR = 'zap-home';

/**
 * The main proxy on a port the system picks. ZAP 2.12+ starts its main proxy in command-line mode
 * too and quits ("Terminating ZAP, unable to start the main proxy.") when the default 8080 is
 * taken, which two scans on one worker would do. `LocalServerConfig.setPort` accepts 0 (any port);
 * the `-port` flag does not (it ignores values below 1).
 */
export const ZAP_PROXY_PORT_CONFIG = 'network.localServers.mainProxy.port=0';

export interface ZapArgvContext {
  /** The scan's private workspace (absolute). */
  readonly workDir: string;
}

/** `dir/name` for an absolute directory, without node:path (engines stay free of I/O modules). */
export function inWorkspace(workDir: string, name: string): string {
  return `${workDir.replace(/\/+$/, '')}/${name}`;
}

/**
 * The fixed flags, in order, each with why it is there. A table like nmap's OPTION_FLAGS, but
 * keyed by purpose: no option of the specification maps to a flag.
 */
const LAUNCH_FLAGS: ReadonlyArray<{
  readonly purpose: string;
  readonly flags: (context: ZapArgvContext) => string[];
}> = [
  { purpose: 'run inline, exit when the plan has run', flags: () => ['-cmd'] },
  {
    purpose: 'no unsolicited requests: update checks, news, telemetry',
    flags: () => ['-silent'],
  },
  {
    purpose: 'no log lines on stdout; the plan progress (CommandLine.info) is still printed',
    flags: () => ['-nostdout'],
  },
  {
    purpose: 'home inside the workspace, deleted with it',
    flags: (c) => ['-dir', inWorkspace(c.workDir, ZAP_HOME_DIR)],
  },
  { purpose: 'main proxy on any free port', flags: () => ['-config', ZAP_PROXY_PORT_CONFIG] },
  {
    purpose: 'the plan: target, options, credentials, report',
    flags: (c) => ['-autorun', inWorkspace(c.workDir, ZAP_PLAN_FILE)],
  },
];

/**
 * The ZAP arguments for one scan, e.g. for workspace `/tmp/rampart-zap-1`:
 * `-cmd -silent -nostdout -dir /tmp/rampart-zap-1/zap-home -config network.localServers.mainProxy.port=0 -autorun /tmp/rampart-zap-1/plan.yaml`.
 * Throws for a target type ZAP does not take: the engine definition already excludes those.
 */
export function buildZapArgv(target: ScanTarget, context: ZapArgvContext): string[] {
  if (target.type !== 'url') {
    throw new Error(`zap does not scan ${target.type} targets`);
  }
  return LAUNCH_FLAGS.flatMap((entry) => entry.flags(context));
}
