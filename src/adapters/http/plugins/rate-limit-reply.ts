import type { FastifyReply } from 'fastify';
import { rateLimitHeaders } from '../../../domain/rate-limits/headers.js';
import type { RateLimitDecision } from '../../../domain/rate-limits/windows.js';

/** `X-RateLimit-Limit`, `-Remaining` and `-Reset` of a decision (the window nearest exhaustion). */
export function setRateLimitHeaders(reply: FastifyReply, decision: RateLimitDecision): void {
  const headers = rateLimitHeaders(decision);
  reply.header('x-ratelimit-limit', headers.limit);
  reply.header('x-ratelimit-remaining', headers.remaining);
  reply.header('x-ratelimit-reset', headers.reset);
}
