/**
 * The JWT context: key management and admin routes. Missing bearer → MISSING_AUTH_TOKEN, bad
 * token → INVALID_AUTH_TOKEN, admin route without role admin → ADMIN_REQUIRED. A tenant is
 * created the first time a valid token names it; a suspended tenant's tokens get TENANT_SUSPENDED
 * on tenant routes (admin routes are not tenant routes). Tenant routes count against the tenant's
 * token budget; a 401 becomes 429 when the address has used up its authentication failures.
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import type { AppDeps, AuthContext } from '../app-deps.js';
import type { AuthFailureLimiter } from './auth-failures.js';
import type { TenantTokenBudget } from './tenant-token-budget.js';

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') {
    return null;
  }
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export type BearerResult =
  | { ok: true; auth: Extract<AuthContext, { kind: 'jwt' }> }
  | { ok: false; reason: string };

/** Verifies a bearer token, provisions its tenant and refuses a suspended tenant. */
export async function authenticateBearer(
  deps: AppDeps,
  token: string,
  options: { adminRoute?: boolean } = {},
): Promise<BearerResult> {
  const verified = await deps.tokens.verify(token);
  if (!verified.ok) {
    return verified;
  }
  const { identity } = verified;
  const tenant = await deps.tenants.ensure(identity.tenantId, deps.config.defaultMonthlyScanQuota);
  if (tenant.status === 'suspended' && !options.adminRoute) {
    throw new ApiError('TENANT_SUSPENDED');
  }
  return {
    ok: true,
    auth: {
      kind: 'jwt',
      tenantId: identity.tenantId,
      subject: identity.subject,
      admin: identity.admin,
    },
  };
}

export function createJwtAuthHook(
  deps: AppDeps,
  failures: AuthFailureLimiter,
  tokenBudget: TenantTokenBudget,
): onRequestAsyncHookHandler {
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = bearerToken(request);
    if (token === null) {
      throw new ApiError('MISSING_AUTH_TOKEN');
    }
    const adminRoute = request.routeOptions.config.admin === true;
    const result = await authenticateBearer(deps, token, { adminRoute });
    if (!result.ok) {
      throw new ApiError('INVALID_AUTH_TOKEN', { reason: result.reason });
    }
    if (adminRoute && !result.auth.admin) {
      throw new ApiError('ADMIN_REQUIRED');
    }
    if (!adminRoute) {
      await tokenBudget.admit(reply, result.auth.tenantId);
    }
    request.auth = result.auth;
  }

  return async function jwtAuth(request, reply) {
    try {
      await authenticate(request, reply);
    } catch (error) {
      throw await failures.judge(request, error);
    }
  };
}
