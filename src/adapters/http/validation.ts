/**
 * Schema validation for Fastify with two Ajv instances: bodies are never coerced (a string "60"
 * is not an integer: INVALID_FIELD_TYPE), query strings and path params are (they are text).
 * Unknown keys are never removed silently: closed objects (`additionalProperties: false`) fail.
 * `x-error-code` on a schema names the catalog code its value errors answer with, so field
 * specific codes (INVALID_SCAN_TYPE, API_KEY_NOT_FOUND for a malformed id …) live in the schema.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { ApiError, isErrorCode } from '../../domain/errors.js';

// ajv-formats is CommonJS with `export default`; under NodeNext the callable is on `.default`.
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: false,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-error-code', schemaType: 'string' });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

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

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter((part) => part !== '');
  if (extra !== undefined) {
    parts.push(extra);
  }
  return parts.join('.').replace(/~1/g, '/').replace(/~0/g, '~');
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function rank(error: ErrorObject): number {
  if (error.keyword === 'required') {
    return 0;
  }
  if (error.keyword === 'type') {
    return 1;
  }
  return 2;
}

function reasonFor(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const value = show(error.data);
  switch (error.keyword) {
    case 'enum':
      return `${value} is not one of ${(params.allowedValues as unknown[]).map(show).join(', ')}`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${value} is below the minimum of ${String(params.limit)}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${value} is above the maximum of ${String(params.limit)}`;
    case 'minLength':
      return `must be at least ${String(params.limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters long`;
    case 'minItems':
      return `must have at least ${String(params.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'pattern':
      return `${value} does not have the expected format`;
    case 'format':
      return `${value} is not a valid ${String(params.format)}`;
    case 'additionalProperties':
      return 'unknown key';
    default:
      return error.message ?? 'not allowed';
  }
}

/** Turns Ajv errors into the one error the contract wants first. */
export function toApiError(errors: readonly ErrorObject[], httpPart: string): ApiError {
  const first = [...errors].sort((a, b) => rank(a) - rank(b))[0];
  if (first === undefined) {
    return new ApiError('INVALID_FIELD_VALUE', { field: httpPart, reason: 'not allowed' });
  }
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'required') {
    return new ApiError('MISSING_REQUIRED_FIELD', {
      field: fieldPath(first.instancePath, String(params.missingProperty)),
    });
  }
  if (first.keyword === 'type') {
    const types = String(params.type)
      .split(',')
      .filter((type) => type !== 'null');
    return new ApiError('INVALID_FIELD_TYPE', {
      field: fieldPath(first.instancePath) || 'body',
      type: types[0] ?? 'object',
    });
  }
  if (first.keyword === 'additionalProperties') {
    return new ApiError('INVALID_FIELD_VALUE', {
      field: fieldPath(first.instancePath, String(params.additionalProperty)),
      reason: reasonFor(first),
    });
  }
  const field = fieldPath(first.instancePath) || httpPart;
  const special = (first.parentSchema as Record<string, unknown> | undefined)?.['x-error-code'];
  if (isErrorCode(special)) {
    return new ApiError(special, { value: show(first.data), field, reason: reasonFor(first) });
  }
  return new ApiError('INVALID_FIELD_VALUE', { field, reason: reasonFor(first) });
}
