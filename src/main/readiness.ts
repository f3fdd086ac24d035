/**
 * What /readyz answers for a process: its database can serve (DatabaseHandle.health()), and, when
 * the process runs scan workers, at least one of them can claim. The first reason that fails is
 * the answer's reason.
 */
import type { HealthCheck } from '../adapters/db/database-health.js';
import { HEALTHY } from '../adapters/db/database-health.js';
import type { ScanWorker } from '../workers/scan-worker.js';

/** `workers` is read at each check: an API process starts its workers after its routes. */
export function processReadiness(
  database: { health(): Promise<HealthCheck> },
  workers: () => readonly Pick<ScanWorker, 'readiness'>[],
): () => Promise<HealthCheck> {
  return async () => {
    const health = await database.health();
    if (!health.ok) {
      return health;
    }
    return workersReadiness(workers().map((worker) => worker.readiness()));
  };
}

/** Ready with no workers, or when one of them can claim; otherwise the first one's reason. */
export function workersReadiness(
  states: readonly { readonly ready: boolean; readonly reason: string | null }[],
): HealthCheck {
  if (states.length === 0 || states.some((state) => state.ready)) {
    return HEALTHY;
  }
  const reason = states.find((state) => state.reason !== null)?.reason ?? 'it cannot claim';
  return { ok: false, reason: `no scan worker of this process can claim: ${reason}` };
}
