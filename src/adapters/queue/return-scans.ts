/**
 * A stopping worker hands back the scans it could not finish within its grace period: they go
 * back to the queue without counting the attempt (a clean shutdown is not a lost worker), and the
 * other workers are woken.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { QUEUE_CHANNEL } from '../db/scan-rows.js';
import { moveCtes } from './scan-moves.js';

const RETURN_SQL = `with ${moveCtes('returned', 'requeue', {
  set: [
    'attempts = greatest(scans.attempts - 1, 0)',
    'lease_owner = null',
    'lease_expires_at = null',
    'progress = 0',
  ],
  where: ['scans.id = any($1::uuid[])', 'scans.lease_owner = $2::text'],
  returns: 'event',
})}
  select (select count(*) from returned)::integer as returned,
    (select pg_notify('${QUEUE_CHANNEL}', '') where exists (select 1 from returned))
      as notified`;

export async function returnScans(
  db: Kysely<Database>,
  workerId: string,
  scanIds: readonly string[],
): Promise<number> {
  if (scanIds.length === 0) {
    return 0;
  }
  const result = await db.executeQuery<{ returned: number }>(
    CompiledQuery.raw(RETURN_SQL, [[...scanIds], workerId]),
  );
  return result.rows[0]?.returned ?? 0;
}
