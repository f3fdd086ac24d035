/**
 * Fixed rate-limit windows aligned to UTC clock boundaries (decisions.md, "Order of checks"), and
 * the pure arithmetic on them: which window the headers describe, and how long a client must wait.
 */

export interface WindowSpec {
  /** Name used in storage keys and reports, e.g. `minute`. */
  readonly name: string;
  /** Window length in seconds; windows start at multiples of it since the Unix epoch. */
  readonly seconds: number;
  /** Requests admitted per window. */
  readonly limit: number;
}

/** One window's state at the instant a store answered. */
export interface WindowState {
  readonly name: string;
  readonly seconds: number;
  readonly limit: number;
  /** Admitted requests counted in the current window, after this request if it was admitted. */
  readonly used: number;
  /** Unix epoch seconds at which the current window ends. */
  readonly resetAt: number;
}

/** What a store answers: whether the request was admitted (in every window at once) and the state. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** The store's clock, Unix epoch milliseconds (Redis TIME for the Redis store). */
  readonly nowMs: number;
  readonly windows: readonly WindowState[];
}

export const MINUTE = 60;
export const HOUR = 3_600;
export const DAY = 86_400;

/** The three per-key windows of the specification, in order minute, hour, UTC day. */
export function perKeyWindows(limits: {
  perMinute: number;
  perHour: number;
  perDay: number;
}): WindowSpec[] {
  return [
    { name: 'minute', seconds: MINUTE, limit: limits.perMinute },
    { name: 'hour', seconds: HOUR, limit: limits.perHour },
    { name: 'day', seconds: DAY, limit: limits.perDay },
  ];
}

/** Start (epoch seconds) of the window of `seconds` length containing `nowMs`. */
export function windowStart(nowMs: number, seconds: number): number {
  return Math.floor(nowMs / 1000 / seconds) * seconds;
}
