/**
 * The Prometheus metrics of one process (prom-client), in a registry of its own: nothing goes to
 * prom-client's global registry, so several apps in one process (tests) never share or collide.
 * Names follow Prometheus conventions: one `rampart_` prefix, base units (seconds), `_total`
 * counters, no tenant in any label. The counters and histograms are this process's own events
 * (recorder, the ServiceMetrics port); the queue gauges are read from the database, cached for
 * `queueStateCacheMs`, and reported only by the process that `reportsQueueState` says (one per
 * database: see adapters/db/session-lock.ts), so that a sum over processes counts each scan once.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { SEVERITIES } from '../../domain/findings/finding.js';
import { RETENTION_TABLES, type ServiceMetrics } from '../../use-cases/ports/metrics.js';
import type { QueueState } from '../db/queue-state.js';

export interface MetricsRegistryOptions {
  /** The service's version (package.json), in rampart_build_info. */
  readonly version: string;
  /**
   * The queue's state when this process is the one that reports it, else null (another process
   * does). A failure (the database away) reports nothing this time.
   */
  readonly queueState: () => Promise<QueueState | null>;
  /** How long one reading of the queue's state serves scrapes. */
  readonly queueStateCacheMs?: number;
}

export interface MetricsRegistry {
  /** What the rest of the service records events through. */
  readonly recorder: ServiceMetrics;
  /** One HTTP request answered: `route` is the route's pattern (`unmatched` when none matched). */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** The text exposition format (version 0.0.4). */
  render(): Promise<string>;
  readonly contentType: string;
}

