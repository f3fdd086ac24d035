/**
 * What the queue holds now, read for the metrics (adapters/metrics/): queued and running scans by
 * engine and priority with the age of the oldest queued one, live workers by engine, pending
 * webhook and callback deliveries. One short statement each; the metrics cache the answer.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './database.js';

export interface ScanQueueRow {
  readonly engine: string;
  readonly priority: string;
  readonly status: 'queued' | 'running';
  readonly scans: number;
  /** Seconds since the oldest of them was created. */
  readonly oldestAgeSeconds: number;
}

export interface QueueState {
  readonly scans: readonly ScanQueueRow[];
  readonly liveWorkersByEngine: ReadonlyMap<string, number>;
  /** By kind: `webhook` (registered webhooks) or `callback` (a scan's callbackUrl). */
  readonly pendingDeliveriesByKind: ReadonlyMap<string, number>;
}

const SCANS_SQL = `select scan_type as engine, priority, status, count(*)::integer as scans,
    extract(epoch from now() - min(created_at))::float8 as oldest_age_seconds
  from scans where status in ('queued', 'running')
  group by scan_type, priority, status`;

const WORKERS_SQL = `select engine, count(*)::integer as workers
  from workers, unnest(engines) as engine
  where heartbeat_at > now() - $1::integer * interval '1 millisecond'
  group by engine`;

const DELIVERIES_SQL = `select kind, count(*)::integer as pending from webhook_deliveries
  where status = 'pending' group by kind`;

export async function readQueueState(
  db: Kysely<Database>,
  staleAfterMs: number,
): Promise<QueueState> {
  const scans = await db.executeQuery<{
    engine: string;
    priority: string;
    status: 'queued' | 'running';
    scans: number;
    oldest_age_seconds: number;
  }>(CompiledQuery.raw(SCANS_SQL));
  const workers = await db.executeQuery<{ engine: string; workers: number }>(
    CompiledQuery.raw(WORKERS_SQL, [staleAfterMs]),
  );
  const deliveries = await db.executeQuery<{ kind: string; pending: number }>(
    CompiledQuery.raw(DELIVERIES_SQL),
  );
  return {
    scans: scans.rows.map((row) => ({
      engine: row.engine,
      priority: row.priority,
      status: row.status,
      scans: row.scans,
      oldestAgeSeconds: Math.max(0, row.oldest_age_seconds),
    })),
    liveWorkersByEngine: new Map(workers.rows.map((row) => [row.engine, row.workers])),
    pendingDeliveriesByKind: new Map(deliveries.rows.map((row) => [row.kind, row.pending])),
  };
}
