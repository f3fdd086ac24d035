import type { Migration } from './index.js';

/**
 * Fair webhook deliveries (issue 20): deliveries are claimed in turns over tenants, each tenant
 * with a cap on its attempts in flight (WEBHOOK_TENANT_MAX_IN_FLIGHT), across every dispatcher.
 *
 * - `leased_until`: set while an attempt is in flight (its lease), cleared when the attempt is
 *   recorded; what the claim counts as a tenant's attempts in flight. `next_attempt_at` keeps its
 *   meaning (the schedule, and while in flight the moment a lost attempt is tried again).
 * - `webhook_deliveries_due_by_tenant`: the claim walks the tenants with pending deliveries and
 *   takes each one's oldest due ones; a test delivery in flight is found through it too.
 * - `webhook_deliveries_in_flight`: a tenant's leased deliveries, counted at each claim.
 * - `webhook_deliveries_due` (by time alone, for the global claim) is dropped: nothing reads it.
 * - The outbox is fanned out in turns over tenants too: its index of waiting events becomes one
 *   by tenant (`scan_events_pending_by_tenant` replaces `scan_events_pending`, so an event still
 *   costs one index insertion).
 */
export const migration0009: Migration = {
  version: 9,
  name: 'fair-deliveries',
  statements: [
    `alter table webhook_deliveries add column leased_until timestamptz`,
    `create index webhook_deliveries_due_by_tenant on webhook_deliveries (tenant_id, next_attempt_at)
      where status = 'pending'`,
    `create index webhook_deliveries_in_flight on webhook_deliveries (tenant_id)
      where leased_until is not null`,
    `drop index webhook_deliveries_due`,
    `create index scan_events_pending_by_tenant on scan_events (tenant_id, seq)
      where dispatched_at is null`,
    `drop index scan_events_pending`,
  ],
};
