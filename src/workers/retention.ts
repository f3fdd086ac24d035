/**
 * Retention (issue 25): every RETENTION_INTERVAL_MS each process asks for the `rampart-retention`
 * session advisory lock (DatabaseHandle.holdsLock: one process of a PostgreSQL database holds it
 * while its lock connection lives; the embedded database's one process always does) and, if it
 * holds it, deletes what is older than its RETENTION_*_DAYS in batches of RETENTION_BATCH_SIZE
 * (adapters/db/retention.repository.ts): scan events, then deliveries with their attempts, then
 * findings of ended scans. The lock is asked again before every batch, so a process that lost it
 * stops after the batch under way. Each batch is counted in `rampart_retention_deleted_rows_total`;
 * failures go to the process's outage log and the next round tries again.
 */
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import type { Database } from '../adapters/db/database.js';
import {
  pruneDeliveries,
  pruneFindings,
  pruneScanEvents,
  type RetentionBatch,
} from '../adapters/db/retention.repository.js';
import type { RetentionConfig } from '../config/load-config.js';
import type { Clock } from '../use-cases/ports/common.js';
import type { RetentionTable, ServiceMetrics } from '../use-cases/ports/metrics.js';
import type { OutageLog } from './outage-log.js';
import { type PeriodicRound, startPeriodicRound } from './periodic-round.js';

export const RETENTION_LOCK = 'rampart-retention';

const DAY_MS = 86_400_000;

type Prune = (db: Kysely<Database>, before: Date, limit: number) => Promise<RetentionBatch>;

export interface RetentionStep {
  readonly what: 'scan events' | 'deliveries' | 'findings';
  /** Rows created (findings: scans ended) before this are deleted. */
  readonly before: Date;
}

/** What a round deletes at `now`: each kind whose days are above 0, with its cutoff. */
export function retentionPlan(config: RetentionConfig, now: Date): RetentionStep[] {
  const steps: [RetentionStep['what'], number][] = [
    ['scan events', config.eventsDays],
    ['deliveries', config.deliveriesDays],
    ['findings', config.findingsDays],
  ];
  return steps
    .filter(([, days]) => days > 0)
    .map(([what, days]) => ({ what, before: new Date(now.getTime() - days * DAY_MS) }));
}

const PRUNERS: Record<RetentionStep['what'], Prune> = {
  'scan events': pruneScanEvents,
  deliveries: pruneDeliveries,
  findings: pruneFindings,
};

/** One round's outcome: whether this process held the lock, and the rows it deleted. */
export interface RetentionRound {
  readonly held: boolean;
  readonly deleted: Readonly<Record<RetentionTable, number>>;
}

export type Retention = PeriodicRound<RetentionRound>;

export function startRetention(deps: {
  readonly database: DatabaseHandle;
  readonly config: RetentionConfig;
  readonly metrics: ServiceMetrics;
  readonly outage: OutageLog;
  readonly clock?: Clock;
}): Retention {
  const { database, config, metrics } = deps;
  const clock = deps.clock ?? { now: () => new Date() };
  return startPeriodicRound({
    async round(stopped) {
      const deleted = emptyRound(true).deleted;
      const plan = retentionPlan(config, clock.now());
      for (const step of plan) {
        for (;;) {
          if (stopped()) {
            return { held: true, deleted };
          }
          if (!(await database.holdsLock(RETENTION_LOCK))) {
            return { held: false, deleted };
          }
          const batch = await PRUNERS[step.what](database.db, step.before, config.batchSize);
          for (const [table, rows] of Object.entries(batch.deleted) as [RetentionTable, number][]) {
            if (rows > 0) {
              deleted[table] += rows;
              metrics.rowsPruned(table, rows);
            }
          }
          if (!batch.more) {
            break;
          }
        }
      }
      return { held: true, deleted };
    },
    initial: emptyRound(false),
    intervalMs: config.intervalMs,
    enabled: retentionPlan(config, new Date()).length > 0,
    outage: deps.outage,
    what: 'deleting old rows (retention)',
    component: 'retention',
    // Not holding the lock says nothing about the database (holdsLock answers false while it is
    // away too): only a round that ran its deletes ends an outage.
    answered: (done) => done.held,
  });
}

function emptyRound(held: boolean): { held: boolean; deleted: Record<RetentionTable, number> } {
  return {
    held,
    deleted: { scan_events: 0, webhook_deliveries: 0, webhook_attempts: 0, findings: 0 },
  };
}
