import { ApiError } from '../../domain/errors.js';
import type { ServiceMetrics } from '../ports/metrics.js';
import type { Tenant, TenantStore } from '../ports/tenants.js';

/**
 * Suspends or reinstates a tenant (admin); repeating either is harmless. Suspending stops the
 * tenant's running scans (failed, TENANT_SUSPENDED); its queued scans wait until it is reinstated.
 */
export async function setTenantStatus(
  deps: { readonly tenants: TenantStore; readonly metrics: Pick<ServiceMetrics, 'scanFinished'> },
  tenantId: string,
  status: Tenant['status'],
): Promise<Tenant> {
  const changed = await deps.tenants.setStatus(tenantId, status);
  if (!changed) {
    throw new ApiError('TENANT_NOT_FOUND');
  }
  for (const scan of changed.stopped) {
    deps.metrics.scanFinished(scan.engine, scan.priority, 'failed', null);
  }
  return changed.tenant;
}

/** Sets a tenant's monthly scan quota (admin); 0 stops new scans. */
export async function setTenantQuota(
  tenants: TenantStore,
  tenantId: string,
  monthlyScanQuota: number,
): Promise<Tenant> {
  const tenant = await tenants.setQuota(tenantId, monthlyScanQuota);
  if (!tenant) {
    throw new ApiError('TENANT_NOT_FOUND');
  }
  return tenant;
}

/**
 * Sets a tenant's cap on running scans (admin); null returns it to the service default
 * (TENANT_MAX_RUNNING_SCANS).
 */
export async function setTenantMaxRunningScans(
  tenants: TenantStore,
  tenantId: string,
  maxRunningScans: number | null,
): Promise<Tenant> {
  const tenant = await tenants.setMaxRunningScans(tenantId, maxRunningScans);
  if (!tenant) {
    throw new ApiError('TENANT_NOT_FOUND');
  }
  return tenant;
}
