import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { MAX_RUNNING_SCANS_CAP } from '../../../../domain/tenants/running-scans-cap.js';
import {
  setTenantMaxRunningScans,
  setTenantQuota,
  setTenantStatus,
} from '../../../../use-cases/tenants/manage-tenants.js';
import type { AppDeps } from '../../app-deps.js';
import { TenantIdParams, TenantView } from '../../schemas/api-key.js';
import { BODY_CODES, errorResponses, JWT_AUTH_CODES, success } from '../../schemas/envelope.js';

const TenantResponse = success(Type.Object({ tenant: Type.Ref(TenantView) }));
const ADMIN_CODES = [...JWT_AUTH_CODES, 'ADMIN_REQUIRED', 'TENANT_NOT_FOUND'] as const;

/** POST /api/v1/admin/tenants/:tenantId/suspend and /reinstate (admin JWT). */
export function registerTenantSuspension(app: FastifyInstance, deps: AppDeps): void {
  for (const action of ['suspend', 'reinstate'] as const) {
    app.post<{ Params: { tenantId: string } }>(
      `/api/v1/admin/tenants/:tenantId/${action}`,
      {
        config: { admin: true },
        schema: {
          operationId: action === 'suspend' ? 'suspendTenant' : 'reinstateTenant',
          summary: action === 'suspend' ? 'Suspend a tenant' : 'Reinstate a suspended tenant',
          description:
            action === 'suspend'
              ? 'Its keys and tokens are refused (403 TENANT_SUSPENDED), its running scans stop at once (failed, error code TENANT_SUSPENDED), and its queued scans wait, unclaimed, until it is reinstated.'
              : 'Its keys and tokens work again and its queued scans are claimed again.',
          tags: ['admin'],
          security: [{ bearerAuth: [] }],
          params: TenantIdParams,
          response: { 200: TenantResponse, ...errorResponses(...ADMIN_CODES) },
        },
      },
      async (request) => {
        const status = action === 'suspend' ? 'suspended' : 'active';
        const tenant = await setTenantStatus(deps, request.params.tenantId, status);
        return { success: true, data: { tenant } };
      },
    );
  }
}

/** PUT /api/v1/admin/tenants/:tenantId/quota (admin JWT). */
export function registerTenantQuota(app: FastifyInstance, deps: AppDeps): void {
  app.put<{ Params: { tenantId: string }; Body: { monthlyScanQuota: number } }>(
    '/api/v1/admin/tenants/:tenantId/quota',
    {
      config: { admin: true },
      schema: {
        operationId: 'setTenantQuota',
        summary: "Set a tenant's monthly scan quota (0: no more scans)",
        tags: ['admin'],
        security: [{ bearerAuth: [] }],
        params: TenantIdParams,
        body: Type.Object({ monthlyScanQuota: Type.Integer({ minimum: 0, maximum: 10_000_000 }) }),
        response: { 200: TenantResponse, ...errorResponses(...ADMIN_CODES, ...BODY_CODES) },
      },
    },
    async (request) => {
      const tenant = await setTenantQuota(
        deps.tenants,
        request.params.tenantId,
        request.body.monthlyScanQuota,
      );
      return { success: true, data: { tenant } };
    },
  );
}

/**
 * PUT /api/v1/admin/tenants/:tenantId/max-running-scans (admin JWT; an extension): the tenant's
 * cap on running scans, or null for the service default (TENANT_MAX_RUNNING_SCANS).
 */
export function registerTenantMaxRunningScans(app: FastifyInstance, deps: AppDeps): void {
  app.put<{ Params: { tenantId: string }; Body: { maxRunningScans: number | null } }>(
    '/api/v1/admin/tenants/:tenantId/max-running-scans',
    {
      config: { admin: true },
      schema: {
        operationId: 'setTenantMaxRunningScans',
        summary: "Set a tenant's cap on running scans (null: the service default)",
        description:
          "Workers run at most this many of the tenant's scans at once (sentinel children included); its other scans wait in the queue while tenants take turns. null returns the tenant to TENANT_MAX_RUNNING_SCANS. A lower cap does not stop scans already running.",
        tags: ['admin'],
        security: [{ bearerAuth: [] }],
        params: TenantIdParams,
        body: Type.Object({
          maxRunningScans: Type.Union([
            Type.Integer({ minimum: 1, maximum: MAX_RUNNING_SCANS_CAP }),
            Type.Null(),
          ]),
        }),
        response: { 200: TenantResponse, ...errorResponses(...ADMIN_CODES, ...BODY_CODES) },
      },
    },
    async (request) => {
      const tenant = await setTenantMaxRunningScans(
        deps.tenants,
        request.params.tenantId,
        request.body.maxRunningScans,
      );
      return { success: true, data: { tenant } };
    },
  );
}
