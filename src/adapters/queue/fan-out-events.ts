/**
 * Reads the scan_events outbox and turns each event into deliveries: one per active webhook of the
 * tenant subscribed to it, plus one to the scan's callbackUrl for its completion. Events are taken
 * in turns over tenants, each tenant's in order. The body is
 * serialized here, once, and stored: every attempt sends these bytes. Outbox rows are taken with
 * FOR UPDATE SKIP LOCKED and marked dispatched in the same transaction, so several dispatchers
 * never fan one event out twice, and a crash before the commit leaves the event to be fanned out
 * again.
 *
 * A webhook with filters (an extension, domain/webhooks/webhook-filters.ts) gets a scan.completed
 * event only when the changes the scan's end stored with it (`issue_changes`) pass its filters,
 * and then the body with `data.findings` added; every other delivery sends the stored body.
 */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { parseScanIssueChanges } from '../../domain/issues/scan-changes.js';
import { CALLBACK_EVENTS } from '../../domain/webhooks/webhook-events.js';
import { bodyFor, parseWebhookFilters } from '../../domain/webhooks/webhook-filters.js';
import type { Database } from '../db/database.js';

interface EventRow {
  id: string;
  tenant_id: string;
  scan_id: string;
  event: string;
  payload: unknown;
  issue_changes: unknown;
}

export async function fanOutEvents(
  db: Kysely<Database>,
  firstDelayMs: number,
  limit = 200,
  /**
   * About this many deliveries of one tenant per call, at most: its events are taken up to this
   * number divided by its active webhooks (one event at least), so a pass stays short whoever
   * floods, however many webhooks the flood fans out to.
   */
  perTenantDeliveries = Number.MAX_SAFE_INTEGER,
): Promise<{ readonly events: number; readonly deliveries: number }> {
  return db.transaction().execute(async (trx) => {
    // In turns over tenants, like the claim of deliveries (claim-deliveries.ts): each tenant's
    // oldest event before any tenant's second, so a tenant that piles up events (each one fans out
    // to all its webhooks) delays only its own. `event_tenants` is a skip scan over the tenants
    // with waiting events (index scan_events_pending_by_tenant); each gives at most as many events
    // as keep its deliveries within `perTenantDeliveries` (by its count of active webhooks).
    const taken = await sql<EventRow>`
      with recursive event_tenants (tenant_id) as (
        (select e.tenant_id from scan_events e where e.dispatched_at is null
          order by e.tenant_id limit 1)
        union all
        select (select e.tenant_id from scan_events e
                where e.dispatched_at is null and e.tenant_id > event_tenants.tenant_id
                order by e.tenant_id limit 1)
        from event_tenants where event_tenants.tenant_id is not null
      ),
      turns as (
        select p.id, p.seq, p.turn
        from event_tenants t
        cross join lateral (
          select e.id, e.seq, row_number() over (order by e.seq) as turn
          from scan_events e
          where e.tenant_id = t.tenant_id and e.dispatched_at is null
          order by e.seq
          limit greatest(1, ${perTenantDeliveries}::bigint / greatest(1, (
            select count(*) from webhooks w where w.tenant_id = t.tenant_id and w.is_active)))
        ) p
      )
      select e.id, e.tenant_id, e.scan_id, e.event, e.payload, e.issue_changes
      from scan_events e
      join turns on turns.id = e.id
      where e.dispatched_at is null
      order by turns.turn, turns.seq
      limit ${limit}
      for update of e skip locked`.execute(trx);
    const events = taken.rows;
    if (events.length === 0) {
      return { events: 0, deliveries: 0 };
    }
    const tenants = [...new Set(events.map((event) => event.tenant_id))];
    const webhooks = await trx
      .selectFrom('webhooks')
      .select(['id', 'tenant_id', 'events', 'filters'])
      .where('tenant_id', 'in', tenants)
      .where('is_active', '=', true)
      // FOR SHARE: a webhook being disabled at this moment (record-attempt.ts) waits for this
      // fan-out to commit and then cancels its new deliveries too; one disabled first is skipped.
      .forShare()
      .execute();
    const completionScans = [
      ...new Set(events.filter((e) => CALLBACK_EVENTS.includes(e.event)).map((e) => e.scan_id)),
    ];
    const callbacks =
      completionScans.length === 0
        ? []
        : await trx
            .selectFrom('scans')
            .select('id')
            .where('id', 'in', completionScans)
            .where('callback_url', 'is not', null)
            .execute();
    const withCallback = new Set(callbacks.map((row) => row.id));
    const rows = events.flatMap((event) => {
      const payload: unknown = event.payload;
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const timestamp = String((payload as { timestamp?: unknown }).timestamp ?? '');
      const common = {
        tenant_id: event.tenant_id,
        scan_id: event.scan_id,
        event: event.event,
        event_timestamp: timestamp,
        body,
        status: 'pending' as const,
        next_attempt_at: sql<Date>`now() + ${firstDelayMs} * interval '1 millisecond'`,
      };
      const changes = parseScanIssueChanges(event.issue_changes);
      const toWebhooks = webhooks
        .filter((hook) => hook.tenant_id === event.tenant_id && hook.events.includes(event.event))
        .flatMap((hook) => {
          const sent = bodyFor(parseWebhookFilters(hook.filters), event.event, body, changes);
          return sent === null
            ? []
            : [
                {
                  ...common,
                  body: sent,
                  id: randomUUID(),
                  kind: 'webhook' as const,
                  webhook_id: hook.id,
                },
              ];
        });
      const toCallback =
        CALLBACK_EVENTS.includes(event.event) && withCallback.has(event.scan_id)
          ? [{ ...common, id: randomUUID(), kind: 'callback' as const, webhook_id: null }]
          : [];
      return [...toWebhooks, ...toCallback];
    });
    for (let start = 0; start < rows.length; start += 500) {
      await trx
        .insertInto('webhook_deliveries')
        .values(rows.slice(start, start + 500))
        .execute();
    }
    await trx
      .updateTable('scan_events')
      .set({ dispatched_at: sql`now()` })
      .where(
        'id',
        'in',
        events.map((event) => event.id),
      )
      .execute();
    return { events: events.length, deliveries: rows.length };
  });
}
