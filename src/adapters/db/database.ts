import type { ColumnType, Selectable } from 'kysely';

/** Row types of every table, gathered for Kysely. Column names are the SQL ones (snake_case). */
export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
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
