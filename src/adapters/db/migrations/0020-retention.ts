import type { Migration } from './index.js';

/**
 * Retention (issue 25): what lets the pruner (adapters/db/retention.repository.ts) find old rows
 * in small batches without reading whole tables, at a small cost to the hot paths.
 *
 * - `scan_events_created` and `webhook_deliveries_created`: BRIN indexes (one summary per range of
 *   pages, no entry per row), enough for `created_at < cutoff … limit n` on tables that are
 *   written in time order; an insert costs next to nothing (the outbox stays as cheap to write as
 *   migration 0003 made it).
 * - `webhook_attempts_by_delivery`: the attempts of a delivery. Deleting a delivery cascades to
 *   its attempts; without this index every deleted delivery (or deleted webhook) read the whole
 *   attempts table. One index insertion per attempt.
 * - `scans.findings_pruned_at`: when retention deleted the scan's findings (null: never), so a
 *   scan is pruned once and its results can say so. `scans_findings_prunable`: the ended scans not
 *   pruned yet, oldest end first; partial, so only the statement that ends a scan adds an entry
 *   (claims and progress writes do not).
 */
export const migration0020: Migration = {
  version: 20,
  name: 'retention',
  statements: [
    `create index scan_events_created on scan_events using brin (created_at)`,
    `create index webhook_deliveries_created on webhook_deliveries using brin (created_at)`,
    `create index webhook_attempts_by_delivery on webhook_attempts (delivery_id)`,
    `alter table scans add column findings_pruned_at timestamptz`,
    `create index scans_findings_prunable on scans (completed_at)
      where completed_at is not null and findings_pruned_at is null`,
  ],
};
