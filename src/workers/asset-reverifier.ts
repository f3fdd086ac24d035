/**
 * The periodic re-verification of assets (issue 24): every `pollMs` it claims the verified assets
 * whose last check is older than VERIFICATION_INTERVAL_HOURS (a claim sets their last check, with
 * SKIP LOCKED, so several processes never check one asset twice in an interval) and checks each
 * (verify-asset.ts: the grace period applies). A process that dies mid-check leaves that asset for
 * the next interval. Failures go to the process's outage log (a database outage is said once);
 * the loop goes on.
 */
import { reverifyDueAssets, type VerifyDeps } from '../use-cases/assets/verify-asset.js';
import type { OutageLog } from './outage-log.js';

const BATCH = 20;

export interface AssetReverifier {
  /** One round now (tests); resolves with how many assets were checked. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startAssetReverifier(
  deps: VerifyDeps & { readonly intervalMs: number },
  options: {
    readonly pollMs: number;
    readonly outage: OutageLog;
    readonly enabled: boolean;
  },
): AssetReverifier {
  let running: Promise<number> = Promise.resolve(0);
  let stopped = false;
  const round = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const checked = await reverifyDueAssets(deps, BATCH);
      total += checked;
      if (checked < BATCH || stopped) {
        return total;
      }
    }
  };
  const runOnce = () => {
    running = running.then(round, round);
    return running;
  };
  const timer = options.enabled
    ? setInterval(() => {
        const began = options.outage.begin();
        runOnce().then(
          () => options.outage.succeeded(),
          (error: unknown) =>
            options.outage.failed(error, began, 'verifying assets again', {
              component: 'asset-reverifier',
            }),
        );
      }, options.pollMs)
    : null;
  timer?.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer !== null) {
        clearInterval(timer);
      }
      await running.catch(() => undefined);
    },
  };
}
