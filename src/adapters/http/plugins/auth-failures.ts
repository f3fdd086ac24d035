import type { FastifyReply, FastifyRequest } from 'fastify';
import { maskAddressForLimit, rateLimitExceeded } from '../../../domain/rate-limits/headers.js';
import { MINUTE, type WindowSpec } from '../../../domain/rate-limits/windows.js';
import type { RateLimitStore } from '../../rate-limit-store/rate-limit-store.js';

/**
 * Failed authentication is limited per source address (IPv6 per /64), so key guessing is slow:
 * after AUTH_FAILURES_PER_MINUTE answers of 401 in one UTC minute, the address's next requests get
 * 429 until the minute ends. Only 401 answers count.
 */
export function createAuthFailureLimiter(store: RateLimitStore, perMinute: number) {
  const windows: WindowSpec[] = [{ name: 'minute', seconds: MINUTE, limit: perMinute }];
  const bucketOf = (request: FastifyRequest) => `authfail:${maskAddressForLimit(request.ip)}`;
  return {
    /** Throws 429 RATE_LIMIT_EXCEEDED when the address has used up its failures. */
    async assertNotBlocked(request: FastifyRequest): Promise<void> {
      const decision = await store.peek(bucketOf(request), windows);
      if (!decision.allowed) {
        throw rateLimitExceeded(decision);
      }
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
