import type { Migration } from './index.js';

/**
 * Fair claims (adapters/queue/claim-scans.ts): tenants take turns within a priority, and each has
 * a cap on the scans workers hold for it at once.
 *
 * - `tenants.max_running_scans`: the tenant's cap set by an admin; null is the service default
 *   (TENANT_MAX_RUNNING_SCANS).
 * - `tenants.scans_claimed`: how many scans claims have ever given the tenant. Only a claim writes
 *   it, with the tenant's row locked, in the statement that claims. A claim counts the tenant's
 *   running scans in its snapshot and adds the claims committed since (this counter's locked value
 *   minus its value in the snapshot), so two workers claiming at once cannot both see room for
 *   the same slot; nothing else (finish, cancel, reclaim) has to write the tenant's row.
 * - `tenants.last_claimed_at`: when the tenant last got a scan; within a priority the tenant
 *   served longest ago goes first (round robin).
 * - `scans_queued_by_tenant` finds the tenants with queued work (a skip scan over tenant ids) and
 *   each one's head of the queue; `scans_held_by_tenant` counts a tenant's running scans held by a
 *   worker (sentinel children included; a sentinel parent is held by none).
 */
export const migration0008: Migration = {
  version: 8,
  name: 'fair-claims',
  statements: [
    `alter table tenants add column max_running_scans integer
      check (max_running_scans is null or max_running_scans >= 1)`,
    'alter table tenants add column scans_claimed bigint not null default 0',
    'alter table tenants add column last_claimed_at timestamptz',
    `create index scans_queued_by_tenant on scans (tenant_id, priority_rank, seq)
      where status = 'queued'`,
    `create index scans_held_by_tenant on scans (tenant_id)
      where status = 'running' and lease_owner is not null`,
  ],
};
