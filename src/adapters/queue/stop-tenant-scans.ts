/**
 * The scan half of the kill switch: when a tenant is suspended, every scan a worker runs for it
 * fails at once with TENANT_SUSPENDED (with its scan.failed event), and the cancel channel tells
 * the workers running them, which abort the processes and store the findings collected so far
 * (finish-scan keeps the status: decideFinish's `keep-ended`). Queued scans stay queued: claims
 * skip suspended tenants (claim-scans.ts) until they are reinstated. A sentinel parent is held by
 * no worker: its children stop, and its lifecycle ends it as it does when its children end.
 *
 * Run it after the tenant's row was set to suspended in the same transaction: that update waits
 * for claims under way for the tenant (they lock its row), so this statement's snapshot holds
 * every scan they started, and later claims see the tenant suspended.
 */
import { CompiledQuery } from 'kysely';
import { SUSPENDED } from '../../domain/scans/status-machine.js';
import type { StoppedScan } from '../../use-cases/ports/tenants.js';
import { CANCEL_CHANNEL, type Db } from '../db/scan-rows.js';
import { moveCtes } from './scan-moves.js';

const STOP_SQL = `with ${moveCtes('stopped', 'fail', {
  set: ['completed_at = now()', 'error_code = $2::text', 'error_message = $3::text'],
  only: ['running'],
  where: ['scans.tenant_id = $1::uuid', 'scans.lease_owner is not null'],
  returns: 'event',
  extra: ['scans.priority'],
})}
  select scan_type, priority, pg_notify('${CANCEL_CHANNEL}', id::text) from stopped`;

/**
 * Fails the tenant's running scans with TENANT_SUSPENDED and tells their workers; the engine and
 * priority of each (for the metrics).
 */
export async function stopTenantScans(db: Db, tenantId: string): Promise<StoppedScan[]> {
  const result = await db.executeQuery<{ scan_type: string; priority: string }>(
    CompiledQuery.raw(STOP_SQL, [tenantId, SUSPENDED.code, SUSPENDED.message]),
  );
  return result.rows.map((row) => ({ engine: row.scan_type, priority: row.priority }));
}
