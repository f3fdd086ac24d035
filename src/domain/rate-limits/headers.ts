/**
 * What clients see of the rate limiter: the `X-RateLimit-*` values describe the window nearest
 * to exhaustion (lowest remaining; ties: shortest window), and a 429's `Retry-After` waits for the
 * last exhausted window, so a client that obeys it is not refused again at once.
 */
import ipaddr from 'ipaddr.js';
import { ApiError } from '../errors.js';
import { isCanonicalIPv4 } from '../network/ip-allowlist.js';
import type { RateLimitDecision } from './windows.js';

export interface RateLimitHeaderValues {
  readonly limit: number;
  readonly remaining: number;
  /** Unix epoch seconds at which the reported window resets. */
  readonly reset: number;
}

/** Header values for a decision. @example rateLimitHeaders(d) // { limit: 60, remaining: 59, reset: 1795000020 } */
export function rateLimitHeaders(decision: RateLimitDecision): RateLimitHeaderValues {
  let best: RateLimitHeaderValues | null = null;
  let bestSeconds = Number.POSITIVE_INFINITY;
  for (const window of decision.windows) {
    const remaining = Math.max(0, window.limit - window.used);
    if (
      best === null ||
      remaining < best.remaining ||
      (remaining === best.remaining && window.seconds < bestSeconds)
    ) {
      best = { limit: window.limit, remaining, reset: window.resetAt };
      bestSeconds = window.seconds;
    }
  }
  return best ?? { limit: 0, remaining: 0, reset: Math.ceil(decision.nowMs / 1000) };
}

/** Whole seconds until every exhausted window has room again (at least 1). */
export function retryAfterSeconds(decision: RateLimitDecision): number {
  let seconds = 1;
  for (const window of decision.windows) {
    if (window.used >= window.limit) {
      seconds = Math.max(seconds, Math.ceil((window.resetAt * 1000 - decision.nowMs) / 1000));
    }
  }
  return seconds;
}

/** The 429 for a denied decision: `Retry-After` and the message carry the same N. */
export function rateLimitExceeded(decision: RateLimitDecision): ApiError {
  const seconds = retryAfterSeconds(decision);
  return new ApiError(
    'RATE_LIMIT_EXCEEDED',
    { seconds },
    { headers: { 'retry-after': String(seconds) } },
  );
}

/**
 * The bucket of a source address for per-address limits: IPv4 (also when IPv4-mapped) as is,
 * IPv6 by its /64, since one client usually owns a whole /64.
 */
export function maskAddressForLimit(address: string): string {
  // The usual peer is a canonical dotted-quad IPv4 address: it is its own bucket, without a parse
  // per request (ipaddr.js was about 1 % of the server's CPU in the issue 2 benchmark profile).
  if (isCanonicalIPv4(address)) {
    return address;
  }
  if (!ipaddr.isValid(address)) {
    return address;
  }
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') {
    return parsed.toString();
  }
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  const network = new ipaddr.IPv6([...parts, 0, 0, 0, 0]);
  return `${network.toString()}/64`;
}
