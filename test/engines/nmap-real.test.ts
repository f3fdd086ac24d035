/**
 * The nmap contract against the real binary (nmap 7.93 from Debian here and in CI): the argv that
 * buildNmapArgv builds is run without a shell against ports this test opens on the loopback
 * interface, and the XML nmap writes goes through parseNmapXml. Never skipped for a missing nmap:
 * a worker without it could not scan either.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanTarget } from '../../src/domain/targets/target.js';
import { buildNmapArgv, NMAP_STATS_INTERVAL } from '../../src/engines/nmap/argv.js';
import { nmapOptionsWithDefaults } from '../../src/engines/nmap/options.js';
import { parseNmapXml } from '../../src/engines/nmap/parse.js';
import { parseNmapProgress } from '../../src/engines/nmap/progress.js';
import { expectValidDraftFinding } from '../support/finding-schema.js';

const run = promisify(execFile);
const NMAP_TIMEOUT_MS = 60_000;
const isRoot = process.getuid?.() === 0;

/** A TCP listener that accepts and drops every connection (nmap only needs the handshake). */
async function listen(host: string): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on('error', () => {
      // nmap resets its probes; a reset socket is expected here, not a failure.
    });
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('listener has no TCP address');
  }
  return { server, port: address.port };
}

async function close(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port that was just free: open a listener, note its port, close it. */
async function closedPort(host: string): Promise<number> {
  const { server, port } = await listen(host);
  await close(server);
  return port;
}

async function canListen(host: string): Promise<boolean> {
  try {
    await close((await listen(host)).server);
    return true;
  } catch {
    return false;
  }
}

function ipTarget(value: string): ScanTarget {
  return { type: 'ip', value, host: value, hostIsAddress: true };
}

// Decided before the tests are collected: a machine without an IPv6 loopback skips that one case.
const ipv6 = await canListen('::1');
let workDir = '';
let open: { server: Server; port: number };

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'rampart-nmap-'));
  open = await listen('127.0.0.2');
});

afterAll(async () => {
  await close(open.server);
  await rm(workDir, { recursive: true, force: true });
});

async function scan(argv: string[]): Promise<string> {
  const { stdout } = await run('nmap', argv, { timeout: NMAP_TIMEOUT_MS, shell: false });
  return stdout;
}

