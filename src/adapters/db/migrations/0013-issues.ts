import type { Migration } from './index.js';

/**
 * Issues (issue 23): a finding's life across rescans, one row per (tenant, target, fingerprint).
 *
 * - `issues`: the latest finding's fields (a finding's shape, without raw output and evidence),
 *   when and by which scans it was first and last seen, how many scans saw it, its `status`
 *   (open, fixed, reopened) and its triage (none, false_positive, accepted_risk, out_of_scope,
 *   with who, why, when and an optional expiry). `engine` is the engine of the latest finding (a
 *   sentinel finding's primary source's engine): a completed scan of that engine on the target
 *   that does not see the issue moves it to fixed.
 * - `issue_keys`: every fingerprint that leads to an issue, the issue's own and, for a sentinel
 *   scan's correlated finding, each source's, so a later scan of one of those engines alone finds
 *   the same issue. Its primary key is what the upsert resolves against.
 * - `issue_events`: the history of each issue's status and triage moves.
 * - `issues` is filled to half a page (fillfactor 50): each scan updates every issue it sees
 *   again (last seen, occurrences), and the room lets those updates stay on their page without
 *   new index entries (HOT); measured in bench/issues.ts, the update of 9,000 issues took about a
 *   third of the time it took on full pages.
 * - `issues_by_engine`: the issues a completed scan may move to fixed. Not partial on the
 *   status: no index names `status`, so a move to fixed or reopened stays a HOT update too (the
 *   first scan that fixed 91,000 issues took 6.5-11 s with a partial index `where status <>
 *   'fixed'`, which made each such move write every index; 5.9 s without, bench/issues.ts under
 *   the same load); `issues_triage_expiry` the
 *   accepted risks that can expire.
 */
export const migration0013: Migration = {
  version: 13,
  name: 'issues',
  statements: [
    `create table issues (
      id uuid primary key,
      tenant_id uuid not null references tenants (id),
      target text not null,
      fingerprint text not null,
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
      remediation text,
      refs text[] not null default '{}',
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null,
      first_scan_id uuid not null,
      last_scan_id uuid not null,
      last_finding_id uuid,
      occurrences integer not null default 0,
      status text not null check (status in ('open', 'fixed', 'reopened')),
      status_changed_at timestamptz not null,
      triage text not null default 'none'
        check (triage in ('none', 'false_positive', 'accepted_risk', 'out_of_scope')),
      triage_reason text,
      triaged_by text,
      triaged_at timestamptz,
      triage_expires_at timestamptz
    ) with (fillfactor = 50)`,
    `create unique index issues_by_fingerprint on issues (tenant_id, target, fingerprint)`,
    `create index issues_by_engine on issues (tenant_id, target, engine)`,
    `create index issues_triage_expiry on issues (triage_expires_at)
      where triage = 'accepted_risk' and triage_expires_at is not null`,
    `create table issue_keys (
      tenant_id uuid not null,
      target text not null,
      fingerprint text not null,
      issue_id uuid not null references issues (id) on delete cascade,
      primary key (tenant_id, target, fingerprint)
    )`,
    `create table issue_events (
      id bigint generated always as identity primary key,
      issue_id uuid not null references issues (id) on delete cascade,
      tenant_id uuid not null,
      at timestamptz not null default now(),
      kind text not null check (kind in ('status', 'triage')),
      from_state text,
      to_state text not null,
      scan_id uuid,
      actor text,
      reason text
    )`,
    `create index issue_events_by_issue on issue_events (issue_id, id)`,
  ],
};
