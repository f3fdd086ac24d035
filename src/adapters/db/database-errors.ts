/**
 * What a failed database call means for its caller: the database being away for now (a connection
 * refused, reset or cut, a server shutting down or restarting, a timeout) is temporary and worth
 * retrying or answering 503; anything else the database said (a constraint, a syntax error, a full
 * disk) is a real failure. Both drivers' shapes are read: `pg` (SQLSTATE `code`, Node's socket
 * errors, its own timeout and termination messages) and PGlite (SQLSTATE `code`).
 */

/** SQLSTATE codes and classes that mean "not now", not "no". */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the backend was terminated (pg_terminate_backend, server stop)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or shutting down
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout (the database is too slow to answer now)
]);

/** Node socket errors met when the server or the path to it is gone. */
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** `pg`'s own messages for a lost connection or a timeout (pg 8). */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable/,
  /^Client was closed and is not queryable/,
];

function codeOf(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `error` (or an error it wraps) says the database cannot be reached now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; depth < 5; depth += 1) {
    if (typeof current !== 'object' || current === null) {
      return false;
    }
    const code = codeOf(current);
    if (code !== undefined) {
      if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) {
        return true;
      }
      if (UNAVAILABLE_SYSTEM_CODES.has(code)) {
        return true;
      }
    }
    const message = (current as { message?: unknown }).message;
    if (
      typeof message === 'string' &&
      UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whether `error` came from the database at all: a SQLSTATE (five characters) from either driver,
 * or unavailability. Other errors are the service's own bugs (500 INTERNAL_ERROR).
 */
export function isDatabaseError(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) {
    return true;
  }
  if (typeof error !== 'object' || error === null) {
    return false;
  }
  const code = codeOf(error);
  return (
    code !== undefined &&
    /^[0-9A-Z]{5}$/.test(code) &&
    ((error as { severity?: unknown }).severity !== undefined ||
      error.constructor.name === 'DatabaseError')
  );
}
