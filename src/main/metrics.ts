/**
 * The metrics of one process (API or `npm run worker`): its own registry, and the queue gauges
 * read from the database by the one process that holds the `rampart-metrics` session advisory
 * lock (every process of a PostgreSQL database asks at each scrape; the first to take it keeps it
 * while its connection lives, then another takes over). With the embedded database the one process
 * reports them.
 */
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { readQueueState } from '../adapters/db/queue-state.js';
import {
  createMetricsRegistry,
  type MetricsRegistry,
} from '../adapters/metrics/service-metrics.js';
import type { Config } from '../config/load-config.js';
import { packageVersion } from '../config/package-version.js';

const QUEUE_REPORTER_LOCK = 'rampart-metrics';

export function processMetrics(database: DatabaseHandle, config: Config): MetricsRegistry {
  return createMetricsRegistry({
    version: packageVersion(),
    queueState: async () =>
      (await database.holdsLock(QUEUE_REPORTER_LOCK))
        ? readQueueState(database.db, config.workerLeaseMs)
        : null,
  });
}
