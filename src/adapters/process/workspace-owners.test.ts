/**
 * Whose workspaces are whose: owner names, the judgement of an owner from /proc, and the removal
 * of gone owners' directories in a real directory with real processes (a child that ended, one
 * still running in a gone owner's workspace), next to this live process's own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test/support/until.js';
import { parseProcStat } from './process-group.js';
import {
  ownerDirName,
  ownerState,
  ownWorkspaceDir,
  type ProcessOwner,
  parseOwnerDirName,
  removeLeftoverWorkspaces,
  thisProcess,
} from './workspace-owners.js';

const BOOT = '37eede3c';
const HERE: ProcessOwner = {
  pid: 100,
  startTime: '5000',
  pidNamespace: '4026531836',
  bootId: BOOT,
};

/** A /proc/<pid>/stat line of `pid` in `state`, started at `start`. */
function statLine(pid: number, state: string, start: string): string {
  return `${pid} (nmap) ${state} 1 ${pid} ${pid} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 ${start} 0 0`;
}

describe('owner names', () => {
  it('name one process and read back', () => {
    const owner = { ...HERE, pid: 4242, startTime: '1843925' };
    const name = ownerDirName(owner);
    expect(name).toBe(`4242-1843925-4026531836-${BOOT}`);
    expect(parseOwnerDirName(name)).toEqual(owner);
  });

  it.each(['rampart-nmap-abc123', '4242', '4242-1-2-nothex', `4242-1-2-${BOOT}-x`, '..'])(
    'are not read into %s',
    (name) => {
      expect(parseOwnerDirName(name)).toBeNull();
    },
  );
});

describe('ownerState', () => {
  const owner: ProcessOwner = { ...HERE, pid: 4242, startTime: '1843925' };

  it('is running while the pid has the same start time', () => {
    expect(ownerState(owner, HERE, () => statLine(4242, 'S', '1843925'))).toBe('running');
  });

  it.each([
    ['the pid is free', null],
    ['the pid was reused by a later process', statLine(4242, 'S', '1900000')],
    ['the process is a zombie', statLine(4242, 'Z', '1843925')],
  ])('is gone when %s', (_case, stat) => {
    expect(ownerState(owner, HERE, () => stat)).toBe('gone');
  });

  it('is gone when the machine has booted since, whatever runs under that pid now', () => {
    const before = { ...owner, bootId: 'f'.repeat(8) };
    expect(ownerState(before, HERE, () => statLine(4242, 'S', '1843925'))).toBe('gone');
  });

  it('is unknown in another pid namespace, or when /proc does not answer', () => {
    const elsewhere = { ...owner, pidNamespace: '4026532000' };
    expect(ownerState(elsewhere, HERE, () => null)).toBe('unknown');
    expect(
      ownerState(owner, HERE, () => {
        throw new Error('EACCES');
      }),
    ).toBe('unknown');
    expect(ownerState(owner, HERE, () => 'garbage')).toBe('unknown');
  });
});

describe.runIf(process.platform === 'linux')('removeLeftoverWorkspaces', () => {
  let root: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    root = join(await mkdtemp(join(tmpdir(), 'rampart-owners-test-')), 'rampart-0');
  });

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGKILL');
    }
    await rm(join(root, '..'), { recursive: true, force: true });
  });

  /** A child process that has ended, as the owner it was while it ran. */
  async function endedProcess(): Promise<ProcessOwner> {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      stdio: 'ignore',
    });
    children.push(child);
    const pid = child.pid ?? 0;
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    return { ...(thisProcess() as ProcessOwner), pid, startTime: stat?.startTime ?? '' };
  }

  async function workspaceOf(owner: ProcessOwner | string): Promise<string> {
    const name = typeof owner === 'string' ? owner : ownerDirName(owner);
    const dir = join(root, name, 'rampart-nmap-abc123');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'report.xml'), '<nmaprun/>');
    return dir;
  }

  it("removes gone processes' workspaces and keeps the live and the unknown", async () => {
    const here = thisProcess() as ProcessOwner;
    const ownDir = await ownWorkspaceDir(root);
    const live = join(ownDir, 'rampart-nmap-live01');
    await mkdir(live);
    const ended = await workspaceOf(await endedProcess());
    const reused = await workspaceOf({ ...here, startTime: String(Number(here.startTime) - 1) });
    const earlierBoot = await workspaceOf({ ...here, bootId: 'f'.repeat(8) });
    const elsewhere = await workspaceOf({ ...here, pidNamespace: '1' });
    const unrelated = await workspaceOf('not-an-owner');

    const result = await removeLeftoverWorkspaces(root);

    expect([...result.removed].sort()).toEqual(
      [ended, reused, earlierBoot].map((dir) => join(dir, '..')).sort(),
    );
    expect(result.failed).toEqual([]);
    const ownerOf = (workspace: string) => join(workspace, '..').slice(root.length + 1);
    expect((await readdir(root)).sort()).toEqual(
      [ownDir.slice(root.length + 1), ownerOf(elsewhere), ownerOf(unrelated)].sort(),
    );
    expect(await readdir(ownDir)).toEqual(['rampart-nmap-live01']);
  });

  it('kills what still runs in a gone workspace (a scanner that outlived its worker)', async () => {
    const workspace = await workspaceOf(await endedProcess());
    const straggler = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], {
      stdio: 'ignore',
      cwd: workspace,
      env: { PATH: process.env.PATH ?? '', TMPDIR: workspace, HOME: workspace },
    });
    children.push(straggler);
    const exited = new Promise((resolve) =>
      straggler.once('exit', (_code, signal) => resolve(signal)),
    );
    // The environment is readable in /proc once the child has exec'd node.
    await until(
      () => readFileSync(`/proc/${straggler.pid}/environ`, 'utf8'),
      (environ) => environ.includes(`TMPDIR=${workspace}`),
    );

    const result = await removeLeftoverWorkspaces(root);

    expect(result.killed).toEqual([straggler.pid]);
    expect(await exited).toBe('SIGKILL');
    expect(result.removed).toEqual([join(workspace, '..')]);
  });

  it('refuses a root that others may write to', async () => {
    const open = join(root, '..', 'open');
    await mkdir(open, { mode: 0o700 });
    await chmod(open, 0o777);
    await expect(removeLeftoverWorkspaces(open)).rejects.toThrow(
      `the scan workspace directory ${open} is not a private directory of uid ${process.getuid?.()}`,
    );
  });
});
