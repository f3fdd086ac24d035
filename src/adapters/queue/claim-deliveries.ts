/**
 * Takes the deliveries whose next attempt is due, for one dispatcher, in turns over tenants: each
 * tenant's oldest due deliveries, at most `tenantMaxInFlight` of its attempts in flight at once
 * over every dispatcher, the first of every tenant before the second of any (issue 20: a tenant
 * whose receivers are slow or dead holds its own slots, never another's). The attempt is counted
 * and leased at once: `leased_until` marks it in flight, and `next_attempt_at` is pushed past its
 * deadline, so no other dispatcher sends the same attempt and one that dies mid-attempt leaves it
 * to be tried again when the lease ends. FOR UPDATE SKIP LOCKED passes over rows an attempt's
 * record holds. Not taken: deliveries of a disabled webhook, of a suspended tenant (held, with no
 * attempt and no failure counted, until it is reinstated) and test deliveries (sent by the API).
 * The destination (URL and secret) is read in the same statement: a webhook's current URL, a
 * scan's callback.
 *
 * The cap holds across processes because claims are taken one at a time: a transaction-scoped
 * advisory lock (per schema, like migrate.ts) around the claim statement. Without it two
 * dispatchers could each count a tenant's leases before the other's committed and both fill its
 * cap. The statement reads only the tenants with pending deliveries (a skip scan over an index)
 * and at most `tenantMaxInFlight` rows of each, so it stays short however many deliveries one
 * tenant has piled up.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/database.js';

export interface ClaimedDelivery {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: 'webhook' | 'callback';
  readonly webhookId: string | null;
  /** Sent as `webhook-id`: the delivery's own id, or for a redelivery the first delivery's. */
  readonly messageId: string;
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
  message_id: string;
  event: string;
  event_timestamp: string;
  body: string;
  attempts: number;
  url: string | null;
  secret: string | null;
}

/**
 * `claimable (id, next_attempt_at, turn)`: the deliveries a claim may take now. `due_tenants` is a
 * skip scan (one index probe per tenant) over the tenants with a due delivery; for each active
 * one, its oldest due deliveries numbered by turn, as many as its attempts in flight leave room for.
 */
function claimable(tenantMaxInFlight: number) {
  return sql`with recursive due_tenants (tenant_id) as (
      (select d.tenant_id from webhook_deliveries d
        where d.status = 'pending' and d.next_attempt_at <= now()
        order by d.tenant_id limit 1)
      union all
      select (select d.tenant_id from webhook_deliveries d
              where d.status = 'pending' and d.next_attempt_at <= now()
                and d.tenant_id > due_tenants.tenant_id
              order by d.tenant_id limit 1)
      from due_tenants where due_tenants.tenant_id is not null
    ),
    claimable as (
      select p.id, p.next_attempt_at, p.turn
      from due_tenants dt
      join tenants t on t.id = dt.tenant_id and t.status = 'active'
      cross join lateral (
        select count(*)::int as n from webhook_deliveries f
        where f.tenant_id = dt.tenant_id and f.leased_until is not null and f.leased_until > now()
      ) busy
      cross join lateral (
        select d.id, d.next_attempt_at,
               row_number() over (order by d.next_attempt_at)::int as turn
        from webhook_deliveries d
        left join webhooks w on w.id = d.webhook_id
        where d.tenant_id = dt.tenant_id and d.status = 'pending' and d.next_attempt_at <= now()
          and d.kind <> 'test' and (d.kind <> 'webhook' or w.is_active)
        -- The index order, no tie-break: one fan-out gives thousands of rows one next_attempt_at.
        order by d.next_attempt_at
        limit ${tenantMaxInFlight}
      ) p
      where p.turn + busy.n <= ${tenantMaxInFlight}
    )`;
}

/**
 * Whether an event waits to be fanned out or a delivery could be claimed now (a dispatcher's
 * drain): deliveries held by their tenant's cap or suspension do not count.
 */
export async function hasDueWork(
  db: Kysely<Database>,
  tenantMaxInFlight: number,
): Promise<boolean> {
  const result = await sql<{ due: boolean }>`${claimable(tenantMaxInFlight)}
    select exists (select 1 from scan_events where dispatched_at is null)
      or exists (select 1 from claimable) as due`.execute(db);
  return result.rows[0]?.due === true;
}

export async function claimDeliveries(
  db: Kysely<Database>,
  limit: number,
  leaseMs: number,
  tenantMaxInFlight: number,
): Promise<ClaimedDelivery[]> {
  if (limit <= 0) {
    return [];
  }
  const rows = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('rampart-webhook-claim:' || current_schema()))`.execute(
      trx,
    );
    const result = await sql<Row>`${claimable(tenantMaxInFlight)},
      due as (
        select d.id from webhook_deliveries d
        join claimable c on c.id = d.id
        order by c.turn, c.next_attempt_at, c.id
        limit ${limit}
        for update of d skip locked
      ),
      claimed as (
        update webhook_deliveries d
        set attempts = d.attempts + 1,
            next_attempt_at = now() + ${leaseMs} * interval '1 millisecond',
            leased_until = now() + ${leaseMs} * interval '1 millisecond'
        from due
        where d.id = due.id
        returning d.id, d.tenant_id, d.kind, d.webhook_id, d.scan_id, d.event, d.event_timestamp,
                  d.body, d.attempts, coalesce(d.message_id, d.id) as message_id
      )
      select claimed.id, claimed.tenant_id, claimed.kind, claimed.webhook_id, claimed.message_id,
             claimed.event,
             claimed.event_timestamp, claimed.body, claimed.attempts,
             coalesce(w.url, s.callback_url) as url, coalesce(w.secret, s.callback_secret) as secret
      from claimed
      left join webhooks w on w.id = claimed.webhook_id
      left join scans s on s.id = claimed.scan_id and claimed.kind = 'callback'`.execute(trx);
    return result.rows;
  });
  return rows
    .filter((row) => row.url !== null && row.secret !== null)
    .map((row) => ({
      id: row.id,
      tenantId: row.tenant_id,
      kind: row.kind,
      webhookId: row.webhook_id,
      messageId: row.message_id,
      event: row.event,
      eventTimestamp: row.event_timestamp,
      body: row.body,
      attempt: row.attempts,
      url: row.url ?? '',
      secret: row.secret ?? '',
    }));
}
