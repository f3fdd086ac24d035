import type { RateLimitDecision, WindowSpec } from '../../domain/rate-limits/windows.js';

/**
 * Counters for fixed, UTC-aligned windows. Both implementations admit a request in all windows at
 * once or in none (a denied request consumes nothing), so parallel bursts cannot overshoot.
 */
export interface RateLimitStore {
  /** Admit and count one request in every window, or deny it and count nothing. */
  consume(bucket: string, windows: readonly WindowSpec[]): Promise<RateLimitDecision>;
  /** The current state without counting anything (`allowed` says whether a consume would pass). */
  peek(bucket: string, windows: readonly WindowSpec[]): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** Raised when the shared store cannot be reached; the HTTP layer answers 503 SERVICE_UNAVAILABLE. */
export class RateLimitStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RateLimitStoreUnavailableError';
  }
}
