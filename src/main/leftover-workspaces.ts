/**
 * At a worker start: the scan workspaces that worker processes killed earlier left behind (kill -9,
 * the OOM killer, a crash) are removed, and whatever still ran in them is killed; a live
 * process's workspaces, another worker's on this machine included, are never touched
 * (adapters/process/workspace-owners.ts). A directory that cannot be removed is logged and
 * tried again at the next start; a workspace root that is not private to this user stops the
 * start, since every scan would need it.
 */
import type { Logger } from 'pino';
import { removeLeftoverWorkspaces } from '../adapters/process/workspace-owners.js';

export async function removeLeftoverScanWorkspaces(logger: Logger): Promise<void> {
  const { removed, killed, failed } = await removeLeftoverWorkspaces();
  if (removed.length > 0) {
    logger.info(
      { removed, killedProcesses: killed },
      `removed the scan workspaces of ${removed.length} worker process(es) that are gone`,
    );
  }
  for (const { dir, error } of failed) {
    logger.warn({ dir, error }, 'could not remove the scan workspaces of a worker that is gone');
  }
}
