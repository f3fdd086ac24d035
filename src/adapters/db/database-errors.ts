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

/**
 * `pg`'s own messages for a lost connection or a timeout (pg 8.23, pg-pool 3.14): the connection
 * cut (`Connection terminated unexpectedly`), a pool connect that timed out (`Connection terminated
 * due to connection timeout`), a wait for a pooled client that did (`timeout exceeded when trying
 * to connect`), a lone client's connect that did (`timeout expired`), the client-side read timeout.
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^timeout expired$/,
  /^Query read timeout/,
  /is not queryable/,
];

function codeOf(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** `error` and the errors it wraps (`cause`, an AggregateError's `errors`), a few levels deep. */
function chainOf(error: unknown): object[] {
  const chain: object[] = [];
  const visit = (current: unknown, depth: number): void => {
    if (typeof current !== 'object' || current === null || depth > 4 || chain.includes(current)) {
      return;
    }
    chain.push(current);
    visit((current as { cause?: unknown }).cause, depth + 1);
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      for (const each of errors) {
        visit(each, depth + 1);
      }
    }
  };
  visit(error, 0);
  return chain;
}

function saysUnavailable(error: object): boolean {
  const code = codeOf(error);
  if (
    code !== undefined &&
    (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_SYSTEM_CODES.has(code))
  ) {
    return true;
  }
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))
  );
}

/** A SQLSTATE from either driver: five characters, on an error that carries a severity. */
function saysSqlState(error: object): boolean {
  const code = codeOf(error);
  return (
    code !== undefined &&
    /^[0-9A-Z]{5}$/.test(code) &&
    ((error as { severity?: unknown }).severity !== undefined ||
      error.constructor.name === 'DatabaseError')
  );
}

/** Whether `error` (or an error it wraps) says the database cannot be reached now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return chainOf(error).some(saysUnavailable);
}

/**
 * Whether `error` (or an error it wraps) came from the database at all: a SQLSTATE from either
 * driver, or unavailability. Other errors are the service's own bugs (500 INTERNAL_ERROR).
 */
export function isDatabaseError(error: unknown): boolean {
  return chainOf(error).some((each) => saysUnavailable(each) || saysSqlState(each));
}
