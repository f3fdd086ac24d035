/**
 * The sandbox command line (pure): what is bound where, which capability the tool keeps, the
 * limits; and how a run's end tells which limit it hit. The real thing runs in
 * test/e2e/scanner-sandbox.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { limitReached, type Sandbox, sandboxCommand } from './sandbox.js';

const SANDBOX: Sandbox = {
  uid: 999,
  gid: 995,
  limits: { memoryMb: 4096, processes: 512, fileSizeMb: 2048, cpuSeconds: 7200 },
};
const RUN = {
  binaryPath: '/usr/bin/nmap',
  argv: ['-sT', '--', '10.0.0.5'],
  workDir: '/tmp/rampart-nmap-abc123',
  rawSockets: false,
};

/** The values of every occurrence of `flag` followed by `count` values. */
function valuesOf(argv: readonly string[], flag: string, count = 2): string[][] {
  return argv.flatMap((arg, i) => (arg === flag ? [argv.slice(i + 1, i + 1 + count)] : []));
}

describe('sandboxCommand', () => {
  it('runs bwrap, then setpriv to the scanner user, then prlimit, then the tool and its argv', () => {
    const { binary, argv } = sandboxCommand(SANDBOX, RUN);
    expect(binary).toBe('bwrap');
    expect(argv.slice(-4)).toEqual(['/usr/bin/nmap', '-sT', '--', '10.0.0.5']);
    expect(argv).toEqual(
      expect.arrayContaining([
        '--unshare-pid',
        '--unshare-ipc',
        '--unshare-uts',
        '--die-with-parent',
      ]),
    );
    // The group signals of the runner must reach the tool: no session of its own.
    expect(argv).not.toContain('--new-session');
    const setpriv = argv.slice(argv.indexOf('setpriv'), argv.indexOf('prlimit'));
    expect(setpriv).toEqual([
      'setpriv',
      '--reuid=999',
      '--regid=995',
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--no-new-privs',
      '--',
    ]);
    expect(argv.slice(argv.indexOf('prlimit'), -5)).toEqual([
      'prlimit',
      `--as=${4096 * 1024 * 1024}`,
      '--nproc=512',
      `--fsize=${2048 * 1024 * 1024}`,
      '--cpu=7200:7210',
    ]);
  });

  it('shows /usr and a few /etc entries read-only, the workspace writable, nothing of the rest', () => {
    const { argv } = sandboxCommand(SANDBOX, RUN);
    expect(valuesOf(argv, '--ro-bind')).toEqual([['/usr', '/usr']]);
    const etc = valuesOf(argv, '--ro-bind-try').map(([source]) => source);
    expect(etc).toEqual(expect.arrayContaining(['/etc/resolv.conf', '/etc/hosts', '/etc/ssl']));
    expect(etc.every((path) => path?.startsWith('/etc/'))).toBe(true);
    expect(etc).not.toContain('/etc/shadow');
    expect(valuesOf(argv, '--bind')).toEqual([[RUN.workDir, RUN.workDir]]);
    expect(valuesOf(argv, '--chdir', 1)).toEqual([[RUN.workDir]]);
    expect(valuesOf(argv, '--proc', 1)).toEqual([['/proc']]);
    expect(valuesOf(argv, '--tmpfs', 1)).toEqual([['/tmp'], ['/dev/shm']]);
  });

  it('binds a tool outside /usr (a tool under /opt) read-only, and makes its parents walkable', () => {
    const { argv } = sandboxCommand(
      { ...SANDBOX, readOnlyPaths: ['/srv/fixtures/a.json'], writablePaths: ['/srv/log'] },
      { ...RUN, binaryPath: '/opt/zaproxy/zap.sh', workDir: '/var/tmp/scans/rampart-zap-x' },
    );
    expect(valuesOf(argv, '--ro-bind')).toEqual([
      ['/usr', '/usr'],
      ['/srv/fixtures/a.json', '/srv/fixtures/a.json'],
      ['/opt/zaproxy', '/opt/zaproxy'],
    ]);
    expect(valuesOf(argv, '--bind')).toEqual([
      ['/srv/log', '/srv/log'],
      ['/var/tmp/scans/rampart-zap-x', '/var/tmp/scans/rampart-zap-x'],
    ]);
    // bwrap would make them 0700 root; the scanner user must walk through to its workspace.
    const made = valuesOf(argv, '--perms', 3).filter(([, action]) => action === '--dir');
    expect(made.map(([, , dir]) => dir)).toEqual([
      '/etc',
      '/srv',
      '/opt',
      '/var',
      '/srv/fixtures',
      '/var/tmp',
      '/var/tmp/scans',
    ]);
  });

  it('shows a file of its own in place of an /etc entry, bound after that entry', () => {
    const { argv } = sandboxCommand(
      { ...SANDBOX, readOnlyBinds: [['/tmp/test-x/hosts', '/etc/hosts']] },
      RUN,
    );
    expect(valuesOf(argv, '--ro-bind')).toEqual([
      ['/usr', '/usr'],
      ['/tmp/test-x/hosts', '/etc/hosts'],
    ]);
    // The later mount hides the earlier one: the real /etc/hosts is bound first.
    const real = argv.findIndex(
      (arg, i) => arg === '/etc/hosts' && argv[i - 2] === '--ro-bind-try',
    );
    const own = argv.indexOf('/tmp/test-x/hosts');
    expect(real).toBeGreaterThan(0);
    expect(own).toBeGreaterThan(real);
    expect(own).toBeLessThan(argv.indexOf('--'));
  });

  it('gives CAP_NET_RAW, and no other capability, when the run needs raw sockets', () => {
    const { argv } = sandboxCommand(SANDBOX, { ...RUN, rawSockets: true });
    expect(argv.slice(argv.indexOf('setpriv'), argv.indexOf('prlimit'))).toEqual([
      'setpriv',
      '--reuid=999',
      '--regid=995',
      '--clear-groups',
      '--inh-caps=-all,+net_raw',
      '--ambient-caps=+net_raw',
      '--bounding-set=-all,+net_raw',
      '--no-new-privs',
      '--',
    ]);
  });
});

describe('limitReached', () => {
  const limits = SANDBOX.limits;
  it.each([
    [152, '', 'reached its CPU time limit (7200 s, SCANNER_CPU_LIMIT_SECONDS)'],
    [153, '', 'reached its file size limit (2048 MiB, SCANNER_FILE_SIZE_LIMIT_MB)'],
    [
      1,
      'OSError: [Errno 27] File too large',
      'reached its file size limit (2048 MiB, SCANNER_FILE_SIZE_LIMIT_MB)',
    ],
    [1, 'Traceback …\nMemoryError', 'reached its memory limit (4096 MiB, SCANNER_MEMORY_LIMIT_MB)'],
    [
      133,
      '# Fatal process OOM in Failed to reserve virtual memory',
      'reached its memory limit (4096 MiB, SCANNER_MEMORY_LIMIT_MB)',
    ],
    [
      1,
      'BlockingIOError: [Errno 11] Resource temporarily unavailable',
      'reached its process limit (512, SCANNER_PROCESS_LIMIT)',
    ],
  ])('reads exit code %s with %j as a limit', (exitCode, stderr, expected) => {
    expect(limitReached(limits, { exitCode, stderr })).toBe(expected);
  });

  it('sees no limit in an ordinary failure', () => {
    expect(limitReached(limits, { exitCode: 1, stderr: 'connection refused' })).toBeNull();
    expect(limitReached(limits, { exitCode: null, stderr: '' })).toBeNull();
  });
});
