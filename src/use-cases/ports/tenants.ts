/**
 * The tenant store: a tenant's status, monthly quota and cap on running scans.
 */
export interface Tenant {
  readonly id: string;
  readonly status: 'active' | 'suspended';
  readonly monthlyScanQuota: number;
  /** Scans it may have running at once; null: the service default (TENANT_MAX_RUNNING_SCANS). */
  readonly maxRunningScans: number | null;
}

/** A running scan a suspension failed: its engine and priority. */
export interface StoppedScan {
  readonly engine: string;
  readonly priority: string;
}

export interface TenantStore {
  /** Returns the tenant, creating it (active, with this quota) the first time it is named. */
  ensure(id: string, monthlyScanQuota: number): Promise<Tenant>;
  get(id: string): Promise<Tenant | null>;
  /**
   * Suspending also stops the tenant's running scans (they fail with TENANT_SUSPENDED): `stopped`
   * names them.
   */
  setStatus(
    id: string,
    status: Tenant['status'],
  ): Promise<{ readonly tenant: Tenant; readonly stopped: readonly StoppedScan[] } | null>;
  setQuota(id: string, monthlyScanQuota: number): Promise<Tenant | null>;
  /** null: back to the service default. */
  setMaxRunningScans(id: string, maxRunningScans: number | null): Promise<Tenant | null>;
}
