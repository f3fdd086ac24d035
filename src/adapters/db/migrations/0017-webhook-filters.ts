import type { Migration } from './index.js';

/**
 * Webhook filters and what a scan changed in its issues (issue 23, "notifications for what is
 * new").
 *
 * - `webhooks.filters`: `{ minSeverity, onlyNew }` (domain/webhooks/webhook-filters.ts), or null
 *   for a webhook without filters (the contract's behaviour).
 * - `scan_events.issue_changes`: on a scan.completed event, the untriaged issues the scan's end
 *   opened, reopened, fixed and saw (domain/issues/scan-changes.ts), written by the statement that
 *   inserts the event, in the transaction that updated the issues, so the fan-out reads counts
 *   consistent with the issues as that end left them. Null on every other event, and on a
 *   completion without findings taken by the fast path (it opens and reopens nothing).
 *
 * Both columns are nullable without a default: adding them rewrites no row.
 */
export const migration0017: Migration = {
  version: 17,
  name: 'webhook-filters',
  statements: [
    'alter table webhooks add column filters jsonb',
    'alter table scan_events add column issue_changes jsonb',
  ],
};
