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
import { type PeriodicRound, startPeriodicRound } from './periodic-round.js';

const BATCH = 20;

export type AssetReverifier = PeriodicRound<number>;

export function startAssetReverifier(
  deps: VerifyDeps & { readonly intervalMs: number },
  options: {
    readonly pollMs: number;
    readonly outage: OutageLog;
    readonly enabled: boolean;
  },
): AssetReverifier {
  return startPeriodicRound({
    // Resolves with how many assets were checked.
    async round(stopped) {
      let total = 0;
      for (;;) {
        const checked = await reverifyDueAssets(deps, BATCH);
        total += checked;
        if (checked < BATCH || stopped()) {
          return total;
        }
      }
    },
    initial: 0,
    intervalMs: options.pollMs,
    enabled: options.enabled,
    outage: options.outage,
    what: 'verifying assets again',
    component: 'asset-reverifier',
  });
}
