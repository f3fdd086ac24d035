import type { Migration } from './index.js';

/**
 * Scans (the table is also the queue), their findings, the event outbox and the worker registry.
 *
 * Queue order is (priority_rank, seq): `seq` is an identity column, so first-in-first-out holds
 * even for scans created in the same microsecond. The partial index `scans_queue` holds only queued
 * rows, so a claim reads the head of the queue without stepping over finished scans.
 *
 * scan_events is the outbox: rows are written only by the statements that move a scan (from the
 * moved rows themselves), so it carries no foreign key and no per-scan index; both cost about a
 * sixth of the claim rate in bench/queue.ts (an index insertion and an FK check per event).
 */
export const migration0003: Migration = {
  version: 3,
  name: 'scans-queue-findings-events',
  statements: [
    `create table scans (
      id uuid primary key,
      seq bigint generated always as identity,
      tenant_id uuid not null references tenants (id),
      api_key_id uuid,
      scan_type text not null,
      name text not null,
      target text not null,
      target_type text not null,
      priority text not null check (priority in ('critical', 'high', 'normal', 'low')),
      priority_rank smallint not null,
      status text not null check (status in ('queued', 'running', 'completed', 'failed', 'cancelled')),
      progress integer not null default 0 check (progress between 0 and 100),
      tags text[] not null default '{}',
      options jsonb not null,
      config jsonb not null default '{}',
      timeout_seconds integer not null,
      asset_id text,
      callback_url text,
      callback_secret text,
      template_id uuid,
      parent_scan_id uuid references scans (id),
      result_count integer not null default 0,
      findings_summary jsonb not null default '{"critical":0,"high":0,"medium":0,"low":0,"info":0}',
      risk_score integer not null default 0,
      error_code text,
      error_message text,
      attempts integer not null default 0,
      lease_owner text,
      lease_expires_at timestamptz,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz
    )`,
    `create index scans_queue on scans (priority_rank, seq) where status = 'queued'`,
    `create index scans_leases on scans (lease_expires_at) where status = 'running'`,
    `create index scans_by_tenant on scans (tenant_id, seq desc)`,
    `create index scans_by_tenant_type on scans (tenant_id, scan_type, seq desc)`,
    `create table findings (
      id uuid primary key,
      seq bigint generated always as identity,
      scan_id uuid not null references scans (id) on delete cascade,
      tenant_id uuid not null,
      engine text not null,
      rule_id text not null,
      title text not null,
      severity text not null check (severity in ('critical', 'high', 'medium', 'low', 'info')),
      severity_rank smallint not null,
      tool_severity text,
      category text not null,
      host text,
      port integer,
      protocol text,
      url text,
      cve text[] not null default '{}',
      cwe text[] not null default '{}',
      description text,
      evidence text,
      remediation text,
      refs text[] not null default '{}',
      fingerprint text not null,
      raw jsonb,
      created_at timestamptz not null default now()
    )`,
    `create index findings_by_scan on findings (scan_id, severity_rank, seq)`,
    `create table scan_events (
      id uuid primary key,
      seq bigint generated always as identity,
      tenant_id uuid not null,
      scan_id uuid not null,
      event text not null,
      payload json not null,
      created_at timestamptz not null default now(),
      dispatched_at timestamptz
    )`,
    `create index scan_events_pending on scan_events (seq) where dispatched_at is null`,
    `create table workers (
      id text primary key,
      engines text[] not null,
      hostname text not null,
      pid integer not null,
      started_at timestamptz not null default now(),
      heartbeat_at timestamptz not null default now()
    )`,
  ],
};
