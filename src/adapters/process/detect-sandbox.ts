/**
 * Whether this machine can isolate scanners, checked once when a worker starts: bwrap, setpriv
 * and prlimit (the sandbox) and nft and flock (its egress rules, main/egress.ts) on the scanner
 * PATH, the scanner user, and root (only root can switch to that user, hand nmap CAP_NET_RAW and
 * load nftables rules). The answer is the sandbox, or the list of what is missing, for the mode
 * (SCANNER_SANDBOX) to turn into a warning or a refusal.
 */
import { execFile } from 'node:child_process';
import type { ScannerSandboxConfig } from '../../config/load-config.js';
import { findOnPath } from './probe-binaries.js';
import type { Sandbox } from './sandbox.js';

export type SandboxDetection =
  | { readonly ok: true; readonly sandbox: Sandbox }
  | { readonly ok: false; readonly missing: readonly string[] };

/**
 * The programs the sandbox command line is made of (sandbox.ts) and those that load its egress
 * rules (adapters/egress/nft-egress.ts), with their Debian package.
 */
export const SANDBOX_PROGRAMS: readonly { readonly binary: string; readonly package: string }[] = [
  { binary: 'bwrap', package: 'bubblewrap' },
  { binary: 'setpriv', package: 'util-linux' },
  { binary: 'prlimit', package: 'util-linux' },
  { binary: 'nft', package: 'nftables' },
  { binary: 'flock', package: 'util-linux' },
];

export async function detectSandbox(
  settings: ScannerSandboxConfig,
  pathEnv: string,
  uid: number | undefined = process.getuid?.(),
): Promise<SandboxDetection> {
  const missing: string[] = [];
  for (const program of SANDBOX_PROGRAMS) {
    if ((await findOnPath(program.binary, pathEnv)) === null) {
      missing.push(`${program.binary} (Debian package ${program.package})`);
    }
  }
  const ids = await userIds(settings.user, pathEnv);
  if (ids === null) {
    missing.push(
      `the scanner user ${settings.user} (useradd -r -s /usr/sbin/nologin ${settings.user})`,
    );
  }
  if (uid !== 0) {
    missing.push(
      'root (the service must run as root to switch scanners to their own user and load nftables rules)',
    );
  }
  if (missing.length > 0 || ids === null) {
    return { ok: false, missing };
  }
  return { ok: true, sandbox: { ...ids, limits: settings.limits } };
}

/** `id -u` and `id -g` of `user` (through NSS, so LDAP users count), or null when unknown. */
async function userIds(
  user: string,
  pathEnv: string,
): Promise<{ readonly uid: number; readonly gid: number } | null> {
  const [uid, gid] = await Promise.all([idOf(user, '-u', pathEnv), idOf(user, '-g', pathEnv)]);
  return uid === null || gid === null ? null : { uid, gid };
}

function idOf(user: string, flag: '-u' | '-g', pathEnv: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('id', [flag, '--', user], { env: { PATH: pathEnv }, timeout: 5000 }, (error, out) => {
      const value = out.trim();
      resolve(error === null && /^\d+$/.test(value) ? Number(value) : null);
    });
  });
}
