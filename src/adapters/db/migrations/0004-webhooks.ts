import type { Migration } from './index.js';

/**
 * Webhooks, and the delivery queue fed from the scan_events outbox.
 *
 * - `webhook_deliveries`: one row per event and destination (a webhook, a scan's callback, or a
 *   test), kept across its attempts: the body bytes are stored once, so every attempt sends the
 *   same bytes. `next_attempt_at` is the schedule and, while an attempt is in flight, its lease
 *   (claims use FOR UPDATE SKIP LOCKED, so two dispatchers never send the same attempt).
 * - `webhook_attempts`: one row per attempt, what GET …/deliveries lists.
 */
export const migration0004: Migration = {
  version: 4,
  name: 'webhooks',
  statements: [
    `create table webhooks (
      id uuid primary key,
      tenant_id uuid not null references tenants (id),
      name text not null,
      url text not null,
      secret text not null,
      events text[] not null,
      is_active boolean not null default true,
      consecutive_failures integer not null default 0,
      last_triggered_at timestamptz,
      last_status_code integer,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create index webhooks_by_tenant on webhooks (tenant_id, created_at desc)`,
    `create table webhook_deliveries (
      id uuid primary key,
      tenant_id uuid not null,
      kind text not null check (kind in ('webhook', 'callback', 'test')),
      webhook_id uuid references webhooks (id) on delete cascade,
      scan_id uuid,
      event text not null,
      event_timestamp text not null,
      body text not null,
      status text not null check (status in ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer not null default 0,
      next_attempt_at timestamptz,
      created_at timestamptz not null default now()
    )`,
    `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`,
    `create index webhook_deliveries_by_webhook on webhook_deliveries (webhook_id) where status = 'pending'`,
    `create table webhook_attempts (
      id uuid primary key,
      seq bigint generated always as identity,
      delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
      webhook_id uuid,
      tenant_id uuid not null,
      event text not null,
      attempt integer not null,
      status_code integer not null,
      success boolean not null,
      response_time_ms integer not null,
      error text,
      next_attempt_at timestamptz,
      attempted_at timestamptz not null default now()
    )`,
    `create index webhook_attempts_by_webhook on webhook_attempts (webhook_id, seq desc)`,
  ],
};
