/**
 * The scanner sandbox for real (bwrap, setpriv, prlimit, the scanner user), through the real
 * process engine runner: a scanner gone bad cannot read the service's secrets, its database, its
 * environment or another scan's workspace, nor write anywhere but its own workspace, while the
 * same attempts without the sandbox (as the root service) succeed; it runs as the scanner user
 * with no capability, or only CAP_NET_RAW when its argv asks for raw sockets; each resource limit
 * ends the scan as an engine error naming the limit; a cancel still ends the whole tree in 2 s.
 * Needs root and the scanner user (CI: `.ci/run`); elsewhere it is skipped, unless
 * SCANNER_SANDBOX=required makes the missing sandbox an error (test/support/sandbox.ts).
 */
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateJwtSecret } from '../../src/adapters/auth-tokens/jwt-secret-file.js';
import { openPglite } from '../../src/adapters/db/connect.js';
import { createProcessEngineRunner } from '../../src/adapters/process/process-engine-runner.js';
import type { Sandbox } from '../../src/adapters/process/sandbox.js';
import { withScanWorkspace } from '../../src/adapters/process/scan-workspace.js';
import type { EngineCommand, ToolEngine } from '../../src/engines/engine.js';
import { nmapEngine } from '../../src/engines/nmap/engine.js';
import type { EngineRunOutput } from '../../src/use-cases/ports/engine-runs.js';
import { engineTarget, fakeScanRecord, liveProcesses } from '../support/engine-runs.js';
import { TEST_SANDBOX } from '../support/sandbox.js';

const PROCESS_DOUBLES = join(dirname(fileURLToPath(import.meta.url)), '../doubles/process');
const TARGET = engineTarget(nmapEngine, '10.0.0.5', 'ip');

/** An engine whose tool is `<binary> <argv>`, its stdout lines handed back as warnings. */
function engineRunning(binary: string, argv: string[], command: Partial<EngineCommand> = {}) {
  const engine: ToolEngine = {
    ...nmapEngine,
    binary,
    command: {
      reportFile: null,
      buildArgv: () => argv,
      parse: (stdout) => ({ findings: [], warnings: stdout.trim().split('\n') }),
      successExitCodes: [0],
      ...command,
    },
  };
  return engine;
}

async function run(
  engine: ToolEngine,
  options: { sandbox: Sandbox | null; privileged?: boolean; signal?: AbortSignal },
): Promise<EngineRunOutput> {
  const runner = createProcessEngineRunner(engine, {
    parentEnv: { PATH: process.env.PATH },
    privileged: options.privileged ?? false,
    sandbox: options.sandbox,
  });
  return runner.run({
    scan: fakeScanRecord(engine, TARGET),
    target: TARGET,
    options: {},
    signal: options.signal ?? new AbortController().signal,
    timeoutMs: 60_000,
    onProgress: () => undefined,
    pin: { address: null, privateTargetsAllowed: false },
  });
}

