/**
 * The scanner user's egress rules in the real kernel (issue 18, "the target policy in the kernel"):
 * processes run as the scanner user with setpriv (curl, node's fetch, nmap -sT, sqlmap following a
 * redirect) cannot reach a refused address while an address ALLOW_PRIVATE_TARGETS lists is reachable, root's traffic is
 * untouched, and the rules live exactly as long as some worker process holds them. Runs as root
 * (CI does); each test file uses its own table and state directory, so parallel runs never meet.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EgressRules, holdEgressRules } from '../../src/adapters/egress/nft-egress.js';
import { createLogger } from '../../src/adapters/http/logger.js';
import { type Config, loadConfig } from '../../src/config/load-config.js';
import { startEgressRules } from '../../src/main/egress.js';
import { scannerSandbox } from '../../src/main/scanner-sandbox.js';

const isRoot = process.getuid?.() === 0;
const PATH = process.env.PATH ?? '';
const SCANNER_USER = 'rampart-scanner';
const table = `rampart_test_${process.pid}`;

function idOf(flag: '-u' | '-g'): number {
  const out = spawnSync('id', [flag, SCANNER_USER], { encoding: 'utf8' });
  if (out.status !== 0) {
    throw new Error(`the scanner user ${SCANNER_USER} is missing (useradd -r ${SCANNER_USER})`);
  }
  return Number(out.stdout.trim());
}

/**
 * Runs a command as the scanner user, as the sandbox does. Asynchronously: the servers it talks to
 * run in this process.
 */
function asScanner(
  command: string,
  args: readonly string[],
): Promise<{ status: number | null; stdout: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      'setpriv',
      [`--reuid=${idOf('-u')}`, `--regid=${idOf('-g')}`, '--clear-groups', command, ...args],
      { env: { PATH, HOME: '/tmp' }, stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on('close', (status) => resolve({ status, stdout, ms: Date.now() - started }));
  });
}

/** What a refused connect reports: ICMP admin-prohibited reads EHOSTUNREACH (IPv4), EACCES (IPv6). */
const REFUSED = /^(EHOSTUNREACH|EACCES)$/;

