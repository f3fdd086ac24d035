import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { isDatabaseError, isDatabaseUnavailable } from '../db/database-errors.js';
import { DATABASE_NOT_ANSWERING } from '../db/database-health.js';
import { RateLimitStoreUnavailableError } from '../rate-limit-store/rate-limit-store.js';

/**
 * `Retry-After` of a 503 while the database (or the rate limiter's Redis) is not answering. A
 * restart or a failover of a managed server takes seconds; a client that waits this long is not
 * piling onto a pool that is still timing out, and one that was refused at once does not spin.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** Fastify's own errors that have a contract code (checked against fastify 5.12). */
const FASTIFY_ERRORS: Record<string, () => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new ApiError('INVALID_JSON'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ApiError('INVALID_JSON'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError('PAYLOAD_TOO_LARGE'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new ApiError(
      'INVALID_JSON',
      {},
      { message: 'Request body must be JSON (Content-Type: application/json)' },
    ),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new ApiError('INVALID_JSON', {}, { message: 'Request body does not match its Content-Length' }),
};

/** Maps anything thrown during a request to the error envelope; no stack or path ever leaves. */
export function toApiErrorOf(error: unknown): ApiError | null {
  if (error instanceof ApiError) {
    return error;
  }
  if (error instanceof RateLimitStoreUnavailableError) {
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      { reason: 'the rate limiter is unavailable' },
      { headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) }, cause: error },
    );
  }
  const fastifyError = error as Partial<FastifyError>;
  if (
    fastifyError.validation !== undefined &&
    error instanceof Error &&
    error.cause instanceof ApiError
  ) {
    return error.cause;
  }
  const mapped =
    typeof fastifyError.code === 'string' ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (mapped) {
    return mapped();
  }
  if (fastifyError.statusCode === 413) {
    return new ApiError('PAYLOAD_TOO_LARGE');
  }
  if (
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode === 400 &&
    error instanceof SyntaxError
  ) {
    return new ApiError('INVALID_JSON');
  }
  return null;
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .send({ success: false, error: error.message, code: error.code });
}

/**
 * A failed database call as the contract answers it: 503 SERVICE_UNAVAILABLE with `Retry-After`
 * while the database is away (refused, cut, timed out), 500 DATABASE_ERROR for anything else the
 * database said; null when the error did not come from the database.
 */
export function fromDatabaseError(error: unknown): ApiError | null {
  if (isDatabaseUnavailable(error)) {
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      { reason: DATABASE_NOT_ANSWERING },
      { headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) }, cause: error },
    );
  }
  if (isDatabaseError(error)) {
    return new ApiError('DATABASE_ERROR', {}, { cause: error });
  }
  return null;
}

/**
 * What a log line may hold of a database error: its message and codes, never the whole object
 * (`pg` errors carry the failing row's values in `detail`, and pool errors the client with its
 * connection settings, password included).
 */
function databaseErrorForLog(error: unknown, withStack: boolean): Record<string, unknown> {
  const fields = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    table?: unknown;
    constraint?: unknown;
    stack?: unknown;
  };
  return {
    type: typeof fields.name === 'string' ? fields.name : 'Error',
    message: typeof fields.message === 'string' ? fields.message : String(error),
    ...(typeof fields.code === 'string' ? { code: fields.code } : {}),
    ...(typeof fields.table === 'string' ? { table: fields.table } : {}),
    ...(typeof fields.constraint === 'string' ? { constraint: fields.constraint } : {}),
    ...(withStack && typeof fields.stack === 'string' ? { stack: fields.stack } : {}),
  };
}

/**
 * The error handler of every Fastify app of the service. A socket error that reaches it is the
 * database's: the other I/O of requests answers in its own terms (the rate limiter's store as
 * RateLimitStoreUnavailableError, DNS and webhook checks as results).
 */
export function errorHandler(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const apiError = toApiErrorOf(error);
  if (apiError) {
    if (apiError.status >= 500) {
      // An answer the service chose (the rate limiter or a worker is away, not ready): its code and
      // message say it all; a stack would be one per request or probe for as long as it lasts.
      request.log.warn({ code: apiError.code, error: apiError.message }, 'request failed');
    }
    return sendApiError(reply, apiError);
  }
  const databaseError = fromDatabaseError(error);
  if (databaseError) {
    // One line per request: an outage at warn without a stack (it is not a bug), any other
    // database failure at error with one.
    if (databaseError.code === 'SERVICE_UNAVAILABLE') {
      request.log.warn(
        { code: databaseError.code, db: databaseErrorForLog(error, false) },
        'database not answering',
      );
    } else {
      request.log.error(
        { code: databaseError.code, db: databaseErrorForLog(error, true) },
        'database operation failed',
      );
    }
    return sendApiError(reply, databaseError);
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendApiError(reply, new ApiError('INTERNAL_ERROR'));
}

/** The 404 of every Fastify app of the service, in the envelope. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendApiError(
    reply,
    new ApiError('NOT_FOUND', { method: request.method, path: request.url.split('?')[0] ?? '' }),
  );
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any route or hook runs. A path
 * whose percent-escapes do not decode (`/api/v1/scans/%E0%A4%A`) or whose parameter is longer
 * than the router keeps names no route that could be found, so it is the contract's 404
 * NOT_FOUND ("no such route"; decisions.md: a malformed id in a path is never a 400 or 500),
 * answered, like every unknown route, without authentication. Anything else goes to the error
 * handler.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  reply.header('x-request-id', request.id);
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return notFoundHandler(request, reply);
  }
  return errorHandler(error, request, reply);
}
