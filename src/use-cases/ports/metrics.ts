/**
 * The events the service counts for its Prometheus metrics, as the code that makes them happen
 * reports them. Use cases, workers and queue code call this port; adapters/metrics/ implements it
 * with prom-client, so nothing else imports the metrics library. No label names a tenant.
 */
import type { FindingsSummary } from '../../domain/findings/finding.js';

/** How a scan ended, as `rampart_scans_finished_total` labels it. */
export type ScanOutcome = 'completed' | 'failed' | 'cancelled';

/** Which limit refused a request with 429 RATE_LIMIT_EXCEEDED. */
export type RateLimitKind = 'api_key' | 'tenant_token' | 'auth_failures' | 'webhook_test';

/** The final state of a webhook or callback delivery. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'cancelled';

/** The tables retention deletes old rows from (`rampart_retention_deleted_rows_total`). */
export type RetentionTable = 'scan_events' | 'webhook_deliveries' | 'webhook_attempts' | 'findings';

export const RETENTION_TABLES: readonly RetentionTable[] = [
  'scan_events',
  'webhook_deliveries',
  'webhook_attempts',
  'findings',
];

export interface ServiceMetrics {
  /** A scan row was stored queued (sentinel children each count with their own engine). */
  scanCreated(engine: string, priority: string): void;
  /** A worker started a claimed scan that had waited `queueWaitSeconds` in the queue. */
  scanStarted(engine: string, priority: string, queueWaitSeconds: number): void;
  /** A scan ended; `durationSeconds` is its run in a worker (null: it never ran, e.g. a cancel). */
  scanFinished(
    engine: string,
    priority: string,
    outcome: ScanOutcome,
    durationSeconds: number | null,
  ): void;
  /** Findings a scan's end stored. */
  findingsStored(engine: string, summary: FindingsSummary): void;
  /** Housekeeping took scans from workers that stopped answering: requeued, or failed WORKER_LOST. */
  scansReclaimed(requeued: number, failed: number): void;
  /** One delivery attempt ended (success: the receiver answered 2xx). */
  webhookAttempted(event: string, success: boolean, durationSeconds: number): void;
  /** A delivery reached its final state. */
  webhookDeliveryEnded(event: string, outcome: DeliveryOutcome): void;
  /** A webhook was disabled after consecutive failures. */
  webhookDisabled(): void;
  /** A request was refused with 429 by one of the limits. */
  rateLimited(kind: RateLimitKind): void;
  /** A scan was refused with QUOTA_EXCEEDED. */
  quotaExceeded(): void;
  /** Retention deleted `rows` old rows of `table`. */
  rowsPruned(table: RetentionTable, rows: number): void;
}

/** Counts nothing: for code built without a metrics registry (unit tests, tools). */
export const NO_METRICS: ServiceMetrics = {
  scanCreated: () => undefined,
  scanStarted: () => undefined,
  scanFinished: () => undefined,
  findingsStored: () => undefined,
  scansReclaimed: () => undefined,
  webhookAttempted: () => undefined,
  webhookDeliveryEnded: () => undefined,
  webhookDisabled: () => undefined,
  rateLimited: () => undefined,
  quotaExceeded: () => undefined,
  rowsPruned: () => undefined,
};
