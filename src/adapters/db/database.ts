import type { ColumnType, Generated, Selectable } from 'kysely';
import type { ScanStatus } from '../../domain/scans/status-machine.js';

/** Row types of every table, gathered for Kysely. Column names are the SQL ones (snake_case). */
export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  scans: ScansTable;
  findings: FindingsTable;
  scan_events: ScanEventsTable;
  workers: WorkersTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  scan_templates: ScanTemplatesTable;
  tenant_monthly_scans: TenantMonthlyScansTable;
  sentinel_runs: SentinelRunsTable;
  issues: IssuesTable;
  issue_keys: IssueKeysTable;
  issue_events: IssueEventsTable;
  finding_issues: FindingIssuesTable;
  assets: AssetsTable;
  schedules: SchedulesTable;
  schedule_runs: ScheduleRunsTable;
}

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;

export interface TenantsTable {
  id: string;
  status: 'active' | 'suspended';
  monthly_scan_quota: number;
  max_running_scans: ColumnType<number | null, number | null | undefined, number | null>;
  scans_claimed: ColumnType<string, never, never>;
  last_claimed_at: ColumnType<Date | null, never, never>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  key_hash: string;
  key_prefix: string;
  scopes: string[];
  allowed_scan_types: string[];
  allowed_ip_addresses: string[];
  rate_limit_per_minute: number;
  rate_limit_per_hour: number;
  rate_limit_per_day: number;
  rate_limit_bucket: string;
  expires_at: NullableTimestamp;
  created_at: Timestamp;
  created_by: string | null;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  revoked_reason: string | null;
  suspended_at: NullableTimestamp;
  rotated_to_key_id: string | null;
  rotated_from_key_id: string | null;
}

export type TenantRow = Selectable<TenantsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;

type Json<T> = ColumnType<T, string, string>;

export interface ScansTable {
  id: string;
  seq: Generated<string>;
  tenant_id: string;
  api_key_id: string | null;
  scan_type: string;
  name: string;
  target: string;
  target_type: string;
  priority: string;
  priority_rank: number;
  status: ScanStatus;
  progress: Generated<number>;
  tags: string[];
  options: Json<Record<string, unknown>>;
  config: Json<Record<string, unknown>>;
  timeout_seconds: number;
  asset_id: string | null;
  callback_url: string | null;
  callback_secret: string | null;
  template_id: string | null;
  parent_scan_id: string | null;
  trace_context: string | null;
  result_count: Generated<number>;
  findings_summary: ColumnType<Record<string, number>, string | undefined, string>;
  risk_score: Generated<number>;
  error_code: string | null;
  error_message: string | null;
  attempts: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: NullableTimestamp;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  /** When retention deleted the scan's findings, else null (migration 0020). */
  findings_pruned_at: ColumnType<
    Date | null,
    Date | string | null | undefined,
    Date | string | null
  >;
}

export interface FindingsTable {
  id: string;
  seq: Generated<string>;
  scan_id: string;
  tenant_id: string;
  engine: string;
  rule_id: string;
  title: string;
  severity: string;
  severity_rank: number;
  tool_severity: string | null;
  category: string;
  host: string | null;
  port: number | null;
  protocol: string | null;
  url: string | null;
  cve: string[];
  cwe: string[];
  description: string | null;
  evidence: string | null;
  remediation: string | null;
  refs: string[];
  fingerprint: string;
  raw: ColumnType<unknown, string | null, string | null>;
  /** sentinel findings: the engines' original findings (JSON array), else null. */
  sources: ColumnType<unknown, string | null | undefined, string | null>;
  correlated_by: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /** sentinel findings with riskScore: `{ score, factors }`, else null. */
  risk: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface ScanEventsTable {
  id: string;
  seq: Generated<string>;
  tenant_id: string;
  scan_id: string;
  event: string;
  payload: Json<Record<string, unknown>>;
  created_at: Timestamp;
  dispatched_at: NullableTimestamp;
  /** A scan.completed event's ScanIssueChanges (migration 0017), else null. */
  issue_changes: ColumnType<unknown, string | null | undefined, string | null>;
}

export interface WorkersTable {
  id: string;
  engines: string[];
  /** The engines of `engines` this worker runs in the scanner sandbox. */
  sandboxed_engines: ColumnType<string[], string[] | undefined, string[]>;
  hostname: string;
  pid: number;
  started_at: Timestamp;
  heartbeat_at: Timestamp;
}

export type ScanRow = Selectable<ScansTable>;
export type FindingRow = Selectable<FindingsTable>;

export interface WebhooksTable {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  secret: string;
  events: string[];
  is_active: Generated<boolean>;
  consecutive_failures: Generated<number>;
  last_triggered_at: NullableTimestamp;
  last_status_code: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** WebhookFilters as JSON (migration 0017); null: no filters. */
  filters: ColumnType<unknown, string | null | undefined, string | null>;
}

export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  kind: 'webhook' | 'callback' | 'test';
  webhook_id: string | null;
  scan_id: string | null;
  event: string;
  event_timestamp: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  /** Set while an attempt is in flight (its lease), null otherwise (migration 0009). */
  leased_until: NullableTimestamp;
  /** The delivery this one sends again, null for one made from an event (migration 0012). */
  redelivery_of: ColumnType<string | null, string | null | undefined, string | null>;
  /** `webhook-id`: the first delivery of a redelivery chain; null means its own id (0012). */
  message_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  seq: Generated<string>;
  delivery_id: string;
  webhook_id: string | null;
  tenant_id: string;
  event: string;
  attempt: number;
  status_code: number;
  success: boolean;
  response_time_ms: number;
  error: string | null;
  next_attempt_at: NullableTimestamp;
  attempted_at: Timestamp;
}

