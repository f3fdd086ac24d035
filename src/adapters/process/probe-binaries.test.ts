/**
 * The probe against tiny executables standing in for scanners (test doubles: shell scripts in a
 * temporary PATH), and once against the real nmap that CI installs from Debian.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../engines/registry.js';
import { probeEngineBinaries } from './probe-binaries.js';

let dir: string;

async function script(name: string, body: string, mode = 0o755) {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, mode);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-probe-'));
  await script('nmap', 'echo "Nmap version 7.93 ( https://nmap.org )"');
  await script('trivy', 'exit 1');
  await script(
    'nuclei',
    `/usr/bin/env > "${join(dir, 'nuclei-env.txt')}"; echo "Nuclei Engine Version: v3.1.0"`,
  );
  await script('wapiti', 'echo "Wapiti 3.0.4"', 0o644);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('probeEngineBinaries', () => {
  it('reports path and version of binaries found on PATH, and absent ones as not installed', async () => {
    const probes = await probeEngineBinaries(
      [ENGINES.nmap, ENGINES.trivy, ENGINES.zap, ENGINES.wapiti, ENGINES.sentinel],
      { pathEnv: dir },
    );
    expect(probes.get('nmap')).toEqual({
      installed: true,
      version: '7.93',
      path: join(dir, 'nmap'),
    });
    expect(probes.get('trivy')).toEqual({
      installed: true,
      version: null,
      path: join(dir, 'trivy'),
    });
    expect(probes.get('zap')).toEqual({ installed: false, version: null, path: null });
    expect(probes.get('wapiti')?.installed).toBe(false);
    expect(probes.get('sentinel')).toEqual({ installed: true, version: null, path: null });
  });

  it('never passes the service environment to the probed binary', async () => {
    process.env.JWT_SECRET = 'must-not-leak';
    try {
      const probes = await probeEngineBinaries([ENGINES.nuclei], { pathEnv: dir });
      expect(probes.get('nuclei')?.version).toBe('3.1.0');
      const seen = await readFile(join(dir, 'nuclei-env.txt'), 'utf8');
      expect(seen).toContain('PATH=');
      expect(seen).not.toContain('must-not-leak');
      expect(seen).not.toContain('JWT_SECRET');
    } finally {
      delete process.env.JWT_SECRET;
    }
  });

  it('finds the real nmap installed from Debian and reads its version', async () => {
    const probes = await probeEngineBinaries([ENGINES.nmap]);
    expect(probes.get('nmap')?.installed).toBe(true);
    expect(probes.get('nmap')?.version).toMatch(/^\d+\.\d+/);
  });
});
