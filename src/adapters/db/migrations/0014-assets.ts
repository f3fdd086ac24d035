import type { Migration } from './index.js';

/**
 * Assets (issue 24): what a tenant registers and proves it owns. Scans keep their `asset_id` as
 * text without a foreign key, so deleting an asset leaves its scans' history as it was.
 * `proof_missing_since` is when a verified asset's proof was first found missing (the grace
 * period counts from it); `last_checked_at` orders the periodic re-verification.
 */
export const migration0014: Migration = {
  version: 14,
  name: 'assets',
  statements: [
    `create table assets (
      id uuid primary key,
      tenant_id uuid not null references tenants (id),
      name text not null,
      kind text not null,
      value text not null,
      tags text[] not null default '{}',
      verification_token text not null,
      verification_status text not null default 'unverified',
      verification_method text,
      verified_at timestamptz,
      last_checked_at timestamptz,
      last_check_error text,
      proof_missing_since timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create index assets_by_tenant on assets (tenant_id, created_at desc)`,
    `create index assets_verified_by_check on assets (last_checked_at) where verification_status = 'verified'`,
  ],
};
