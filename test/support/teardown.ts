/**
 * What a test file that spawns processes leaves for its end: the processes, SIGKILLed (one that
 * already ended is no matter), then the clean-ups, the last added first (a database is dropped
 * after what used it). Call teardownAfterAll() once, at the top of the file.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';

export interface Teardown {
  /** SIGKILLs `child` after the file's tests, if it still runs. */
  kill(child: ChildProcess): void;
  /** Runs `cleanup` after the file's tests, once the processes are killed. */
  add(cleanup: () => Promise<unknown> | unknown): void;
}

export function teardownAfterAll(): Teardown {
  const children: ChildProcess[] = [];
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGKILL');
    }
    for (const cleanup of cleanups.reverse()) {
      await cleanup();
    }
  });
  return {
    kill: (child) => {
      children.push(child);
    },
    add: (cleanup) => {
      cleanups.push(cleanup);
    },
  };
}
