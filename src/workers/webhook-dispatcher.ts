/**
 * The webhook dispatcher: fans outbox events out into deliveries, then sends the deliveries that are
 * due, up to `concurrency` at once, each attempt recorded when it ends. Both go in turns over
 * tenants. Lifecycle and wiring only:
 * the SQL lives in adapters/queue, the schedule in domain/webhooks/delivery-policy.ts.
 *
 * Every process runs one (API and workers alike); FOR UPDATE SKIP LOCKED and the in-flight lease
 * keep them from sending one attempt twice. It polls every `pollMs` and is woken at once by the
 * worker when a scan ends and by the end of each of its own attempts; a slow receiver holds one
 * slot, never the others. Claims go in turns over tenants, and a tenant has at most
 * `tenantMaxInFlight` attempts in flight over all processes (claim-deliveries.ts): a tenant whose
 * receivers are slow or dead holds that many slots and delays only its own deliveries. While the
 * database is away it keeps polling at the same pace and says so once (outage-log.ts); an attempt
 * whose record was lost is sent again when its lease runs out.
 */
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import {
  type ClaimedDelivery,
  claimDeliveries,
  hasDueWork,
} from '../adapters/queue/claim-deliveries.js';
import { fanOutEvents } from '../adapters/queue/fan-out-events.js';
import { recordAttempt } from '../adapters/queue/record-attempt.js';
import { deliveryHeaders } from '../domain/webhooks/delivery-headers.js';
import type { ServiceMetrics } from '../use-cases/ports/metrics.js';
import type { WebhookSender } from '../use-cases/ports/webhooks.js';
import { outageLogOf } from './outage-log.js';

const STOP_WAIT_MS = 2_000;
/**
 * Outbox events fanned out per pass, and about this many deliveries of one tenant at most: a pass
 * (its insert of one delivery per event and webhook) stays short however many events one tenant
 * piles up and however many webhooks they fan out to, and each pass is followed by a claim, so
 * another tenant's event waits for one short pass, not for the whole backlog. Measured with
 * bench/fair-deliveries.ts (a tenant with 25 webhooks flooding, load average 3-6 from other work):
 * with 20 events of a tenant a pass (500 deliveries) the other tenant's flooded p99 was 131-228 ms,
 * 1.6-5x its p99 alone; with 50 deliveries a pass 23-88 ms, 0.55-2.3x.
 */
const FAN_OUT_BATCH = 200;
const FAN_OUT_PER_TENANT_DELIVERIES = 50;

export interface WebhookDispatcherOptions {
  readonly database: DatabaseHandle;
  readonly sender: WebhookSender;
  readonly retryDelaysMs: readonly number[];
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly pollMs?: number;
  /** Attempts in flight in this process, all tenants together. */
  readonly concurrency?: number;
  /** Attempts in flight of one tenant, over every process (WEBHOOK_TENANT_MAX_IN_FLIGHT). */
  readonly tenantMaxInFlight?: number;
  /** Counts attempts, ended deliveries and disabled webhooks. */
  readonly metrics: ServiceMetrics;
}

export interface WebhookDispatcher {
  wake(): void;
  /**
   * Resolves once this dispatcher has nothing left to do now: no event waits to be fanned out, no
   * delivery could be claimed and none of its attempts is in flight (tests wait for this instead
   * of sleeping; retries scheduled later, and deliveries held by a suspension or by a cap that
   * another process's attempts fill, are not waited for).
   */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export function startWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const db = options.database.db;
  const concurrency = options.concurrency ?? 32;
  const tenantMaxInFlight = options.tenantMaxInFlight ?? 4;
  // An attempt in flight keeps its delivery for the whole deadline plus a margin.
  // (the attempt ends by its deadline; the margin covers recording it on a busy process).
  const leaseMs = options.timeoutMs + 5_000;
  const log = options.logger.child({ component: 'webhook-dispatcher' });
  const outage = outageLogOf(options.database, options.logger);
  const inFlight = new Set<Promise<void>>();
  let ticking: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  /** A dispatch round; while one runs, a call asks it for another pass and gets its promise. */
  function tick(): Promise<void> {
    if (stopped) {
      return Promise.resolve();
    }
    if (ticking !== null) {
      again = true;
      return ticking;
    }
    ticking = round().finally(() => {
      ticking = null;
    });
    return ticking;
  }

  async function round(): Promise<void> {
    // A round goes on while work comes in (wakes set `again`), for as long as load lasts: each
    // pass takes its own mark, so an outage seen meanwhile is ended by a pass begun after it.
    let began = outage.begin();
    try {
      do {
        again = false;
        began = outage.begin();
        // One pass of the outbox, then a claim; passes go on while events wait.
        const fanned = await fanOutEvents(
          db,
          options.retryDelaysMs[0] ?? 0,
          FAN_OUT_BATCH,
          FAN_OUT_PER_TENANT_DELIVERIES,
        );
        const free = concurrency - inFlight.size;
        const claimed = await claimDeliveries(db, free, leaseMs, tenantMaxInFlight);
        outage.succeeded(began);
        for (const delivery of claimed) {
          send(delivery);
        }
        if (fanned.events > 0 || (claimed.length === free && free > 0)) {
          again = true;
        }
      } while (again && !stopped);
    } catch (error) {
      outage.failed(error, began, 'webhook dispatch', { component: 'webhook-dispatcher' });
    }
  }

  function send(delivery: ClaimedDelivery): void {
    // Set again right before the attempt is recorded: the send itself does not use the database.
    let began = outage.begin();
    const attempt = (async () => {
      const outcome = await options.sender.send({
        url: delivery.url,
        headers: deliveryHeaders({
          deliveryId: delivery.id,
          messageId: delivery.messageId,
          event: delivery.event,
          eventTimestamp: delivery.eventTimestamp,
          body: delivery.body,
          secret: delivery.secret,
          attemptedAt: new Date(),
        }),
        body: delivery.body,
      });
      began = outage.begin();
      const recorded = await recordAttempt(db, delivery, outcome, options.retryDelaysMs);
      outage.succeeded(began);
      const { metrics } = options;
      metrics.webhookAttempted(delivery.event, outcome.success, outcome.responseTimeMs / 1000);
      if (recorded.ended !== null) {
        metrics.webhookDeliveryEnded(delivery.event, recorded.ended);
      }
      for (const event of recorded.cancelledEvents) {
        metrics.webhookDeliveryEnded(event, 'cancelled');
      }
      if (recorded.disabledWebhook) {
        metrics.webhookDisabled();
        log.warn({ webhookId: delivery.webhookId }, 'webhook disabled after consecutive failures');
      }
    })()
      .catch((error: unknown) => {
        outage.failed(error, began, 'recording a webhook attempt', { deliveryId: delivery.id });
      })
      .finally(() => {
        inFlight.delete(attempt);
        void tick();
      });
    inFlight.add(attempt);
  }

  const timer = setInterval(() => void tick(), options.pollMs ?? 200);
  timer.unref();
  void tick();

  return {
    wake: () => void tick(),
    async drain() {
      for (;;) {
        await tick();
        if (inFlight.size > 0) {
          await Promise.allSettled([...inFlight]);
        } else if (stopped || !(await hasDueWork(db, tenantMaxInFlight))) {
          return;
        }
      }
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      // Attempts still in flight after a moment are abandoned: their lease runs out and another
      // dispatcher (or this one after a restart) tries them again. At least once, never lost.
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...inFlight]),
        new Promise((resolve) => {
          timeout = setTimeout(resolve, STOP_WAIT_MS);
        }),
      ]);
      clearTimeout(timeout);
    },
  };
}
