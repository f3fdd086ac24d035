/**
 * A tenant's cap on running scans (fair claims, adapters/queue/claim-scans.ts): the service
 * default (TENANT_MAX_RUNNING_SCANS) or the tenant's own, set by an admin, within 1..this.
 */
export const MAX_RUNNING_SCANS_CAP = 10_000;
