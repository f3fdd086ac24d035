import type { Migration } from './index.js';

/**
 * sentinel: a sentinel scan is a parent scan row whose engines run as child scans
 * (`scans.parent_scan_id`). `sentinel_runs` holds what only the parent has: the plan (engines
 * chosen, engines skipped and why), its switches, the scan's risk factors, and `collected_at`, set
 * once the children's findings were correlated into the parent's (the partial index lists the
 * runs still waiting for that, which the housekeeping safety net reads).
 *
 * Findings gain `sources` (for a sentinel finding: each engine's original finding it was made
 * from), `correlated_by` (the rules that merged them) and `risk` (score and factors).
 */
export const migration0006: Migration = {
  version: 6,
  name: 'sentinel',
  statements: [
    `create index scans_by_parent on scans (parent_scan_id) where parent_scan_id is not null`,
    `create table sentinel_runs (
      scan_id uuid primary key references scans (id) on delete cascade,
      tenant_id uuid not null,
      depth text not null,
      correlate boolean not null,
      risk_score boolean not null,
      skipped jsonb not null default '[]',
      risk_factors jsonb,
      collected_at timestamptz
    )`,
    `create index sentinel_runs_pending on sentinel_runs (scan_id) where collected_at is null`,
    `alter table findings add column sources jsonb`,
    `alter table findings add column correlated_by text[]`,
    `alter table findings add column risk jsonb`,
  ],
};