describe('nmap (real binary) with buildNmapArgv and parseNmapXml', {
  timeout: NMAP_TIMEOUT_MS,
}, () => {
  it.each([
    ['connect scan (-sT), unprivileged', false],
    ...(isRoot ? [['SYN scan (-sS), as root', true] as [string, boolean]] : []),
  ])('%s reports the open port and not the closed one', async (name, privileged) => {
    const closed = await closedPort('127.0.0.2');
    const outputFile = join(workDir, `${privileged ? 'syn' : 'connect'}.xml`);
    const options = nmapOptionsWithDefaults({
      ports: `${open.port},${closed}`,
      timing: 'T4',
      serviceDetection: false,
    });
    const argv = buildNmapArgv(options, ipTarget('127.0.0.2'), {
      outputFile,
      privileged,
      pinnedAddress: null,
    });
    expect(argv.slice(-2), name).toEqual(['--', '127.0.0.2']);
    await scan(argv);
    const result = parseNmapXml(await readFile(outputFile, 'utf8'));
    expect(result).toMatchObject({ hostsUp: 1, hostsTotal: 1, complete: true, warnings: [] });
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      ruleId: 'open-port',
      severity: 'info',
      category: 'open-port',
      location: { host: '127.0.0.2', port: open.port, protocol: 'tcp', url: null },
    });
    expectValidDraftFinding(result.findings[0]);
  });

  it.skipIf(!ipv6)('scans an IPv6 literal with -6', async () => {
    const listener = await listen('::1');
    try {
      const outputFile = join(workDir, 'ipv6.xml');
      const options = nmapOptionsWithDefaults({
        ports: String(listener.port),
        timing: 'T4',
        serviceDetection: false,
      });
      const argv = buildNmapArgv(options, ipTarget('::1'), {
        outputFile,
        privileged: false,
        pinnedAddress: null,
      });
      expect(argv).toContain('-6');
      await scan(argv);
      const result = parseNmapXml(await readFile(outputFile, 'utf8'));
      expect(result.findings.map((f) => f.location)).toEqual([
        { host: '::1', port: listener.port, protocol: 'tcp', url: null },
      ]);
    } finally {
      await close(listener.server);
    }
  });

  it('scans a name at the address the worker checked, never resolving the name itself', async () => {
    // The name does not resolve at all: only the pinned address can have been scanned.
    const outputFile = join(workDir, 'pinned.xml');
    const options = nmapOptionsWithDefaults({
      ports: String(open.port),
      timing: 'T4',
      serviceDetection: false,
    });
    const target: ScanTarget = {
      type: 'domain',
      value: 'rampart-test.invalid',
      host: 'rampart-test.invalid',
      hostIsAddress: false,
    };
    const argv = buildNmapArgv(options, target, {
      outputFile,
      privileged: false,
      pinnedAddress: '127.0.0.2',
    });
    expect(argv).toContain('-n');
    await scan(argv);
    const result = parseNmapXml(await readFile(outputFile, 'utf8'));
    expect(result).toMatchObject({ hostsUp: 1, complete: true, warnings: [] });
    expect(result.findings.map((f) => f.location)).toEqual([
      { host: '127.0.0.2', port: open.port, protocol: 'tcp', url: null },
    ]);
  });

  it('runs chosen NSE scripts inside the wrapper, and never a broadcast, dos or external one', async () => {
    const options = (scripts: string[]) =>
      nmapOptionsWithDefaults({
        ports: String(open.port),
        timing: 'T4',
        serviceDetection: false,
        scripts,
      });
    const outputFile = join(workDir, 'scripts.xml');
    const context = { outputFile, privileged: false, pinnedAddress: null };
    // banner (discovery, safe) passes the wrapper and runs against the open port.
    await scan(buildNmapArgv(options(['banner']), ipTarget('127.0.0.2'), context));
    expect(parseNmapXml(await readFile(outputFile, 'utf8'))).toMatchObject({
      hostsUp: 1,
      complete: true,
    });
    // lltd-discovery (broadcast) and ipv6-ra-flood (dos) are left out; with nothing left to run,
    // nmap quits before scanning anything.
    await expect(
      scan(
        buildNmapArgv(options(['lltd-discovery', 'ipv6-ra-flood']), ipTarget('127.0.0.2'), context),
      ),
    ).rejects.toThrow(/did not match a category, filename, or directory/);
  });

  it('prints --stats-every lines that parseNmapProgress reads', async () => {
    // A connect scan of 40,000 closed ports capped at 10,000 probes/s lasts about 4 s; the
    // interval is shortened to 1 s (only here) so the run prints several progress lines.
    const outputFile = join(workDir, 'progress.xml');
    const options = nmapOptionsWithDefaults({
      ports: '1-40000',
      timing: 'T4',
      serviceDetection: false,
    });
    const argv = buildNmapArgv(options, ipTarget('127.0.0.2'), {
      outputFile,
      privileged: false,
      pinnedAddress: null,
    })
      .map((arg) => (arg === NMAP_STATS_INTERVAL ? '1s' : arg))
      .flatMap((arg) => (arg === '--' ? ['--max-rate', '10000', '--'] : [arg]));
    const stdout = await scan(argv);
    const timingLines = stdout.split('\n').filter((line) => line.includes(' Timing: About '));
    expect(timingLines.length).toBeGreaterThan(0);
    const values = timingLines.map(parseNmapProgress);
    // Every real progress line is understood, lands in the port-scan band and never goes back.
    expect(values.every((value) => value !== null && value >= 5 && value <= 60)).toBe(true);
    expect(values).toEqual([...values].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(parseNmapXml(await readFile(outputFile, 'utf8')).complete).toBe(true);
  });
});
