/**
 * Scan rows to domain records, and the one function that writes a scan's status: `moveScan`
 * applies a move of the status machine (its `from` list is the WHERE clause) and records the move's
 * event in the outbox in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type Transaction, type UpdateObject } from 'kysely';
import type { FindingsSummary } from '../../domain/findings/finding.js';
import type { Priority } from '../../domain/scans/priority.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import { buildScanEvent } from '../../domain/scans/scan-event.js';
import { MOVES, type ScanMove, type ScanStatus } from '../../domain/scans/status-machine.js';
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
  'result_count',
  'findings_summary',
  'risk_score',
  'error_code',
  'error_message',
  'attempts',
  'created_at',
  'started_at',
  'completed_at',
] as const;

export type ScanColumnsRow = Pick<ScanRow, (typeof SCAN_COLUMNS)[number]>;

function json<T>(value: unknown): T {
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
    status: row.status as ScanStatus,
    progress: row.progress,
    tags: row.tags,
    options: json<Record<string, unknown>>(row.options),
    config: json<Record<string, unknown>>(row.config),
    timeoutSeconds: row.timeout_seconds,
    assetId: row.asset_id,
    callbackUrl: row.callback_url,
    templateId: row.template_id,
    parentScanId: row.parent_scan_id,
    resultCount: row.result_count,
    findingsSummary: json<FindingsSummary>(row.findings_summary),
    riskScore: row.risk_score,
    error:
      row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    attempts: row.attempts,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  };
}

/** Writes the outbox events of these moved scans (the `scan_events` table). */
export async function recordEvents(trx: Db, move: ScanMove, scans: readonly ScanRecord[]) {
  const event = MOVES[move].event;
  if (event === null || scans.length === 0) {
    return;
  }
  const rows = scans.map((scan) => {
    const at = (move === 'start' ? scan.startedAt : scan.completedAt) ?? scan.createdAt;
    return {
      id: randomUUID(),
      tenant_id: scan.tenantId,
      scan_id: scan.id,
      event,
      payload: JSON.stringify(buildScanEvent(event, scan, at)),
      created_at: at,
    };
  });
  await trx.insertInto('scan_events').values(rows).execute();
}

/** Columns a move sets besides the status (timestamps, error, lease). */
export type MovePatch = Omit<UpdateObject<Database, 'scans'>, 'status' | 'id' | 'tenant_id'>;

/**
 * Applies `move` to one scan when its status allows it, and records the event. Returns the moved
 * scan, or null when the scan is not in a `from` status (or fails `guard`). Call inside a
 * transaction so that status and event commit together.
 */
export async function moveScan(
  trx: Transaction<Database>,
  move: ScanMove,
  id: string,
  patch: MovePatch,
  guard: { tenantId?: string; leaseOwner?: string } = {},
): Promise<ScanRecord | null> {
  const rule = MOVES[move];
  let query = trx
    .updateTable('scans')
    .set({ ...patch, status: rule.to })
    .where('id', '=', id)
    .where('status', 'in', [...rule.from]);
  if (guard.tenantId !== undefined) {
    query = query.where('tenant_id', '=', guard.tenantId);
  }
  if (guard.leaseOwner !== undefined) {
    query = query.where('lease_owner', '=', guard.leaseOwner);
  }
  const row = await query.returning(SCAN_COLUMNS).executeTakeFirst();
  if (row === undefined) {
    return null;
  }
  const scan = toScanRecord(row);
  await recordEvents(trx, move, [scan]);
  return scan;
}

/** The channel workers LISTEN on for new or requeued work. */
export const QUEUE_CHANNEL = 'rampart_scan_queued';
/** The channel that carries the id of a cancelled scan to whichever worker runs it. */
export const CANCEL_CHANNEL = 'rampart_scan_cancelled';

/** NOTIFY inside the transaction: delivered when (and only if) it commits. */
export async function notify(trx: Db, channel: string, payload = ''): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
}
