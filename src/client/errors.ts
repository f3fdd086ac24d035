/**
 * The error every failed call of the typed client throws: the contract's error envelope
 * `{ success: false, error, code }` with the HTTP status and, on 429 and 503, Retry-After.
 */
import type { components } from './schema.js';

/** The codes the service answers with (the ErrorEnvelope schema of the served document). */
export type RampartErrorCode = components['schemas']['ErrorEnvelope']['code'];

/**
 * Set by the client, not the service: an answer that is not a 2xx and not the error envelope
 * (a proxy's 502 page, say).
 */
export const UNEXPECTED_RESPONSE = 'UNEXPECTED_RESPONSE';

export class RampartApiError extends Error {
  override readonly name = 'RampartApiError';

  constructor(
    /** The envelope's `code`, or UNEXPECTED_RESPONSE when the answer carried no envelope. */
    readonly code: RampartErrorCode | typeof UNEXPECTED_RESPONSE,
    /** The envelope's `error`: the service's message, never a stack. */
    message: string,
    /** The HTTP status of the answer. */
    readonly status: number,
    /** Seconds to wait before trying again (the Retry-After header), when the answer gave it. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

function isEnvelope(body: unknown): body is { success: false; error: string; code: string } {
  if (typeof body !== 'object' || body === null) {
    return false;
  }
  const { success, error, code } = body as Record<string, unknown>;
  return success === false && typeof error === 'string' && typeof code === 'string';
}

/** Retry-After in seconds; the HTTP-date form is turned into seconds from now (at least 0). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') {
    return null;
  }
  if (/^\d+$/.test(value.trim())) {
    return Number(value.trim());
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The RampartApiError of a non-2xx answer whose body has been read (`body`: parsed JSON or null). */
export function apiErrorOf(status: number, headers: Headers, body: unknown, statusText = '') {
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  if (isEnvelope(body)) {
    return new RampartApiError(body.code as RampartErrorCode, body.error, status, retryAfter);
  }
  const reason = statusText ? ` ${statusText}` : '';
  return new RampartApiError(
    UNEXPECTED_RESPONSE,
    `Unexpected answer: HTTP ${status}${reason}`,
    status,
    retryAfter,
  );
}

/** The RampartApiError a non-2xx answer stands for (reads the answer's body). */
export async function apiErrorFrom(response: Response): Promise<RampartApiError> {
  let body: unknown = null;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = null;
  }
  return apiErrorOf(response.status, response.headers, body, response.statusText);
}
