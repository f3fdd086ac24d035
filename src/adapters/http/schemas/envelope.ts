import { type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from '../../../domain/errors.js';

/** `{ success: true, data }`: the success envelope of the specification. */
export function success<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false });
}

/** `{ success: false, error, code }`; `code` lists every code of the catalog. */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ enum: [...ERROR_CODES], description: 'Stable machine-readable code' }),
  },
  { $id: 'ErrorEnvelope', additionalProperties: false },
);

const ErrorRef = Type.Ref('ErrorEnvelope');

/**
 * Codes any route that reads or writes the database can answer with: 503 SERVICE_UNAVAILABLE (with
 * `Retry-After`) while the database is not answering, 500 DATABASE_ERROR when it fails otherwise.
 */
export const DATABASE_CODES: ErrorCode[] = ['SERVICE_UNAVAILABLE', 'DATABASE_ERROR'];

/**
 * Response headers, as a route's response schema gives them: @fastify/swagger takes each header as
 * a plain JSON schema and writes it as `{ schema, description }` in the document.
 */
const RETRY_AFTER_RATE_LIMIT = {
  'Retry-After': {
    type: 'integer' as const,
    minimum: 1,
    description: 'Whole seconds until the exhausted limit has room again',
  },
};

const DATABASE_RETRY_AFTER = {
  'Retry-After': {
    type: 'integer' as const,
    minimum: 1,
    description: 'Whole seconds to wait before retrying; sent while the database is not answering',
  },
};

/**
 * Response schemas for the statuses these codes answer with, each described by its codes (each
 * once); a 429 documents `Retry-After` (and the `X-RateLimit-*` values of the key's windows, when
 * the limiter got that far), the 503 of a route that touches the database (DATABASE_CODES) too.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const touchesDatabase = DATABASE_CODES.every((code) => codes.includes(code));
  const out: Record<number, TSchema> = {};
  for (const [status, list] of byStatus) {
    const headers =
      status === 429
        ? { ...RETRY_AFTER_RATE_LIMIT, ...RATE_LIMIT_HEADERS }
        : status === 503 && touchesDatabase
          ? DATABASE_RETRY_AFTER
          : undefined;
    out[status] = Type.Unsafe({
      ...ErrorRef,
      description: list.join(', '),
      ...(headers === undefined ? {} : { headers }),
    });
  }
  return out;
}

/** Codes any API-key route can answer with before its own logic runs. */
export const API_KEY_AUTH_CODES: ErrorCode[] = [
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'KEY_EXPIRED',
  'KEY_REVOKED',
  'KEY_SUSPENDED',
  'TENANT_SUSPENDED',
  'IP_NOT_ALLOWED',
  'INSUFFICIENT_SCOPE',
  'RATE_LIMIT_EXCEEDED',
  // The key lookup reads the database; SERVICE_UNAVAILABLE is also the rate limiter's store away.
  ...DATABASE_CODES,
];

/** Codes any JWT route can answer with before its own logic runs. */
export const JWT_AUTH_CODES: ErrorCode[] = [
  'MISSING_AUTH_TOKEN',
  'INVALID_AUTH_TOKEN',
  'TENANT_SUSPENDED',
  'RATE_LIMIT_EXCEEDED',
  // The tenant check reads the database.
  ...DATABASE_CODES,
];

/** Codes the body parser can answer with on routes that take a body. */
export const BODY_CODES: ErrorCode[] = [
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'MISSING_REQUIRED_FIELD',
  'INVALID_FIELD_TYPE',
  'INVALID_FIELD_VALUE',
];

/** The per-key (or per-tenant token budget) limiter's values, on every answer it let through. */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    type: 'integer' as const,
    minimum: 0,
    description: 'Requests allowed in the window nearest exhaustion',
  },
  'X-RateLimit-Remaining': {
    type: 'integer' as const,
    minimum: 0,
    description: 'Requests left in that window',
  },
  'X-RateLimit-Reset': {
    type: 'integer' as const,
    description: 'Unix epoch seconds when that window resets',
  },
};

/** Tenant routes take an API key or a dashboard JWT. */
export const TENANT_SECURITY: Array<Record<string, string[]>> = [
  { apiKey: [] },
  { bearerAuth: [] },
];

/** A tenant route's success: the envelope around `data`, with the rate-limit headers. */
export const tenantOk = <T extends Parameters<typeof success>[0]>(data: T) => ({
  ...success(data),
  headers: RATE_LIMIT_HEADERS,
});

/** A tenant route's error answers: the key/JWT authentication codes and `codes`. */
export const tenantErrors = (...codes: ErrorCode[]) =>
  errorResponses(...API_KEY_AUTH_CODES, ...codes);
