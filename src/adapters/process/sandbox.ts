/**
 * The sandbox every scanner process runs in when the worker can build one: bubblewrap with new
 * PID, IPC and UTS namespaces, the system directories read-only, the scan's workspace as the only
 * writable place besides a small private /dev/shm (DATA_DIR, the checkout, /root, other scans'
 * workspaces and the host's /proc are simply not there), then `setpriv` to the unprivileged scanner user with no capability (only
 * CAP_NET_RAW, when the engine asks for raw sockets for this argv) and `prlimit` for the resource
 * limits. Pure: this module builds the command line and reads a result; the runner spawns.
 *
 * The wrapper keeps the process group of the runner (no `--new-session`): TERM and KILL to the
 * group still reach the tool, and bwrap's `--die-with-parent` and its PID namespace (whose init
 * takes every member with it) add two more ways for nothing to outlive the scan.
 */
import { dirname } from 'node:path';
import type { ScannerLimits } from '../../config/load-config.js';

export interface Sandbox {
  /** The scanner user's numeric ids (numbers, so no name lookup happens inside the sandbox). */
  readonly uid: number;
  readonly gid: number;
  readonly limits: ScannerLimits;
  /**
   * More paths shown read-only at the same place (tests: a scanner double's scripts and fixture).
   * The engine binary's own directory is added per run when it is outside the system directories.
   */
  readonly readOnlyPaths?: readonly string[];
  /** More writable paths (tests: where a double logs its argv); production has none. */
  readonly writablePaths?: readonly string[];
  /**
   * Files shown read-only in place of one of the /etc entries, as [source, destination]
   * (tests: a hosts file of the test's own as `/etc/hosts`, so a tool resolves a name elsewhere
   * than the worker did); production has none.
   */
  readonly readOnlyBinds?: ReadonlyArray<readonly [source: string, destination: string]>;
}

/** Directories a scanner sees read-only: programs, libraries, their data. */
const SYSTEM_DIRS = ['/usr'];
/** Merged-/usr links: `/bin/sh` and the ELF interpreter `/lib64/ld-linux-x86-64.so.2`. */
const USR_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
/**
 * What of /etc a tool needs: name resolution, TLS roots, the dynamic linker's cache (without it
 * nmap does not find its BLAS library), the alternatives links some libraries and binaries are,
 * users and groups (for the tool's own uid), the time zone, services and protocols. Nothing else
 * of /etc (a deployment's environment files, keys) is there; each entry is one more mount at
 * every scan start (bench/sandbox-start.ts measures the cost).
 */
const ETC_ENTRIES = [
  'resolv.conf',
  'hosts',
  'nsswitch.conf',
  'gai.conf',
  'ssl',
  'ca-certificates',
  'ld.so.cache',
  'alternatives',
  'passwd',
  'group',
  'localtime',
  'services',
  'protocols',
];

/** The sandbox's /dev/shm, the one writable place besides the workspace. */
const SHM_BYTES = 64 * 1024 * 1024;

/** Signals whose death exit code (128 + n) bwrap passes on, and which a limit sends. */
const SIGXCPU_EXIT = 128 + 24;
const SIGXFSZ_EXIT = 128 + 25;

export interface SandboxedRun {
  /** The tool's absolute path (resolved on the scanner's PATH before the run). */
  readonly binaryPath: string;
  readonly argv: readonly string[];
  /** The scan's workspace: bound writable at its own path, and the working directory. */
  readonly workDir: string;
  /** Give this process CAP_NET_RAW (the engine's argv opens raw sockets). */
  readonly rawSockets: boolean;
}

