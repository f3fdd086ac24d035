/**
 * The tenant store: a tenant's status and monthly quota.
 */
export interface Tenant {
  readonly id: string;
  readonly status: 'active' | 'suspended';
  readonly monthlyScanQuota: number;
}

export interface TenantStore {
  /** Returns the tenant, creating it (active, with this quota) the first time it is named. */
  ensure(id: string, monthlyScanQuota: number): Promise<Tenant>;
  get(id: string): Promise<Tenant | null>;
  setStatus(id: string, status: Tenant['status']): Promise<Tenant | null>;
  setQuota(id: string, monthlyScanQuota: number): Promise<Tenant | null>;
}
