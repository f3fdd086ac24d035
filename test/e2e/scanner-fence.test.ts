/**
 * The scanner sandbox and its egress rules keep real scanners off refused addresses (issue 18,
 * "Done when"), through the API, a real worker, the real sandbox and the real kernel rules (no
 * engine runners given, so the app decides the sandbox and loads the rules as the service does),
 * with ALLOW_PRIVATE_TARGETS=127.0.0.2/32:
 *
 * - sqlmap and wapiti scan the vulnerable test app on 127.0.0.2, whose pages link, redirect and
 *   refresh to a second server on 127.0.0.1 (the service's own address, refused): both complete
 *   with their findings, and that server records no connection, while this process, following
 *   the same redirect, does reach it;
 * - a name the worker resolves to 127.0.0.2 (its resolver, a test lookup) and the tool to
 *   127.0.0.1 (a hosts file of this test shown as the sandbox's /etc/hosts): sqlmap's connection
 *   is refused, and neither address records one.
 *
 * Runs as root (CI does), with SCANNER_SANDBOX=required so a machine without the sandbox or the
 * rules fails instead of testing less. The rules live in a table of this file's own; they judge
 * every scanner process of the machine while loaded, and 127.0.0.2, where the other test files'
 * scanners go, stays allowed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResolvedTarget } from '../../src/adapters/dns/resolve-target.js';
import { useTestApp } from '../support/harness.js';
import { TEST_SANDBOX } from '../support/sandbox.js';
import { createScan, waitUntilEnded } from '../support/scans.js';
import { startVulnerableApp, type VulnerableApp } from '../support/vulnerable-app.js';
import { createPollingKey } from '../support/web-scan.js';

const isRoot = process.getuid?.() === 0;
const TABLE = `rampart_fence_${process.pid}`;
const ENV = {
  WORKERS: '1',
  WORKER_CONCURRENCY: '1',
  ALLOW_PRIVATE_TARGETS: '127.0.0.2/32',
  WORKER_SHUTDOWN_GRACE_MS: '100',
  SCANNER_SANDBOX: 'required',
  SCANNER_EGRESS_TABLE: TABLE,
};

/** A server that counts every TCP connection it accepts and answers each with a tiny page. */
interface CountingServer {
  readonly server: Server;
  readonly connections: number;
  close(): Promise<void>;
}

