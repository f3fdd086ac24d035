/**
 * The scanner user's egress rules for this process's workers (issue 18, "the target policy in the
 * kernel"): loaded when workers start, whenever scanners run in the sandbox (scanner-sandbox.ts
 * decided that with SCANNER_SANDBOX, and named what is missing when they do not). A failure to
 * load them refuses the start under `required` and is a warning under `auto`.
 */
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import { ownAddresses, resolversFromResolvConf } from '../adapters/egress/egress-ruleset.js';
import { type EgressRules, holdEgressRules } from '../adapters/egress/nft-egress.js';
import type { Sandbox } from '../adapters/process/sandbox.js';
import type { Config } from '../config/load-config.js';

/** The addresses HOST stands for: itself when an address, else what it resolves to. */
async function listenAddresses(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((answer) => answer.address);
  } catch {
    return [];
  }
}

/** Every address of this machine's interfaces. */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address),
  );
}

/**
 * Loads the egress rules for this process's workers, for the scanner user of `sandbox`; null when
 * scanners run without the sandbox, or (under `auto`) when the rules failed to load; throws under
 * `required`. Release the answer after the workers stopped.
 */
export async function startEgressRules(
  config: Config,
  sandbox: Sandbox | null,
  logger: Logger,
  options: { readonly stateDir?: string } = {},
): Promise<EgressRules | null> {
  if (sandbox === null) {
    return null;
  }
  try {
    const resolvConf = await readFile('/etc/resolv.conf', 'utf8').catch(() => '');
    const rules = await holdEgressRules({
      policy: {
        table: config.scannerEgressTable,
        uid: sandbox.uid,
        allowPrivateTargets: config.allowPrivateTargets,
        ownAddresses: ownAddresses(await listenAddresses(config.host), interfaceAddresses()),
        resolvers: resolversFromResolvConf(resolvConf),
      },
      pathEnv: config.scannerPath ?? '',
      ...(options.stateDir ? { stateDir: options.stateDir } : {}),
    });
    logger.info({ table: rules.table, uid: sandbox.uid }, 'scanner egress rules loaded');
    return rules;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (config.scannerSandbox.mode === 'required') {
      throw new Error(`the scanner sandbox is required, but its egress rules failed: ${reason}`);
    }
    logger.warn(
      `scanner egress rules not loaded (${reason}): scanners may reach refused addresses`,
    );
    return null;
  }
}