describe.skipIf(TEST_SANDBOX === null)('the scanner sandbox (bwrap, real)', () => {
  const sandbox = TEST_SANDBOX as Sandbox;
  /** The double's directory is not a system directory: bound read-only, as a test needs it. */
  const withDoubles: Sandbox = { ...sandbox, readOnlyPaths: [PROCESS_DOUBLES] };
  let dataDir = '';

  beforeAll(async () => {
    // A service's DATA_DIR, made world-readable on purpose: only the sandbox stands in the way.
    dataDir = await mkdtemp(join(tmpdir(), 'rampart-sandbox-data-'));
    await loadOrCreateJwtSecret(dataDir);
    const { pglite } = await openPglite(dataDir);
    await pglite.close();
    await chmod(dataDir, 0o755);
    await chmod(join(dataDir, 'jwt-secret'), 0o644);
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the secret, the database, the service environment and other scans out of reach', async () => {
    // Another scan's workspace, owned by the scanner user like the escaping scan's own: the file
    // permissions would let it in, only the sandbox's mount namespace keeps it out.
    await withScanWorkspace(
      'rampart-other-scan',
      async (otherWorkspace) => {
        await writeFile(join(otherWorkspace, 'report.xml'), '<nmaprun/>', { mode: 0o644 });
        const outside = join(tmpdir(), `rampart-escaped-${process.pid}`);
        const attempts = [
          { what: 'read the JWT secret', op: 'read', path: join(dataDir, 'jwt-secret') },
          { what: 'list the database', op: 'list', path: join(dataDir, 'pglite') },
          {
            what: 'read the service environment',
            op: 'read',
            path: `/proc/${process.pid}/environ`,
          },
          { what: 'list another scan', op: 'list', path: otherWorkspace },
          {
            what: "read another scan's report",
            op: 'read',
            path: join(otherWorkspace, 'report.xml'),
          },
          { what: 'write to /tmp', op: 'write', path: outside },
          { what: 'write to DATA_DIR', op: 'write', path: join(dataDir, 'planted') },
          { what: 'write to /usr', op: 'write', path: '/usr/planted' },
          { what: 'write to /etc/hosts', op: 'write', path: '/etc/hosts' },
        ];
        const engine = engineRunning(process.execPath, [
          join(PROCESS_DOUBLES, 'try-escape.js'),
          JSON.stringify(attempts),
        ]);

        const jailed = await run(engine, { sandbox: withDoubles });
        expect(jailed.ending).toBe('completed');
        expect(jailed.warnings).toEqual([
          'read the JWT secret: failed ENOENT',
          'list the database: failed ENOENT',
          'read the service environment: failed ENOENT',
          'list another scan: failed ENOENT',
          "read another scan's report: failed ENOENT",
          'write to /tmp: failed EACCES',
          'write to DATA_DIR: failed ENOENT',
          'write to /usr: failed EROFS',
          'write to /etc/hosts: failed EROFS',
          `uid: ${sandbox.uid}`,
          'capabilities: 0000000000000000',
        ]);
        expect(existsSync(outside)).toBe(false);
        expect(await readdir(dataDir)).not.toContain('planted');

        // The control: the same attempts as the service's own user all succeed (minus /usr and
        // /etc/hosts, which are left alone), so the failures above are the sandbox's doing.
        const free = await run(
          engineRunning(process.execPath, [
            join(PROCESS_DOUBLES, 'try-escape.js'),
            JSON.stringify(attempts.slice(0, 6)),
          ]),
          { sandbox: null },
        );
        await rm(outside, { force: true });
        expect(free.warnings.slice(0, 6)).toEqual(
          attempts.slice(0, 6).map((attempt) => `${attempt.what}: succeeded`),
        );
      },
      undefined,
      { uid: sandbox.uid, gid: sandbox.gid },
    );
  });

  it('gives CAP_NET_RAW only to an argv that asks for raw sockets, and only as root', async () => {
    const asking = (argv: string[]) =>
      engineRunning(process.execPath, [join(PROCESS_DOUBLES, 'try-escape.js'), '[]', ...argv], {
        rawSockets: { needed: (argv) => argv.includes('-sS'), env: {} },
      });
    const raw = await run(asking(['-sS']), { sandbox: withDoubles, privileged: true });
    expect(raw.warnings).toEqual([`uid: ${sandbox.uid}`, 'capabilities: 0000000000002000']);
    const plain = await run(asking(['-sT']), { sandbox: withDoubles, privileged: true });
    expect(plain.warnings).toContain('capabilities: 0000000000000000');
    const unprivileged = await run(asking(['-sS']), { sandbox: withDoubles, privileged: false });
    expect(unprivileged.warnings).toContain('capabilities: 0000000000000000');
  });

  it.each([
    {
      limit: 'CPU time',
      limits: { cpuSeconds: 1 },
      tool: [process.execPath, '-e', 'for (;;) {}'],
      message: 'reached its CPU time limit (1 s, SCANNER_CPU_LIMIT_SECONDS)',
    },
    {
      limit: 'file size',
      limits: { fileSizeMb: 1 },
      tool: [
        process.execPath,
        '-e',
        "require('node:fs').writeFileSync('big', Buffer.alloc(2 * 1024 * 1024))",
      ],
      message: 'reached its file size limit (1 MiB, SCANNER_FILE_SIZE_LIMIT_MB)',
    },
    {
      limit: 'file size (a Python tool, which ignores SIGXFSZ)',
      limits: { fileSizeMb: 1 },
      tool: ['/usr/bin/python3', '-c', "open('big', 'wb').write(b'x' * 2 * 1024 * 1024)"],
      message: 'reached its file size limit (1 MiB, SCANNER_FILE_SIZE_LIMIT_MB)',
    },
    {
      limit: 'memory',
      limits: { memoryMb: 256 },
      tool: ['/usr/bin/python3', '-c', 'x = bytearray(512 * 1024 * 1024)'],
      message: 'reached its memory limit (256 MiB, SCANNER_MEMORY_LIMIT_MB)',
    },
    {
      limit: 'processes',
      limits: { processes: 8 },
      tool: [
        '/usr/bin/python3',
        '-c',
        'import os, time\nfor _ in range(32):\n    if os.fork() == 0:\n        time.sleep(5)\n        os._exit(0)',
      ],
      message: 'reached its process limit (8, SCANNER_PROCESS_LIMIT)',
    },
  ])('ends a scan past its $limit limit as an engine error saying so', async (hit) => {
    const [binary = '', ...argv] = hit.tool;
    const started = performance.now();
    const output = await run(engineRunning(binary, argv), {
      sandbox: { ...sandbox, limits: { ...sandbox.limits, ...hit.limits } },
    });
    expect(output.ending).toBe('engine-error');
    expect(output.message).toBe(`nmap ${hit.message}`);
    // The forked sleepers of the process test went with the scan's group.
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it('a cancel ends the sandboxed tree, a TERM-deaf grandchild included, within 2 s', async () => {
    // The grandchild writes its pid into the workspace (the only writable place) and ignores TERM.
    const engine = engineRunning(process.execPath, [
      join(PROCESS_DOUBLES, 'spawn-grandchild.js'),
      'grandchild.pid',
      'stay-quiet',
    ]);
    const tree = () =>
      liveProcesses((proc) => proc.cmdline().includes('grandchild.pid')).map((proc) => proc.comm);
    const controller = new AbortController();
    const running = run(engine, { sandbox: withDoubles, signal: controller.signal });
    const deadline = Date.now() + 10_000;
    // bwrap, its init, the leader and the grandchild (setpriv and prlimit exec into the next).
    while (tree().filter((comm) => comm === 'node').length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(tree().filter((comm) => comm === 'node')).toHaveLength(2);
    const abortedAt = performance.now();
    controller.abort();
    const output = await running;
    expect(performance.now() - abortedAt).toBeLessThan(2_000);
    expect(output.ending).toBe('cancelled');
    expect(tree()).toEqual([]);
  });
});