function countingServer(): CountingServer {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {
      // a client may reset the connection; it came, which is what counts
    });
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno');
  });
  return {
    server,
    get connections() {
      return connections;
    },
    close() {
      for (const socket of sockets) {
        socket.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function listen(server: Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

/** The rules of this file's table as nft lists them, or null when the table does not exist. */
function tableText(): string | null {
  const out = spawnSync('nft', ['list', 'table', 'inet', TABLE], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout : null;
}

describe.runIf(isRoot)('scanners in the sandbox, behind the egress rules (root)', () => {
  describe('a site that sends its visitors to the service’s own address', () => {
    const ctx = useTestApp(ENV);
    const elsewhere = countingServer();
    let vulnerable: VulnerableApp;
    let key = '';
    beforeAll(async () => {
      const port = await listen(elsewhere.server, '127.0.0.1');
      vulnerable = await startVulnerableApp({ elsewhere: `http://127.0.0.1:${port}` });
      key = await createPollingKey(ctx.app);
    });
    afterAll(async () => {
      await vulnerable?.close();
      await elsewhere.close();
    });

    async function findings(id: string): Promise<Array<Record<string, unknown>>> {
      const response = await ctx.app.request(`/api/v1/scans/${id}/findings`, {
        headers: { 'x-api-key': key },
      });
      expect(response.status, response.text).toBe(200);
      return response.body.data.findings;
    }

    it('the worker holds the egress rules: 127.0.0.2 allowed, the scanner user judged', () => {
      const rules = tableText();
      expect(rules).not.toBeNull();
      expect(rules).toContain('127.0.0.2');
      expect(rules).toContain(`skuid ${TEST_SANDBOX?.uid}`);
    });

    it('sqlmap completes with its finding, and 127.0.0.1 records no connection', async () => {
      const target = `${vulnerable.url}search?q=apple`;
      const { id } = await createScan(ctx.app, key, {
        target,
        scanType: 'sqlmap',
        options: { technique: 'BEU' },
      });
      const scan = await waitUntilEnded(ctx.app, key, id, 90_000);
      expect(scan.error).toBeUndefined();
      expect(scan).toMatchObject({ status: 'completed', progress: 100, resultCount: 1 });
      const [finding, ...others] = await findings(id);
      expect(others).toEqual([]);
      expect(finding).toMatchObject({
        engine: 'sqlmap',
        ruleId: 'sql-injection:GET:q',
        // One severity per weakness (weakness-severity.ts): SQL injection is critical.
        severity: 'critical',
        category: 'sql-injection',
        location: {
          host: '127.0.0.2',
          port: Number(new URL(vulnerable.url).port),
          protocol: 'tcp',
          url: target,
        },
        identifiers: { cve: [], cwe: ['CWE-89'] },
      });
      expect(finding?.evidence).toContain('back-end DBMS: PostgreSQL');
      expect(elsewhere.connections).toBe(0);
    }, 120_000);

    it('wapiti completes with its findings, and 127.0.0.1 records no connection', async () => {
      const { id } = await createScan(ctx.app, key, {
        target: vulnerable.url,
        scanType: 'wapiti',
        options: { modules: ['xss', 'sql'], maxDepth: 2 },
      });
      const scan = await waitUntilEnded(ctx.app, key, id, 90_000);
      expect(scan.error).toBeUndefined();
      expect(scan).toMatchObject({ status: 'completed', progress: 100 });
      const port = Number(new URL(vulnerable.url).port);
      const found = await findings(id);
      // Categories and severities of the weakness table (weakness-severity.ts), as sqlmap's.
      const vulnerabilities = found.filter((finding) =>
        ['sql-injection', 'xss'].includes(String(finding.category)),
      );
      expect(vulnerabilities.map((finding) => finding.ruleId).sort()).toEqual([
        'cross-site-scripting:GET:name',
        'sql-injection:GET:q',
      ]);
      expect(found.find((finding) => finding.ruleId === 'sql-injection:GET:q')).toMatchObject({
        engine: 'wapiti',
        severity: 'critical',
        category: 'sql-injection',
        location: { host: '127.0.0.2', port, url: `${vulnerable.url}search` },
      });
      expect(found.find((f) => f.ruleId === 'cross-site-scripting:GET:name')).toMatchObject({
        engine: 'wapiti',
        severity: 'high',
        toolSeverity: '2',
        category: 'xss',
        location: { host: '127.0.0.2', port, url: `${vulnerable.url}hello` },
      });
      expect(elsewhere.connections).toBe(0);
    }, 120_000);

    it('the same redirects, followed by this process (root), do reach 127.0.0.1', async () => {
      // So 127.0.0.1 listens, and the app does send visitors there: only the sandbox's rules and
      // the tools' own restraint kept the scanners away.
      const away = await fetch(`${vulnerable.url}away?id=1`, { redirect: 'follow' });
      expect(await away.text()).toBe('no');
      const search = await fetch(`${vulnerable.url}search?q=nothing`, { redirect: 'follow' });
      expect(search.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/search\?q=nothing$/);
      expect(elsewhere.connections).toBe(2);
    });
  });

  describe('a name the tool resolves elsewhere than the worker did', () => {
    const hostsDir = mkdtempSync(join(tmpdir(), 'rampart-fence-'));
    const hostsFile = join(hostsDir, 'hosts');
    // Readable by the scanner user; bwrap (root) mounts it, so the directory's 0700 is no bar.
    writeFileSync(hostsFile, '127.0.0.1 localhost\n::1 localhost\n127.0.0.1 rebind.test\n', {
      mode: 0o644,
    });
    const ctx = useTestApp(ENV, {
      // The worker's resolver: rebind.test is 127.0.0.2, which ALLOW_PRIVATE_TARGETS allows.
      resolver: {
        check: (target, allow) =>
          checkResolvedTarget(target, allow, async (host) => {
            if (host === 'rebind.test') {
              return ['127.0.0.2'];
            }
            throw Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' });
          }),
      },
      // The tool's resolver: the sandbox's /etc/hosts says rebind.test is 127.0.0.1 (refused).
      ...(TEST_SANDBOX === null
        ? {}
        : { sandbox: { ...TEST_SANDBOX, readOnlyBinds: [[hostsFile, '/etc/hosts']] as const } }),
    });
    const refused = countingServer();
    const allowed = countingServer();
    let port = 0;
    let key = '';
    beforeAll(async () => {
      port = await listen(refused.server, '127.0.0.1');
      await listen(allowed.server, '127.0.0.2', port);
      key = await createPollingKey(ctx.app);
    });
    afterAll(async () => {
      await refused.close();
      await allowed.close();
      rmSync(hostsDir, { recursive: true, force: true });
    });

    it('sqlmap resolves rebind.test to 127.0.0.1 and never reaches it', async () => {
      expect(tableText()).not.toBeNull();
      const { id } = await createScan(ctx.app, key, {
        target: `http://rebind.test:${port}/search?q=1`,
        scanType: 'sqlmap',
        options: { technique: 'B' },
      });
      const scan = await waitUntilEnded(ctx.app, key, id, 90_000);
      // sqlmap found the name in the test's hosts file (an unknown name ends with "host
      // 'rebind.test' does not exist", another failure) and its connection to 127.0.0.1 was
      // refused by the kernel; it never went to 127.0.0.2, the worker's answer, either.
      expect(scan).toMatchObject({
        status: 'failed',
        error: {
          code: 'ENGINE_ERROR',
          message: 'sqlmap failed: unable to connect to the target URL',
        },
      });
      expect(refused.connections).toBe(0);
      expect(allowed.connections).toBe(0);
    }, 120_000);
  });
});
