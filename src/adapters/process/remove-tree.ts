/** Removing a scan workspace, also when a tool left parts of it without write permission. */
import type { Dirent } from 'node:fs';
import { chmod, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `rm -rf`, and if a tool left a directory without write permission (some do for their caches),
 * give the owner (us) write access back and try once more. Symlinks are never followed: `rm`
 * unlinks them, and Dirent.isDirectory() is false for a link.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await makeOwnerWritable(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

async function makeOwnerWritable(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      await makeOwnerWritable(join(dir, entry.name));
    }
  }
}