export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

export interface ScanTemplatesTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  scan_type: string;
  options: ColumnType<Record<string, unknown>, string, string>;
  config: ColumnType<Record<string, unknown>, string, string>;
  priority: string | null;
  tags: string[];
  timeout_seconds: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TenantMonthlyScansTable {
  tenant_id: string;
  month: ColumnType<Date, string, string>;
  scans: number;
}

export type ScanTemplateRow = Selectable<ScanTemplatesTable>;

export interface SentinelRunsTable {
  scan_id: string;
  tenant_id: string;
  depth: string;
  correlate: boolean;
  risk_score: boolean;
  /** `[{ engine, reason }]`: engines planning left out. */
  skipped: ColumnType<unknown, string | undefined, string>;
  /** The scan's risk factors once collected (riskScore on), else null. */
  risk_factors: ColumnType<unknown, string | null | undefined, string | null>;
  collected_at: NullableTimestamp;
}

export type SentinelRunRow = Selectable<SentinelRunsTable>;

/** Issues: a finding's life across rescans (migration 0013). */
export interface IssuesTable {
  id: string;
  tenant_id: string;
  target: string;
  fingerprint: string;
  engine: string;
  rule_id: string;
  title: string;
  severity: string;
  severity_rank: number;
  tool_severity: string | null;
  category: string;
  host: string | null;
  port: number | null;
  protocol: string | null;
  url: string | null;
  cve: string[];
  cwe: string[];
  description: string | null;
  remediation: string | null;
  refs: string[];
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  first_scan_id: string;
  last_scan_id: string;
  last_finding_id: string | null;
  occurrences: number;
  status: 'open' | 'fixed' | 'reopened';
  status_changed_at: Timestamp;
  triage: 'none' | 'false_positive' | 'accepted_risk' | 'out_of_scope';
  triage_reason: string | null;
  triaged_by: string | null;
  triaged_at: NullableTimestamp;
  triage_expires_at: NullableTimestamp;
}

export type IssueRow = Selectable<IssuesTable>;

export interface IssueKeysTable {
  tenant_id: string;
  target: string;
  fingerprint: string;
  issue_id: string;
}

export interface IssueEventsTable {
  id: Generated<string>;
  issue_id: string;
  tenant_id: string;
  at: Timestamp;
  kind: 'status' | 'triage';
  from_state: string | null;
  to_state: string;
  scan_id: string | null;
  actor: string | null;
  reason: string | null;
}

export type IssueEventRow = Selectable<IssueEventsTable>;

export interface FindingIssuesTable {
  finding_id: string;
  issue_id: string;
  baseline_state: 'new' | 'unchanged' | 'updated';
}
export interface AssetsTable {
  id: string;
  tenant_id: string;
  name: string;
  kind: string;
  value: string;
  tags: string[];
  verification_token: string;
  verification_status: Generated<string>;
  verification_method: string | null;
  verified_at: Timestamp | null;
  last_checked_at: Timestamp | null;
  last_check_error: string | null;
  proof_missing_since: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type AssetRow = Selectable<AssetsTable>;

export interface SchedulesTable {
  id: string;
  tenant_id: string;
  api_key_id: string | null;
  /** The creating key's allowedScanTypes when the schedule was written (null: every engine). */
  allowed_scan_types: string[] | null;
  name: string;
  description: string | null;
  scan: ColumnType<Record<string, unknown>, string, string>;
  template_id: string | null;
  /** Empty when the schedule selects assets (asset_ids or asset_tag). */
  targets: string[];
  /** The assets of the tenant it scans, by id (migration 0018). */
  asset_ids: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /** Every asset of the tenant carrying this tag at each run (migration 0018). */
  asset_tag: ColumnType<string | null, string | null | undefined, string | null>;
  cron: string | null;
  time_zone: string | null;
  interval_seconds: number | null;
  interval_anchor: NullableTimestamp;
  missed_run_policy: string;
  paused: boolean;
  paused_reason: string | null;
  consecutive_failures: number;
  next_run_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ScheduleRow = Selectable<SchedulesTable>;

export interface ScheduleRunsTable {
  schedule_id: string;
  occurrence_at: Timestamp;
  ran_at: Timestamp;
  outcome: string;
  scan_ids: ColumnType<string[], string[] | undefined, string[]>;
  /** `[{ target, code, message }]`: the scans of the occurrence that could not be created. */
  errors: ColumnType<unknown, string | undefined, string>;
  /** Due occurrences not run by this claim (skipped, or folded into a run_once run). */
  missed: ColumnType<number, number | undefined, number>;
}
