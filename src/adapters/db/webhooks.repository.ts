/** Webhooks and their delivery log, as the API reads and writes them. */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { parseWebhookFilters } from '../../domain/webhooks/webhook-filters.js';
import type {
  DeliveryAttemptRecord,
  QueuedDeliveryRecord,
  WebhookRecord,
  WebhookStore,
} from '../../use-cases/ports/webhooks.js';
import type { Database, WebhookAttemptRow, WebhookRow } from './database.js';
import { insertUnderTenantCap, LIMIT_REACHED } from './tenant-cap.js';

function toWebhook(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    url: row.url,
    secret: row.secret,
    events: row.events,
    isActive: row.is_active,
    consecutiveFailures: row.consecutive_failures,
    lastTriggeredAt: row.last_triggered_at,
    lastStatusCode: row.last_status_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    filters: parseWebhookFilters(row.filters),
  };
}

function toAttempt(
  row: WebhookAttemptRow & { redelivery_of: string | null },
): DeliveryAttemptRecord {
  return {
    deliveryId: row.delivery_id,
    redeliveryOf: row.redelivery_of,
    event: row.event,
    attempt: row.attempt,
    statusCode: row.status_code,
    success: row.success,
    responseTimeMs: row.response_time_ms,
    error: row.error,
    nextAttemptAt: row.next_attempt_at,
    attemptedAt: row.attempted_at,
  };
}

/**
 * One webhook's redeliveries and recoveries are taken one at a time over every process, so two
 * requests at once cannot both find a message idle and queue it twice.
 */
