/**
 * The scheduler loop: every `pollMs` it claims due schedules (run-due-schedules.ts) until a claim
 * comes back short of a full batch. Every process that runs scan workers runs one; FOR UPDATE
 * SKIP LOCKED shares the due schedules between them (claim-schedules.ts). While the database is
 * away it keeps polling at the same pace and says so once (outage-log.ts). `tick()` runs a round
 * now and resolves when it ends (tests drive time with an injected clock and call it).
 */
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../adapters/db/connect.js';
import { outageLogOf } from './outage-log.js';

export interface Scheduler {
  /** Claims until nothing is due; resolves to how many schedules were claimed. */
  tick(): Promise<number>;
  stop(): Promise<void>;
}

export function startScheduler(options: {
  readonly database: DatabaseHandle;
  /** One claim; resolves to how many schedules it claimed. */
  readonly claim: () => Promise<number>;
  readonly batchSize: number;
  readonly pollMs: number;
  readonly logger: Logger;
}): Scheduler {
  const outage = outageLogOf(options.database, options.logger);
  let ticking: Promise<number> | null = null;
  let stopped = false;

  async function round(): Promise<number> {
    let total = 0;
    let began = outage.begin();
    try {
      for (;;) {
        // One mark per claim: a round goes on while claims come back full.
        began = outage.begin();
        const claimed = await options.claim();
        outage.succeeded(began);
        total += claimed;
        if (claimed < options.batchSize || stopped) {
          return total;
        }
      }
    } catch (error) {
      outage.failed(error, began, 'running due schedules', { component: 'scheduler' });
      return total;
    }
  }

  function tick(): Promise<number> {
    if (stopped) {
      return Promise.resolve(0);
    }
    if (ticking === null) {
      ticking = round().finally(() => {
        ticking = null;
      });
    }
    return ticking;
  }

  const timer = setInterval(() => void tick(), options.pollMs);
  timer.unref();
  void tick();

  return {
    async tick() {
      // A round under way may have started before the caller's change: wait for it, then run one.
      await ticking;
      return tick();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ticking;
    },
  };
}
