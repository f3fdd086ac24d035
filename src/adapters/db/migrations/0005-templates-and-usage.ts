import type { Migration } from './index.js';

/**
 * Scan templates (names unique per tenant, enforced by the index, so two concurrent creates with one
 * name cannot both succeed) and the monthly scan count per tenant that the quota is checked against
 * in the same statement that stores a scan.
 */
export const migration0005: Migration = {
  version: 5,
  name: 'templates-and-usage',
  statements: [
    `create table scan_templates (
      id uuid primary key,
      tenant_id uuid not null references tenants (id),
      name text not null,
      description text,
      scan_type text not null,
      options jsonb not null default '{}',
      config jsonb not null default '{}',
      priority text,
      tags text[] not null default '{}',
      timeout_seconds integer,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create unique index scan_templates_name on scan_templates (tenant_id, name)`,
    `create index scan_templates_by_tenant on scan_templates (tenant_id, created_at desc)`,
    `create table tenant_monthly_scans (
      tenant_id uuid not null references tenants (id),
      month date not null,
      scans integer not null,
      primary key (tenant_id, month)
    )`,
  ],
};