async function lockRedeliveries(trx: Kysely<Database>, webhookId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`rampart-webhook-redeliver:${webhookId}:`}::text || current_schema()))`.execute(
    trx,
  );
}

/** Whether the webhook is active now (read in the redelivery's transaction). */
async function isActive(trx: Kysely<Database>, webhookId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('webhooks')
    .select('is_active')
    .where('id', '=', webhookId)
    .executeTakeFirst();
  return row?.is_active === true;
}

/**
 * Inserts one new pending delivery per id in `sourceIds`, with the source's body bytes, event
 * and timestamp, `redelivery_of` the source and `message_id` the source's message; returns them
 * in the order of `sourceIds`.
 */
async function queueAgain(
  trx: Kysely<Database>,
  sourceIds: readonly string[],
  firstDelayMs: number,
): Promise<QueuedDeliveryRecord[]> {
  const newIds = sourceIds.map(() => randomUUID());
  const inserted = await sql<{
    id: string;
    event: string;
    redelivery_of: string;
    message_id: string;
    created_at: Date;
    next_attempt_at: Date;
  }>`
    insert into webhook_deliveries
      (id, tenant_id, kind, webhook_id, scan_id, event, event_timestamp, body, status, attempts,
       next_attempt_at, redelivery_of, message_id)
    select m.new_id, d.tenant_id, d.kind, d.webhook_id, d.scan_id, d.event, d.event_timestamp,
           d.body, 'pending', 0, now() + ${firstDelayMs} * interval '1 millisecond', d.id,
           coalesce(d.message_id, d.id)
    from unnest(${newIds}::uuid[], ${[...sourceIds]}::uuid[]) with ordinality as m(new_id, old_id, n)
    join webhook_deliveries d on d.id = m.old_id
    order by m.n
    returning id, event, redelivery_of, message_id, created_at, next_attempt_at`.execute(trx);
  const byId = new Map(inserted.rows.map((row) => [row.id, row]));
  return newIds.flatMap((id) => {
    const row = byId.get(id);
    return row === undefined
      ? []
      : [
          {
            id: row.id,
            event: row.event,
            redeliveryOf: row.redelivery_of,
            messageId: row.message_id,
            createdAt: row.created_at,
            nextAttemptAt: row.next_attempt_at,
          },
        ];
  });
}

export function createWebhookStore(db: Kysely<Database>): WebhookStore {
  return {
    async insert(webhook, maxWebhooks) {
      const row = await insertUnderTenantCap(
        db,
        webhook.tenantId,
        maxWebhooks,
        (trx) =>
          trx
            .insertInto('webhooks')
            .values({
              id: webhook.id,
              tenant_id: webhook.tenantId,
              name: webhook.name,
              url: webhook.url,
              secret: webhook.secret,
              events: [...webhook.events],
              filters: webhook.filters === null ? null : JSON.stringify(webhook.filters),
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        async (trx) => {
          const held = await trx
            .selectFrom('webhooks')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('tenant_id', '=', webhook.tenantId)
            .executeTakeFirstOrThrow();
          return Number(held.n);
        },
      );
      return row === LIMIT_REACHED ? row : toWebhook(row);
    },

    async list(tenantId, page) {
      const base = db.selectFrom('webhooks').where('tenant_id', '=', tenantId);
      const [rows, count] = await Promise.all([
        base
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id')
          .limit(page.limit)
          .offset((page.page - 1) * page.limit)
          .execute(),
        base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { webhooks: rows.map(toWebhook), total: Number(count.n) };
    },

    async get(tenantId, id) {
      const row = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return row ? toWebhook(row) : null;
    },

    async update(tenantId, id, patch) {
      const row = await db
        .updateTable('webhooks')
        .set({
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...(patch.url === undefined ? {} : { url: patch.url }),
          ...(patch.events === undefined ? {} : { events: [...patch.events] }),
          ...(patch.isActive === undefined ? {} : { is_active: patch.isActive }),
          ...(patch.filters === undefined
            ? {}
            : { filters: patch.filters === null ? null : JSON.stringify(patch.filters) }),
          // Re-enabling starts the count again (decisions.md).
          ...(patch.isActive === true ? { consecutive_failures: 0 } : {}),
          updated_at: sql`now()`,
        })
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .returningAll()
        .executeTakeFirst();
      return row ? toWebhook(row) : null;
    },

    async delete(tenantId, id) {
      const result = await db
        .deleteFrom('webhooks')
        .where('id', '=', id)
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async listAttempts(tenantId, webhookId, page, filter = {}) {
      let base = db
        .selectFrom('webhook_attempts')
        .where('webhook_id', '=', webhookId)
        .where('tenant_id', '=', tenantId);
      if (filter.success !== undefined) {
        base = base.where('success', '=', filter.success);
      }
      if (filter.event !== undefined) {
        base = base.where('event', '=', filter.event);
      }
      if (filter.deliveryId !== undefined) {
        base = base.where('delivery_id', '=', filter.deliveryId);
      }
      const [rows, count] = await Promise.all([
        base
          .selectAll('webhook_attempts')
          .select((eb) =>
            eb
              .selectFrom('webhook_deliveries')
              .select('webhook_deliveries.redelivery_of')
              .whereRef('webhook_deliveries.id', '=', 'webhook_attempts.delivery_id')
              .as('redelivery_of'),
          )
          .orderBy('seq', 'desc')
          .limit(page.limit)
          .offset((page.page - 1) * page.limit)
          .execute(),
        base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { attempts: rows.map(toAttempt), total: Number(count.n) };
    },

    redeliver(webhook, deliveryId, firstDelayMs) {
      return db.transaction().execute(async (trx) => {
        await lockRedeliveries(trx, webhook.id);
        const found = await sql<{ kind: string; message_id: string; in_progress: boolean }>`
          select d.kind, coalesce(d.message_id, d.id) as message_id,
                 exists (select 1 from webhook_deliveries p
                         where (p.id = coalesce(d.message_id, d.id)
                                or p.message_id = coalesce(d.message_id, d.id))
                           and p.status = 'pending') as in_progress
          from webhook_deliveries d
          where d.id = ${deliveryId} and d.webhook_id = ${webhook.id}
            and d.tenant_id = ${webhook.tenantId}`.execute(trx);
        const row = found.rows[0];
        // A callback's delivery has no webhook: the webhook_id filter leaves it out.
        if (row === undefined) {
          return { outcome: 'not-found' as const };
        }
        if (row.kind === 'test') {
          return { outcome: 'test' as const };
        }
        if (!(await isActive(trx, webhook.id))) {
          return { outcome: 'disabled' as const };
        }
        if (row.in_progress) {
          return { outcome: 'in-progress' as const };
        }
        const [queued] = await queueAgain(trx, [deliveryId], firstDelayMs);
        if (queued === undefined) {
          return { outcome: 'not-found' as const };
        }
        return { outcome: 'queued' as const, delivery: queued };
      });
    },

    recover(webhook, window, limit, firstDelayMs) {
      return db.transaction().execute(async (trx) => {
        await lockRedeliveries(trx, webhook.id);
        if (!(await isActive(trx, webhook.id))) {
          return { outcome: 'disabled' as const };
        }
        // The newest delivery of each message only: a message redelivered since is judged by its
        // redelivery (delivered: nothing to do; pending: under way; failed: that one is taken).
        const found = await sql<{ id: string }>`
          select d.id from webhook_deliveries d
          where d.webhook_id = ${webhook.id} and d.tenant_id = ${webhook.tenantId}
            and d.kind = 'webhook' and d.status in ('failed', 'cancelled')
            and d.created_at >= ${window.since}
            and (${window.until}::timestamptz is null or d.created_at < ${window.until}::timestamptz)
            and not exists (select 1 from webhook_deliveries n
                            where n.message_id = coalesce(d.message_id, d.id)
                              and n.created_at > d.created_at)
          order by d.created_at, d.id
          limit ${limit + 1}`.execute(trx);
        const ids = found.rows.slice(0, limit).map((row) => row.id);
        const deliveries = ids.length === 0 ? [] : await queueAgain(trx, ids, firstDelayMs);
        return { outcome: 'queued' as const, deliveries, hasMore: found.rows.length > limit };
      });
    },

    async beginTest(webhook, delivery, limits) {
      return db.transaction().execute(async (trx) => {
        // One tenant's test starts are taken one at a time (over every process), so two cannot
        // both see the last free place.
        await sql`select pg_advisory_xact_lock(hashtext(${`rampart-webhook-test:${webhook.tenantId}:`}::text || current_schema()))`.execute(
          trx,
        );
        const running = await sql<{ n: number; free_in_ms: string | null }>`
          select count(*)::int as n,
                 extract(epoch from min(next_attempt_at) - now()) * 1000 as free_in_ms
          from webhook_deliveries
          where tenant_id = ${webhook.tenantId} and status = 'pending' and kind = 'test'
            and next_attempt_at > now()`.execute(trx);
        const row = running.rows[0];
        if (row !== undefined && row.n >= limits.maxConcurrent) {
          return { started: false as const, retryAfterMs: Number(row.free_in_ms ?? 0) };
        }
        // Pending until recorded; never claimed by a dispatcher (claim-deliveries.ts). One whose
        // process died stops counting at its deadline.
        await trx
          .insertInto('webhook_deliveries')
          .values({
            id: delivery.id,
            tenant_id: webhook.tenantId,
            kind: 'test',
            webhook_id: webhook.id,
            scan_id: null,
            event: 'webhook.test',
            event_timestamp: delivery.eventTimestamp,
            body: delivery.body,
            status: 'pending',
            attempts: 1,
            next_attempt_at: sql<Date>`now() + ${limits.leaseMs} * interval '1 millisecond'`,
          })
          .execute();
        return { started: true as const };
      });
    },

    async recordTest(webhook, delivery, outcome) {
      await db.transaction().execute(async (trx) => {
        const ended = await trx
          .updateTable('webhook_deliveries')
          .set({ status: outcome.success ? 'delivered' : 'failed', next_attempt_at: null })
          .where('id', '=', delivery.id)
          .returning('id')
          .executeTakeFirst();
        if (ended === undefined) {
          // The webhook was deleted, with its deliveries, while the test was in flight.
          return;
        }
        await trx
          .insertInto('webhook_attempts')
          .values({
            id: randomUUID(),
            delivery_id: delivery.id,
            webhook_id: webhook.id,
            tenant_id: webhook.tenantId,
            event: 'webhook.test',
            attempt: 1,
            status_code: outcome.statusCode,
            success: outcome.success,
            response_time_ms: outcome.responseTimeMs,
            error: outcome.error,
            next_attempt_at: null,
          })
          .execute();
        // Test deliveries never change consecutiveFailures, isHealthy or isActive.
        await trx
          .updateTable('webhooks')
          .set({ last_triggered_at: sql`now()`, last_status_code: outcome.statusCode })
          .where('id', '=', webhook.id)
          .execute();
      });
    },
  };
}
