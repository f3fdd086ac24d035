/**
 * Takes the deliveries whose next attempt is due, for one dispatcher: FOR UPDATE SKIP LOCKED, and
 * the attempt counted and leased at once by pushing `next_attempt_at` past the attempt's deadline,
 * so no other dispatcher sends the same attempt; a dispatcher that dies mid-attempt leaves it to be
 * tried again when the lease ends. Deliveries of a disabled webhook are not taken. The destination
 * (URL and secret) is read in the same statement: a webhook's current URL, a scan's callback.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.js';

export interface ClaimedDelivery {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: 'webhook' | 'callback';
  readonly webhookId: string | null;
  readonly event: string;
  readonly eventTimestamp: string;
  readonly body: string;
  /** The number of this attempt (1..4). */
  readonly attempt: number;
  readonly url: string;
  readonly secret: string;
}

interface Row {
  id: string;
  tenant_id: string;
  kind: 'webhook' | 'callback';
  webhook_id: string | null;
  event: string;
  event_timestamp: string;
  body: string;
  attempts: number;
  url: string | null;
  secret: string | null;
}

/** The deliveries due now: pending, their time come, their webhook (if any) active. */
const DUE_DELIVERIES = sql`select d.id from webhook_deliveries d
      left join webhooks w on w.id = d.webhook_id
      where d.status = 'pending' and d.next_attempt_at <= now()
        and (d.kind <> 'webhook' or w.is_active)`;

/** Whether an event waits to be fanned out or a delivery is due now (a dispatcher's drain). */
export async function hasDueWork(db: Kysely<Database>): Promise<boolean> {
  const result = await sql<{ due: boolean }>`select
    exists (select 1 from scan_events where dispatched_at is null)
    or exists (${DUE_DELIVERIES}) as due`.execute(db);
  return result.rows[0]?.due === true;
}

export async function claimDeliveries(
  db: Kysely<Database>,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) {
    return [];
  }
  const result = await sql<Row>`
    with due as (
      ${DUE_DELIVERIES}
      order by d.next_attempt_at
      limit ${limit}
      for update of d skip locked
    ),
    claimed as (
      update webhook_deliveries d
      set attempts = d.attempts + 1,
          next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
      from due
      where d.id = due.id
      returning d.id, d.tenant_id, d.kind, d.webhook_id, d.scan_id, d.event, d.event_timestamp,
                d.body, d.attempts
    )
    select claimed.id, claimed.tenant_id, claimed.kind, claimed.webhook_id, claimed.event,
           claimed.event_timestamp, claimed.body, claimed.attempts,
           coalesce(w.url, s.callback_url) as url, coalesce(w.secret, s.callback_secret) as secret
    from claimed
    left join webhooks w on w.id = claimed.webhook_id
    left join scans s on s.id = claimed.scan_id and claimed.kind = 'callback'`.execute(db);
  return result.rows
    .filter((row) => row.url !== null && row.secret !== null)
    .map((row) => ({
      id: row.id,
      tenantId: row.tenant_id,
      kind: row.kind,
      webhookId: row.webhook_id,
      event: row.event,
      eventTimestamp: row.event_timestamp,
      body: row.body,
      attempt: row.attempts,
      url: row.url ?? '',
      secret: row.secret ?? '',
    }));
}
