/**
 * Scan rows to domain records, and the queue's notification channels. Status writes live in
 * adapters/queue/scan-moves.ts.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { FindingsSummary } from '../../domain/findings/finding.js';
import type { Priority } from '../../domain/scans/priority.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { TargetType } from '../../domain/targets/target.js';
import type { Database, ScanRow } from './database.js';

export type Db = Kysely<Database> | Transaction<Database>;

/** Every column but the callback secret, which only the creation answer and the signer read. */
export const SCAN_COLUMNS = [
  'id',
  'tenant_id',
  'api_key_id',
  'scan_type',
  'name',
  'target',
  'target_type',
  'priority',
  'status',
  'progress',
  'tags',
  'options',
  'config',
  'timeout_seconds',
  'asset_id',
  'callback_url',
  'template_id',
  'parent_scan_id',
  'trace_context',
  'result_count',
  'findings_summary',
  'risk_score',
  'error_code',
  'error_message',
  'attempts',
  'created_at',
  'started_at',
  'completed_at',
  'findings_pruned_at',
] as const;

export type ScanColumnsRow = Pick<ScanRow, (typeof SCAN_COLUMNS)[number]>;

/** A json/jsonb column's value: PGlite and pg hand it over parsed, or as text in some paths. */
export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function toScanRecord(row: ScanColumnsRow): ScanRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    apiKeyId: row.api_key_id,
    scanType: row.scan_type,
    name: row.name,
    target: row.target,
    targetType: row.target_type as TargetType,
    priority: row.priority as Priority,
    status: row.status,
    progress: row.progress,
    tags: row.tags,
    options: json<Record<string, unknown>>(row.options),
    config: json<Record<string, unknown>>(row.config),
    timeoutSeconds: row.timeout_seconds,
    assetId: row.asset_id,
    callbackUrl: row.callback_url,
    templateId: row.template_id,
    parentScanId: row.parent_scan_id,
    traceContext: row.trace_context,
    resultCount: row.result_count,
    findingsSummary: json<FindingsSummary>(row.findings_summary),
    riskScore: row.risk_score,
    error:
      row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    attempts: row.attempts,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    findingsPrunedAt: row.findings_pruned_at ?? null,
  };
}

/** The channel workers LISTEN on for new or requeued work. */
export const QUEUE_CHANNEL = 'rampart_scan_queued';
/** The channel that carries the id of a cancelled scan to whichever worker runs it. */
export const CANCEL_CHANNEL = 'rampart_scan_cancelled';

/** NOTIFY inside the transaction: delivered when (and only if) it commits. */
export async function notify(trx: Db, channel: string, payload = ''): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
}
