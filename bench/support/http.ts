/** Waiting for a benchmark's spawned server to answer. */
import type { ChildProcess } from 'node:child_process';

/** Resolves once `url` answers 2xx; throws if `child` exits first or after about 60 s. */
export async function waitForHttp(url: string, child: ChildProcess): Promise<void> {
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (let i = 0; i < 300 && !exited; i++) {
    try {
      if ((await fetch(url)).ok) {
        return;
      }
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not come up`);
}
