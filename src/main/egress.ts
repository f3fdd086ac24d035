/**
 * The scanner user's egress rules for this process's workers (issue 18, "the target policy in the
 * kernel"): loaded when workers start, in the same situations as the sandbox (SCANNER_SANDBOX):
 * `auto` loads them when this machine can (root, nft, the scanner user) and otherwise warns naming
 * what is missing; `required` refuses to start without them; `off` loads nothing.
 */
import { execFile } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import { ownAddresses, resolversFromResolvConf } from '../adapters/egress/egress-ruleset.js';
import { type EgressRules, holdEgressRules } from '../adapters/egress/nft-egress.js';
import { findOnPath } from '../adapters/process/probe-binaries.js';
import type { Config } from '../config/load-config.js';

/** `id -u` of `user` (through NSS, so directory users count), or null when unknown. */
function uidOf(user: string, pathEnv: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('id', ['-u', '--', user], { env: { PATH: pathEnv }, timeout: 5000 }, (error, out) => {
      const value = out.trim();
      resolve(error === null && /^\d+$/.test(value) ? Number(value) : null);
    });
  });
}

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
 * Loads the egress rules for this process's workers, or answers null when SCANNER_SANDBOX is `off`
 * or (under `auto`) this machine cannot; throws under `required`. Release the answer after the
 * workers stopped.
 */
export async function startEgressRules(
  config: Config,
  logger: Logger,
  options: { readonly stateDir?: string } = {},
): Promise<EgressRules | null> {
  const { mode, user } = config.scannerSandbox;
  if (mode === 'off') {
    return null;
  }
  const pathEnv = config.scannerPath ?? '';
  const missing: string[] = [];
  if (process.getuid?.() !== 0) {
    missing.push('root (only root can load nftables rules)');
  }
  for (const binary of ['nft', 'flock']) {
    if ((await findOnPath(binary, pathEnv)) === null) {
      missing.push(`${binary} (Debian package ${binary === 'nft' ? 'nftables' : 'util-linux'})`);
    }
  }
  const uid = await uidOf(user, pathEnv);
  if (uid === null) {
    missing.push(`the scanner user ${user}`);
  }
  try {
    if (missing.length > 0 || uid === null) {
      throw new Error(`missing ${missing.join(', ')}`);
    }
    const resolvConf = await readFile('/etc/resolv.conf', 'utf8').catch(() => '');
    const rules = await holdEgressRules({
      policy: {
        table: config.scannerEgressTable,
        uid,
        allowPrivateTargets: config.allowPrivateTargets,
        ownAddresses: ownAddresses(await listenAddresses(config.host), interfaceAddresses()),
        resolvers: resolversFromResolvConf(resolvConf),
      },
      pathEnv,
      ...(options.stateDir ? { stateDir: options.stateDir } : {}),
    });
    logger.info({ table: rules.table, uid }, 'scanner egress rules loaded');
    return rules;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (mode === 'required') {
      throw new Error(`the scanner sandbox is required, but its egress rules failed: ${reason}`);
    }
    logger.warn(
      `scanner egress rules not loaded (${reason}): scanners may reach refused addresses`,
    );
    return null;
  }
}
