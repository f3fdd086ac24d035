import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { RateLimitStoreUnavailableError } from '../rate-limit-store/rate-limit-store.js';

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
    return new ApiError('SERVICE_UNAVAILABLE', { reason: 'the rate limiter is unavailable' });
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

export function errorHandler(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const apiError = toApiErrorOf(error);
  if (apiError) {
    if (apiError.status >= 500) {
      request.log.warn({ code: apiError.code, err: error }, 'request failed');
    }
    return sendApiError(reply, apiError);
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendApiError(reply, new ApiError('INTERNAL_ERROR'));
}