const SCAN_DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];
const QUEUE_WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 3600, 14400, 86400];
const WEBHOOK_ATTEMPT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetricsRegistry(options: MetricsRegistryOptions): MetricsRegistry {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'rampart_' });
  new Gauge({
    name: 'rampart_build_info',
    help: 'Always 1; the labels say which version runs on which Node.js',
    labelNames: ['version', 'node_version'],
    registers,
  }).set({ version: options.version, node_version: process.version }, 1);

  const scansCreated = new Counter({
    name: 'rampart_scans_created_total',
    help: 'Scans stored in the queue (sentinel children count with their own engine)',
    labelNames: ['engine', 'priority'],
    registers,
  });
  const scansFinished = new Counter({
    name: 'rampart_scans_finished_total',
    help: 'Scans that ended: completed or failed by a worker, or cancelled',
    labelNames: ['engine', 'priority', 'outcome'],
    registers,
  });
  const scanDuration = new Histogram({
    name: 'rampart_scan_duration_seconds',
    help: "A scan's run in a worker, from its start to its stored end",
    labelNames: ['engine', 'outcome'],
    buckets: SCAN_DURATION_BUCKETS,
    registers,
  });
  const queueWait = new Histogram({
    name: 'rampart_scan_queue_wait_seconds',
    help: 'How long a scan waited in the queue before a worker started it (first start only)',
    labelNames: ['engine', 'priority'],
    buckets: QUEUE_WAIT_BUCKETS,
    registers,
  });
  const findings = new Counter({
    name: 'rampart_findings_total',
    help: "Findings stored by scans' ends",
    labelNames: ['engine', 'severity'],
    registers,
  });
  const reclaimed = new Counter({
    name: 'rampart_scans_reclaimed_total',
    help: 'Running scans taken from workers that stopped answering: requeued once, then failed (WORKER_LOST)',
    labelNames: ['result'],
    registers,
  });
  const webhookAttempts = new Histogram({
    name: 'rampart_webhook_attempt_duration_seconds',
    help: 'One webhook or callback delivery attempt, from sending to the answer or the error',
    labelNames: ['event', 'outcome'],
    buckets: WEBHOOK_ATTEMPT_BUCKETS,
    registers,
  });
  const deliveries = new Counter({
    name: 'rampart_webhook_deliveries_total',
    help: 'Webhook and callback deliveries that reached their final state',
    labelNames: ['event', 'outcome'],
    registers,
  });
  const webhooksDisabled = new Counter({
    name: 'rampart_webhooks_disabled_total',
    help: 'Webhooks disabled after 10 consecutive failed attempts',
    registers,
  });
  const rateLimited = new Counter({
    name: 'rampart_rate_limit_rejections_total',
    help: 'Requests answered 429 RATE_LIMIT_EXCEEDED, by the limit that refused them',
    labelNames: ['limit'],
    registers,
  });
  const quotaExceeded = new Counter({
    name: 'rampart_quota_rejections_total',
    help: 'Scan creations refused with QUOTA_EXCEEDED',
    registers,
  });
  const httpDuration = new Histogram({
    name: 'rampart_http_request_duration_seconds',
    help: 'HTTP requests, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers,
  });
  const retentionDeleted = new Counter({
    name: 'rampart_retention_deleted_rows_total',
    help: 'Old rows deleted by retention (RETENTION_*), by table',
    labelNames: ['table'],
    registers,
  });
  registerQueueGauges(registers, options);

  // Label values are created on first use; these start at 0 so that rate() sees the first event.
  quotaExceeded.inc(0);
  webhooksDisabled.inc(0);
  for (const limit of ['api_key', 'tenant_token', 'auth_failures', 'webhook_test']) {
    rateLimited.inc({ limit }, 0);
  }
  for (const result of ['requeued', 'failed']) {
    reclaimed.inc({ result }, 0);
  }
  for (const table of RETENTION_TABLES) {
    retentionDeleted.inc({ table }, 0);
  }

  const recorder: ServiceMetrics = {
    scanCreated: (engine, priority) => scansCreated.inc({ engine, priority }),
    scanStarted: (engine, priority, seconds) =>
      queueWait.observe({ engine, priority }, Math.max(0, seconds)),
    scanFinished(engine, priority, outcome, seconds) {
      scansFinished.inc({ engine, priority, outcome });
      if (seconds !== null) {
        scanDuration.observe({ engine, outcome }, Math.max(0, seconds));
      }
    },
    findingsStored(engine, summary) {
      for (const severity of SEVERITIES) {
        if (summary[severity] > 0) {
          findings.inc({ engine, severity }, summary[severity]);
        }
      }
    },
    scansReclaimed(requeued, failed) {
      reclaimed.inc({ result: 'requeued' }, requeued);
      reclaimed.inc({ result: 'failed' }, failed);
    },
    webhookAttempted: (event, success, seconds) =>
      webhookAttempts.observe(
        { event, outcome: success ? 'success' : 'failure' },
        Math.max(0, seconds),
      ),
    webhookDeliveryEnded: (event, outcome) => deliveries.inc({ event, outcome }),
    webhookDisabled: () => webhooksDisabled.inc(),
    rateLimited: (limit) => rateLimited.inc({ limit }),
    quotaExceeded: () => quotaExceeded.inc(),
    rowsPruned: (table, rows) => retentionDeleted.inc({ table }, rows),
  };
  return {
    recorder,
    httpRequest: (method, route, status, seconds) =>
      httpDuration.observe({ method, route, status: String(status) }, seconds),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/** The gauges read from the database (see the file comment); one reading serves them all. */
function registerQueueGauges(registers: Registry[], options: MetricsRegistryOptions): void {
  const cacheMs = options.queueStateCacheMs ?? 5_000;
  let cached: { at: number; state: Promise<QueueState | null> } | null = null;
  const state = (): Promise<QueueState | null> => {
    const now = Date.now();
    if (cached === null || now - cached.at > cacheMs) {
      cached = { at: now, state: options.queueState().catch(() => null) };
    }
    return cached.state;
  };
  new Gauge({
    name: 'rampart_queue_metrics_reporter',
    help: '1 in the one process that reports the queue gauges read from the database, else 0',
    registers,
    async collect() {
      this.set((await state()) === null ? 0 : 1);
    },
  });
  const byStatus = (status: 'queued' | 'running', name: string, help: string) =>
    new Gauge({
      name,
      help,
      labelNames: ['engine', 'priority'],
      registers,
      async collect() {
        const current = await state();
        this.reset();
        for (const row of current?.scans ?? []) {
          if (row.status === status) {
            this.set({ engine: row.engine, priority: row.priority }, row.scans);
          }
        }
      },
    });
  byStatus('queued', 'rampart_scans_queued', 'Scans waiting in the queue now');
  byStatus('running', 'rampart_scans_running', 'Scans that workers are running now');
  new Gauge({
    name: 'rampart_scans_oldest_queued_age_seconds',
    help: 'Age of the oldest scan waiting in the queue, by engine and priority',
    labelNames: ['engine', 'priority'],
    registers,
    async collect() {
      const current = await state();
      this.reset();
      for (const row of current?.scans ?? []) {
        if (row.status === 'queued') {
          this.set({ engine: row.engine, priority: row.priority }, row.oldestAgeSeconds);
        }
      }
    },
  });
  new Gauge({
    name: 'rampart_workers_live',
    help: 'Worker loops whose heartbeat is fresh, by engine they can run',
    labelNames: ['engine'],
    registers,
    async collect() {
      const current = await state();
      this.reset();
      for (const [engine, workers] of current?.liveWorkersByEngine ?? []) {
        this.set({ engine }, workers);
      }
    },
  });
  new Gauge({
    name: 'rampart_webhook_deliveries_pending',
    help: 'Webhook and callback deliveries waiting for an attempt (due now or retries scheduled later), by kind',
    labelNames: ['kind'],
    registers,
    async collect() {
      const current = await state();
      this.reset();
      if (current === null) {
        return;
      }
      for (const kind of ['webhook', 'callback']) {
        this.set({ kind }, current.pendingDeliveriesByKind.get(kind) ?? 0);
      }
    },
  });
}
