/** The scanner's environment allowlist and its private, self-removing work directory. */
import { constants } from 'node:fs';
import {
  access,
  chmod,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scannerEnvironment, withScanWorkspace } from './scan-workspace.js';
import { ownWorkspaceDir } from './workspace-owners.js';

let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'rampart-workspace-test-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

describe('scannerEnvironment', () => {
  it('keeps only PATH, LANG, LC_ALL and TZ, and points HOME and TMPDIR at the work dir', () => {
    const env = scannerEnvironment(
      {
        PATH: '/opt/scanners/bin:/usr/bin',
        LANG: 'en_GB.UTF-8',
        LC_ALL: 'en_GB.UTF-8',
        TZ: 'Europe/Berlin',
        HOME: '/home/rampart',
        TMPDIR: '/var/tmp',
        DATABASE_URL: 'postgres://user:secret@db/rampart',
        JWT_SECRET: 'secret',
        REDIS_URL: 'redis://:secret@cache',
        AWS_ACCESS_KEY_ID: 'AKIA',
        AWS_SECRET_ACCESS_KEY: 'secret',
        NODE_OPTIONS: '--require /tmp/evil.js',
        LD_PRELOAD: '/tmp/evil.so',
      },
      '/tmp/scan-1',
    );
    expect(env).toEqual({
      PATH: '/opt/scanners/bin:/usr/bin',
      LANG: 'en_GB.UTF-8',
      LC_ALL: 'en_GB.UTF-8',
      TZ: 'Europe/Berlin',
      HOME: '/tmp/scan-1',
      TMPDIR: '/tmp/scan-1',
    });
  });

  it('fills in a standard PATH and C.UTF-8 when they are absent or empty, and no TZ', () => {
    expect(scannerEnvironment({ PATH: '', LANG: undefined }, '/tmp/scan-2')).toEqual({
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      HOME: '/tmp/scan-2',
      TMPDIR: '/tmp/scan-2',
    });
  });

  it('refuses a relative work dir', () => {
    expect(() => scannerEnvironment({}, 'scan-3')).toThrow(TypeError);
  });
});

describe('withScanWorkspace', () => {
  it('gives work a private 0700 directory under the base dir, and removes it afterwards', async () => {
    let seen = '';
    const value = await withScanWorkspace(
      'nmap-01hx',
      async (dir) => {
        seen = dir;
        expect(dirname(dir)).toBe(base);
        expect(basename(dir)).toMatch(/^nmap-01hx-[A-Za-z0-9]{6}$/);
        expect((await stat(dir)).isDirectory()).toBe(true);
        expect((await stat(dir)).mode & 0o777).toBe(0o700);
        await writeFile(join(dir, 'report.xml'), '<nmaprun/>');
        return 42;
      },
      base,
    );
    expect(value).toBe(42);
    expect(await exists(seen)).toBe(false);
  });

  it('removes the directory when work throws, and rethrows that error', async () => {
    let seen = '';
    const failure = new Error('scanner crashed');
    await expect(
      withScanWorkspace(
        'zap',
        async (dir) => {
          seen = dir;
          await mkdir(join(dir, 'nested', 'deeper'), { recursive: true });
          throw failure;
        },
        base,
      ),
    ).rejects.toBe(failure);
    expect(seen).not.toBe('');
    expect(await exists(seen)).toBe(false);
  });

  it("uses this process's directory under <tmpdir>/rampart-<uid> when no base dir is given", async () => {
    let seen = '';
    await withScanWorkspace('trivy', async (dir) => {
      seen = dir;
      expect(dirname(dir)).toBe(await ownWorkspaceDir());
      expect(dirname(dirname(dir))).toBe(join(tmpdir(), `rampart-${process.getuid?.()}`));
      expect(basename(dirname(dir))).toMatch(new RegExp(`^${process.pid}-\\d+-\\d+-[0-9a-f]{8}$`));
    });
    expect(await exists(seen)).toBe(false);
  });

  it("leaves room for a tool's Unix socket in the workspace (sublist3r's multiprocessing)", async () => {
    await withScanWorkspace('sublist3r', async (dir) => {
      // Python's multiprocessing listener in TMPDIR; a socket path has at most 107 bytes.
      const socketPath = join(dir, 'pymp-k2j4h6g8', 'listener-a1b2c3d4');
      expect(Buffer.byteLength(socketPath)).toBeLessThanOrEqual(107);
    });
  });

  it('reduces the prefix to [a-z0-9-], so it cannot steer the path', async () => {
    await withScanWorkspace(
      '../../Etc/Nmap Scan!',
      async (dir) => {
        expect(dirname(dir)).toBe(base);
        expect(basename(dir)).toMatch(/^etc-nmap-scan-[A-Za-z0-9]{6}$/);
      },
      base,
    );
    await withScanWorkspace(
      '../..',
      async (dir) => {
        expect(basename(dir)).toMatch(/^scan-[A-Za-z0-9]{6}$/);
      },
      base,
    );
  });

  it('removes directories a tool left without write permission', async () => {
    let seen = '';
    await withScanWorkspace(
      'cache',
      async (dir) => {
        seen = dir;
        const locked = join(dir, 'locked');
        await mkdir(locked);
        await writeFile(join(locked, 'file'), 'x');
        await chmod(locked, 0o500);
      },
      base,
    );
    expect(await exists(seen)).toBe(false);
  });

  it('deletes a symlink the tool left, never what it points to', async () => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'keep.txt'), 'keep');
    await withScanWorkspace(
      'links',
      async (dir) => {
        await symlink(outside, join(dir, 'link'));
      },
      base,
    );
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
  });
});
