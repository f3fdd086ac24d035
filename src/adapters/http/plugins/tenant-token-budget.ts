import type { FastifyReply } from 'fastify';
import { rateLimitExceeded } from '../../../domain/rate-limits/headers.js';
import { MINUTE, type WindowSpec } from '../../../domain/rate-limits/windows.js';
import type { ServiceMetrics } from '../../../use-cases/ports/metrics.js';
import type { RateLimitStore } from '../../rate-limit-store/rate-limit-store.js';
import { setRateLimitHeaders } from './rate-limit-reply.js';

/**
 * The request budget of a tenant's dashboard tokens: every request authenticated by a JWT of the
 * tenant, on tenant routes and key-management routes alike, counts in one UTC-minute window of
 * TENANT_TOKEN_REQUESTS_PER_MINUTE shared by all of the tenant's tokens (a JWT skips the per-key
 * limits). The same store and the same semantics as a key's limits: admitted atomically or not at
 * all (a 429 consumes nothing), `X-RateLimit-*` on every answer, 429 RATE_LIMIT_EXCEEDED with
 * `Retry-After`. Admin routes are not tenant routes and do not count.
 */
export function createTenantTokenBudget(
  store: RateLimitStore,
  perMinute: number,
  metrics: Pick<ServiceMetrics, 'rateLimited'>,
) {
  const windows: WindowSpec[] = [{ name: 'minute', seconds: MINUTE, limit: perMinute }];
  return {
    /** Counts the request against the tenant's budget; throws 429 when it is used up. */
    async admit(reply: FastifyReply, tenantId: string): Promise<void> {
      const decision = await store.consume(`tenant-token:${tenantId}`, windows);
      setRateLimitHeaders(reply, decision);
      if (!decision.allowed) {
        metrics.rateLimited('tenant_token');
        throw rateLimitExceeded(decision);
      }
    },
  };
}

export type TenantTokenBudget = ReturnType<typeof createTenantTokenBudget>;
