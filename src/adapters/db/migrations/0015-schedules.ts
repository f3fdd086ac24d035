import type { Migration } from './index.js';

/**
 * Scheduled scans. `next_run_at` is the stored next occurrence (null: never again); the scheduler
 * claims rows whose time has come with FOR UPDATE SKIP LOCKED (schedules_due holds only the rows
 * it may claim). `schedule_runs` keeps each occurrence once: its primary key makes the scans of
 * one occurrence impossible to create twice, whichever process claims it.
 */
export const migration0015: Migration = {
  version: 15,
  name: 'schedules',
  statements: [
    `create table schedules (
      id uuid primary key,
      tenant_id uuid not null references tenants (id),
      api_key_id uuid,
      allowed_scan_types text[],
      name text not null,
      description text,
      scan jsonb not null default '{}',
      template_id uuid,
      targets text[] not null,
      cron text,
      time_zone text,
      interval_seconds integer,
      interval_anchor timestamptz,
      missed_run_policy text not null,
      paused boolean not null default false,
      paused_reason text,
      consecutive_failures integer not null default 0,
      next_run_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create index schedules_due on schedules (next_run_at) where not paused`,
    `create index schedules_by_tenant on schedules (tenant_id, created_at desc, id)`,
    `create table schedule_runs (
      schedule_id uuid not null references schedules (id) on delete cascade,
      occurrence_at timestamptz not null,
      ran_at timestamptz not null,
      outcome text not null,
      scan_ids uuid[] not null default '{}',
      errors jsonb not null default '[]',
      missed integer not null default 0,
      primary key (schedule_id, occurrence_at)
    )`,
  ],
};