function tableText(): string | null {
  const out = spawnSync('nft', ['list', 'table', 'inet', table], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout : null;
}

const CONNECT = `require('node:net').connect(Number(process.argv[2]), process.argv[1])
  .on('connect', () => { console.log('connected'); process.exit(0); })
  .on('error', (error) => { console.log(error.code); process.exit(0); });`;

const FETCH = `fetch(process.argv[1]).then((r) => console.log(r.status), (e) => console.log(e.cause?.code ?? e.message));`;

describe.runIf(isRoot)('scanner egress rules (real kernel, root)', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'rampart-egress-'));
  const servers: Array<Server | TcpServer> = [];
  const connections = new Map<string, number>();
  const ports = new Map<string, number>();

  async function listen(host: string, port = 0): Promise<number> {
    const server = createHttpServer((_request, response) => response.end('ok'));
    server.on('connection', () => connections.set(host, (connections.get(host) ?? 0) + 1));
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    servers.push(server);
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  beforeAll(async () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.0.0.3', '::1']) {
      ports.set(host, await listen(host));
    }
    // A resolver stand-in: scanners may reach it on port 53 only.
    const resolver = createTcpServer((socket) => socket.end());
    await new Promise<void>((resolve) => resolver.listen(53, '127.0.0.3', resolve));
    servers.push(resolver);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    spawnSync('nft', ['-f', '-'], {
      input: `table inet ${table} {}\ndelete table inet ${table}\n`,
    });
    rmSync(stateDir, { recursive: true, force: true });
  });

  describe('with ALLOW_PRIVATE_TARGETS=127.0.0.2/32', () => {
    let rules: EgressRules;

    beforeAll(async () => {
      const config = loadConfig({ ALLOW_PRIVATE_TARGETS: '127.0.0.2/32' });
      rules = await holdEgressRules({
        policy: {
          table,
          uid: idOf('-u'),
          allowPrivateTargets: config.allowPrivateTargets,
          ownAddresses: ['127.0.0.1'],
          resolvers: ['127.0.0.3'],
        },
        stateDir,
        pathEnv: PATH,
      });
    });

    afterAll(async () => {
      await rules.release();
    });

    /** The first line a command run as the scanner prints. */
    async function said(command: string, ...args: string[]): Promise<string> {
      return (await asScanner(command, args)).stdout.trim();
    }

    it('refuses curl to 127.0.0.1 at once and lets it reach 127.0.0.2', async () => {
      const url = `http://127.0.0.1:${ports.get('127.0.0.1')}/`;
      const refused = await asScanner('curl', ['-sS', '-o', '/dev/null', '--max-time', '10', url]);
      expect(refused.status).toBe(7); // could not connect
      expect(refused.ms).toBeLessThan(2000);
      const allowed = `http://127.0.0.2:${ports.get('127.0.0.2')}/`;
      expect(await said('curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', allowed)).toBe(
        '200',
      );
      expect(connections.get('127.0.0.1') ?? 0).toBe(0);
    });

    it('refuses node fetch to 127.0.0.1 and to [::1]', async () => {
      expect(
        await said('node', '-e', FETCH, `http://127.0.0.1:${ports.get('127.0.0.1')}/`),
      ).toMatch(REFUSED);
      expect(await said('node', '-e', FETCH, `http://[::1]:${ports.get('::1')}/`)).toMatch(REFUSED);
      expect(await said('node', '-e', FETCH, `http://127.0.0.2:${ports.get('127.0.0.2')}/`)).toBe(
        '200',
      );
      expect(connections.get('127.0.0.1') ?? 0).toBe(0);
      expect(connections.get('::1') ?? 0).toBe(0);
    });

    it('shows the refused port to nmap -sT as filtered and the allowed one as open', async () => {
      const refused = String(ports.get('127.0.0.1'));
      expect(await said('nmap', '-sT', '-Pn', '-n', '-p', refused, '127.0.0.1')).toMatch(
        new RegExp(`${refused}/tcp\\s+filtered`),
      );
      const allowed = String(ports.get('127.0.0.2'));
      expect(await said('nmap', '-sT', '-Pn', '-n', '-p', allowed, '127.0.0.2')).toMatch(
        new RegExp(`${allowed}/tcp\\s+open`),
      );
      expect(connections.get('127.0.0.1') ?? 0).toBe(0);
    });

    it('lets the scanner reach the resolver on port 53 only', async () => {
      expect(await said('node', '-e', CONNECT, '127.0.0.3', '53')).toBe('connected');
      expect(
        await said('node', '-e', CONNECT, '127.0.0.3', String(ports.get('127.0.0.3'))),
      ).toMatch(REFUSED);
      expect(connections.get('127.0.0.3') ?? 0).toBe(0);
    });

    it('keeps real sqlmap, redirected from 127.0.0.2 to 127.0.0.1, off 127.0.0.1', async () => {
      // sqlmap under --batch follows a redirect to any host; the kernel stops it at the socket.
      const target = `http://127.0.0.1:${ports.get('127.0.0.1')}/?id=1`;
      const redirect = createHttpServer((_request, response) => {
        response.writeHead(302, { location: target }).end();
      });
      let redirected = 0;
      redirect.on('connection', () => {
        redirected += 1;
      });
      await new Promise<void>((resolve) => redirect.listen(0, '127.0.0.2', resolve));
      servers.push(redirect);
      const address = redirect.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const home = mkdtempSync(join(tmpdir(), 'rampart-sqlmap-'));
      chownSync(home, idOf('-u'), idOf('-g'));
      const sqlmap = [
        `HOME=${home}`,
        'sqlmap',
        '-u',
        `http://127.0.0.2:${port}/?id=1`,
        '--batch',
        `--output-dir=${home}/out`,
      ];
      try {
        await asScanner('env', sqlmap);
        expect(redirected).toBeGreaterThan(0);
        expect(connections.get('127.0.0.1') ?? 0).toBe(0);
        // The control: the same run as root follows the redirect to 127.0.0.1.
        await new Promise((resolve) => {
          spawn('env', sqlmap, { env: { PATH }, stdio: 'ignore' }).on('close', resolve);
        });
        expect(connections.get('127.0.0.1') ?? 0).toBeGreaterThan(0);
      } finally {
        connections.delete('127.0.0.1');
        rmSync(home, { recursive: true, force: true });
      }
    }, 60_000);

    it("leaves root's traffic untouched", async () => {
      const response = await fetch(`http://127.0.0.1:${ports.get('127.0.0.1')}/`);
      expect(response.status).toBe(200);
      expect((await fetch(`http://[::1]:${ports.get('::1')}/`)).status).toBe(200);
    });
  });

  it('are loaded for a worker under SCANNER_SANDBOX=auto and required, and not under off', async () => {
    // 127.0.0.2 stays allowed: the rules judge every scanner process on the machine, and other
    // test files point theirs at 127.0.0.2 meanwhile.
    const env = {
      PATH,
      SCANNER_EGRESS_TABLE: table,
      ALLOW_PRIVATE_TARGETS: '127.0.0.2/32,10.20.0.0/16',
    };
    const logger = createLogger('silent');
    // As a worker starts: the sandbox decided (and its missing pieces named) first.
    const start = async (config: Config) =>
      startEgressRules(config, await scannerSandbox(config, logger), logger, { stateDir });
    expect(await start(loadConfig({ ...env, SCANNER_SANDBOX: 'off' }))).toBeNull();
    expect(tableText()).toBeNull();
    for (const mode of ['auto', 'required']) {
      const config = loadConfig({ ...env, SCANNER_SANDBOX: mode });
      const rules = await start(config);
      try {
        expect(tableText()).toMatch(/ip daddr [^\n]*10\.20\.0\.0\/16[^\n]* accept/);
      } finally {
        await rules?.release();
      }
      expect(tableText()).toBeNull();
    }
    const withoutUser = { ...env, SCANNER_USER: 'rampart-none' };
    const auto = loadConfig({ ...withoutUser, SCANNER_SANDBOX: 'auto' });
    expect(await start(auto)).toBeNull();
    expect(tableText()).toBeNull();
    const missingUser = loadConfig({ ...withoutUser, SCANNER_SANDBOX: 'required' });
    await expect(start(missingUser)).rejects.toThrow(/scanner user rampart-none/);
  });

  describe('holders across worker processes', () => {
    const holders: ChildProcess[] = [];

    function startHolder(): Promise<ChildProcess> {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', new URL('../support/egress-holder.ts', import.meta.url).pathname],
        {
          env: {
            PATH,
            RAMPART_TEST_EGRESS_TABLE: table,
            RAMPART_TEST_EGRESS_STATE: stateDir,
            RAMPART_TEST_EGRESS_UID: String(idOf('-u')),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      holders.push(child);
      return new Promise((resolve, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) {
            resolve(child);
          }
        });
        child.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
      });
    }

    function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill(signal);
      });
    }

    afterAll(() => {
      for (const child of holders) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
        }
      }
    });

    it('keeps the rules while any worker process holds them and removes them after the last', async () => {
      const first = await startHolder();
      const second = await startHolder();
      expect(tableText()).toContain(`meta skuid ${idOf('-u')} jump scanner`);
      await stop(first, 'SIGTERM');
      // The second worker's rules still stand and still refuse.
      expect(tableText()).toContain('reject with icmpx admin-prohibited');
      const refused = await asScanner('curl', [
        '-sS',
        '-o',
        '/dev/null',
        `http://127.0.0.1:${ports.get('127.0.0.1')}/`,
      ]);
      expect(refused.status).toBe(7);
      await stop(second, 'SIGTERM');
      expect(tableText()).toBeNull();
    });

    it("ignores a crashed worker's holder: the last live one still removes the table", async () => {
      const crashing = await startHolder();
      const survivor = await startHolder();
      await stop(crashing, 'SIGKILL');
      expect(tableText()).not.toBeNull();
      await stop(survivor, 'SIGTERM');
      expect(tableText()).toBeNull();
    });

    it('replaces a table a crashed last worker left behind at the next start', async () => {
      await stop(await startHolder(), 'SIGKILL');
      expect(tableText()).not.toBeNull();
      const next = await startHolder();
      expect(tableText()).toContain('jump scanner');
      await stop(next, 'SIGTERM');
      expect(tableText()).toBeNull();
    });
  });
});
