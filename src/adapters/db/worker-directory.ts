/**
 * Which engines a live worker can run, read from the worker registry. The answer is kept for one
 * second: GET /api/v1/engines and every POST /api/v1/scans ask, and a worker appearing or vanishing
 * a second late changes nothing a client can rely on (workers heartbeat every few seconds anyway).
 */
import type { Kysely } from 'kysely';
import type { RunnableEngine, WorkerDirectory } from '../../use-cases/ports/scans.js';
import type { Database } from './database.js';
import { runnableEngines } from './workers.repository.js';

export function createWorkerDirectory(
  db: Kysely<Database>,
  options: { staleAfterMs: number; cacheMs?: number },
): WorkerDirectory & { invalidate(): void } {
  const cacheMs = options.cacheMs ?? 1000;
  let cached: { at: number; engines: Promise<ReadonlyMap<string, RunnableEngine>> } | null = null;
  return {
    runnableEngines() {
      const now = Date.now();
      if (cached === null || now - cached.at > cacheMs) {
        const engines = runnableEngines(db, options.staleAfterMs);
        cached = { at: now, engines };
        engines.catch(() => {
          cached = null;
        });
      }
      return cached.engines;
    },
    invalidate() {
      cached = null;
    },
  };
}