/** `bwrap … -- setpriv … -- prlimit … -- <tool> <argv>`, to be spawned without a shell. */
export function sandboxCommand(
  sandbox: Sandbox,
  run: SandboxedRun,
): { readonly binary: string; readonly argv: string[] } {
  const readOnly = [...(sandbox.readOnlyPaths ?? [])];
  const toolDir = dirname(run.binaryPath);
  if (!SYSTEM_DIRS.some((dir) => toolDir === dir || toolDir.startsWith(`${dir}/`))) {
    // A tool installed under /opt (ZAP) reads its own directory; a double lives in a test's.
    readOnly.push(toolDir);
  }
  const writable = sandbox.writablePaths ?? [];
  const caps = run.rawSockets ? '-all,+net_raw' : '-all';
  const { limits } = sandbox;
  return {
    binary: 'bwrap',
    argv: [
      ...SYSTEM_DIRS.flatMap((dir) => ['--ro-bind', dir, dir]),
      ...USR_LINKS.flatMap((link) => ['--symlink', `usr/${link}`, `/${link}`]),
      // bwrap would make the parents of bound paths 0700 root; /etc must be readable.
      ...['--perms', '0755', '--dir', '/etc'],
      ...ETC_ENTRIES.flatMap((entry) => ['--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`]),
      // After the /etc entries: a later mount at the same place hides the earlier one.
      ...(sandbox.readOnlyBinds ?? []).flatMap(([source, destination]) => [
        '--ro-bind',
        source,
        destination,
      ]),
      // A /proc of the new PID namespace: the service's processes (and their environ) are absent.
      ...['--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp'],
      // Python's multiprocessing (sublist3r's brute force) needs POSIX semaphores: a /dev/shm of
      // the sandbox's own (its IPC namespace is private too), small and gone with it.
      ...['--perms', '1777', '--size', String(SHM_BYTES), '--tmpfs', '/dev/shm'],
      ...ancestorDirs([...readOnly, ...writable, run.workDir]).flatMap((dir) => [
        '--perms',
        '0755',
        '--dir',
        dir,
      ]),
      ...readOnly.flatMap((path) => ['--ro-bind', path, path]),
      ...writable.flatMap((path) => ['--bind', path, path]),
      ...['--bind', run.workDir, run.workDir, '--chdir', run.workDir],
      ...['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent'],
      '--',
      'setpriv',
      `--reuid=${sandbox.uid}`,
      `--regid=${sandbox.gid}`,
      '--clear-groups',
      // The one capability nmap's SYN and OS scans need, on this process only; ambient, so it
      // survives the exec into the tool (no file capabilities, no setuid: no_new_privs holds).
      `--inh-caps=${caps}`,
      ...(run.rawSockets ? ['--ambient-caps=+net_raw'] : []),
      `--bounding-set=${caps}`,
      '--no-new-privs',
      '--',
      'prlimit',
      `--as=${limits.memoryMb * 1024 * 1024}`,
      `--nproc=${limits.processes}`,
      `--fsize=${limits.fileSizeMb * 1024 * 1024}`,
      // SIGXCPU at the soft limit (a clear exit code), KILL ten seconds of CPU later.
      `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 10}`,
      '--',
      run.binaryPath,
      ...run.argv,
    ],
  };
}

/** Mount points of their own, which need no directories made for them. */
const MOUNTED = ['/', '/tmp', '/proc', '/dev', ...SYSTEM_DIRS];

/**
 * The directories above the bound paths, outermost first. bwrap would make them 0700 root, and
 * the scanner user could not walk down to its own workspace; made with `--dir` they are 0755 and
 * empty (the real parents, 0700 or not, are not there). A directory inside a bound path exists
 * already.
 */
function ancestorDirs(paths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); !MOUNTED.includes(dir); dir = dirname(dir)) {
      if (!paths.some((bound) => dir === bound || dir.startsWith(`${bound}/`))) {
        dirs.add(dir);
      }
    }
  }
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length);
}

/** How a limit shows in a run's end: the death signal bwrap reports, or the tool's own words. */
const LIMIT_SIGNS: ReadonlyArray<{
  readonly limit: keyof ScannerLimits;
  readonly exitCode?: number;
  readonly stderr?: RegExp;
}> = [
  { limit: 'cpuSeconds', exitCode: SIGXCPU_EXIT },
  { limit: 'fileSizeMb', exitCode: SIGXFSZ_EXIT },
  // Python and Node ignore SIGXFSZ: the write fails with EFBIG instead.
  { limit: 'fileSizeMb', stderr: /File too large|\[Errno 27\]|EFBIG/ },
  {
    limit: 'memoryMb',
    stderr: /MemoryError|Cannot allocate memory|out of memory|Fatal process OOM|std::bad_alloc/i,
  },
  { limit: 'processes', stderr: /Resource temporarily unavailable|can't fork|fork: retry/i },
];

const LIMIT_NAMES: { readonly [K in keyof ScannerLimits]: (limits: ScannerLimits) => string } = {
  cpuSeconds: (l) => `its CPU time limit (${l.cpuSeconds} s, SCANNER_CPU_LIMIT_SECONDS)`,
  fileSizeMb: (l) => `its file size limit (${l.fileSizeMb} MiB, SCANNER_FILE_SIZE_LIMIT_MB)`,
  memoryMb: (l) => `its memory limit (${l.memoryMb} MiB, SCANNER_MEMORY_LIMIT_MB)`,
  processes: (l) => `its process limit (${l.processes}, SCANNER_PROCESS_LIMIT)`,
};

/**
 * The limit a failed sandboxed run hit, as the end of a sentence (`reached its memory limit
 * (4096 MiB, SCANNER_MEMORY_LIMIT_MB)`), or null. Only for runs that failed: a clean exit that
 * merely printed one of these words hit nothing.
 */
export function limitReached(
  limits: ScannerLimits,
  ended: { readonly exitCode: number | null; readonly stderr: string },
): string | null {
  const sign = LIMIT_SIGNS.find(
    (candidate) =>
      (candidate.exitCode !== undefined && candidate.exitCode === ended.exitCode) ||
      candidate.stderr?.test(ended.stderr) === true,
  );
  return sign === undefined ? null : `reached ${LIMIT_NAMES[sign.limit](limits)}`;
}
