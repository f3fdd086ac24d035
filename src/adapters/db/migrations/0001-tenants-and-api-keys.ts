import type { Migration } from './index.js';

/** Tenants (created on first sight of a valid JWT) and their API keys (only the SHA-256 stored). */
export const migration0001: Migration = {
  version: 1,
  name: 'tenants-and-api-keys',
  statements: [
    `create table tenants (
      id uuid primary key,
      status text not null default 'active' check (status in ('active', 'suspended')),
      monthly_scan_quota integer not null check (monthly_scan_quota >= 0),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create table api_keys (
      id uuid primary key,
      tenant_id uuid not null references tenants (id),
      name text not null,
      description text,
      key_hash text not null unique,
      key_prefix text not null,
      scopes text[] not null,
      allowed_scan_types text[] not null,
      allowed_ip_addresses text[] not null default '{}',
      rate_limit_per_minute integer not null,
      rate_limit_per_hour integer not null,
      rate_limit_per_day integer not null,
      rate_limit_bucket uuid not null,
      expires_at timestamptz,
      created_at timestamptz not null default now(),
      created_by text,
      last_used_at timestamptz,
      revoked_at timestamptz,
      revoked_reason text,
      suspended_at timestamptz,
      rotated_to_key_id uuid references api_keys (id),
      rotated_from_key_id uuid references api_keys (id)
    )`,
    'create index api_keys_tenant_created_idx on api_keys (tenant_id, created_at desc)',
  ],
};
