/**
 * Schema validation for Fastify, with the service's one Ajv configuration (domain/validation/ajv.ts):
 * bodies are never coerced (a string "60" is not an integer: INVALID_FIELD_TYPE), query strings
 * and path params are (they are text). Unknown keys are never removed silently: closed objects
 * (`additionalProperties: false`) fail. `x-error-code` on a schema names the catalog code its
 * value errors answer with, so field specific codes (INVALID_SCAN_TYPE, API_KEY_NOT_FOUND for a
 * malformed id …) live in the schema.
 */
import type { ValidateFunction } from 'ajv';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { bodyAjv, createAjv } from '../../domain/validation/ajv.js';
import { toApiError } from '../../domain/validation/schema-errors.js';

const textAjv = createAjv({ coerceTypes: true, useDefaults: false });

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  const validate: ValidateFunction = ajv.compile(schema as object);
  return (data: unknown) => {
    if (validate(data)) {
      return { value: data };
    }
    return { error: toApiError(validate.errors ?? [], httpPart ?? 'body') };
  };
};

/**
 * For routes whose use case checks the body with the schema the route documents
 * (scan-request-schema.ts, template-schema.ts), because the contract's order of checks
 * interleaves the body with context: the caller's key (SCAN_TYPE_NOT_ALLOWED comes between
 * INVALID_SCAN_TYPE and INVALID_PRIORITY), or a template's name before any other field. Fastify
 * then only documents the body; params and query strings are validated as usual.
 */
export const useCaseChecksBody: FastifySchemaCompiler<FastifySchema> = (route) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route);
