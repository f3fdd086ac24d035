import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import { maskAddressForLimit, rateLimitExceeded } from '../../../domain/rate-limits/headers.js';
import { MINUTE, type WindowSpec } from '../../../domain/rate-limits/windows.js';
import type { ServiceMetrics } from '../../../use-cases/ports/metrics.js';
import type { RateLimitStore } from '../../rate-limit-store/rate-limit-store.js';

/**
 * Failed authentication is limited per source address (IPv6 per /64), so key guessing is slow:
 * after AUTH_FAILURES_PER_MINUTE answers of 401 in one UTC minute, the address's next requests
 * whose credentials fail (missing, malformed, unknown, revoked, expired, suspended) get 429 until
 * the minute ends. Only 401 answers count. The limit is judged after the credentials, never
 * before: a valid key or token is never refused by it, so a burst of anonymous requests from a
 * shared address (a NAT, a /64, a proxy without TRUSTED_PROXIES) cannot lock out its valid
 * clients. The price: a blocked address's guesses still cost one key lookup (or one signature
 * check) each before they are refused.
 */
export function createAuthFailureLimiter(
  store: RateLimitStore,
  perMinute: number,
  metrics: Pick<ServiceMetrics, 'rateLimited'>,
) {
  const windows: WindowSpec[] = [{ name: 'minute', seconds: MINUTE, limit: perMinute }];
  const bucketOf = (request: FastifyRequest) => `authfail:${maskAddressForLimit(request.ip)}`;
  return {
    /**
     * What an authentication step's error becomes: a 401 of an address that has used up its
     * failures becomes 429 RATE_LIMIT_EXCEEDED (with Retry-After); anything else stays as it is.
     */
    async judge(request: FastifyRequest, error: unknown): Promise<unknown> {
      if (!(error instanceof ApiError) || error.status !== 401) {
        return error;
      }
      const decision = await store.peek(bucketOf(request), windows);
      if (decision.allowed) {
        return error;
      }
      metrics.rateLimited('auth_failures');
      return rateLimitExceeded(decision);
    },
    /** onResponse hook: counts a 401 against its address (synchronous unless it is a 401). */
    countFailure(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      if (reply.statusCode === 401) {
        store.consume(bucketOf(request), windows).catch((error: unknown) => {
          request.log.warn({ err: error }, 'could not count an authentication failure');
        });
      }
      done();
    },
  };
}

export type AuthFailureLimiter = ReturnType<typeof createAuthFailureLimiter>;
