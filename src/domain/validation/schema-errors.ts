/**
 * Turns JSON Schema (Ajv) errors into the contract's errors, in the order it reports them: a
 * missing field before a wrong type (top-level first) before a wrong value (decisions.md, "Order
 * of checks", step 6). Field names are dotted paths (`options.timing`).
 * `x-error-code` on a schema names the catalog code its value errors answer with
 * (INVALID_SCAN_TYPE, API_KEY_NOT_FOUND for a malformed id …); `x-reason` replaces the generic
 * reason of its value errors.
 */
import type { ErrorObject } from 'ajv';
import { ApiError, isErrorCode } from '../errors.js';

function fieldPath(instancePath: string, extra?: string, prefix?: string): string {
  const parts = instancePath.split('/').filter((part) => part !== '');
  if (extra !== undefined) {
    parts.push(extra);
  }
  if (prefix !== undefined) {
    parts.unshift(prefix);
  }
  return parts.join('.').replace(/~1/g, '/').replace(/~0/g, '~');
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** 0: a missing field, 1: a wrong type, 2: a wrong value (the order errors are reported in). */
export function errorRank(error: ErrorObject): number {
  if (error.keyword === 'required') {
    return 0;
  }
  if (error.keyword === 'type') {
    return 1;
  }
  return 2;
}

function depth(error: ErrorObject): number {
  return error.instancePath.split('/').length;
}

/**
 * The errors in the order the contract reports them: by rank; a missing field or wrong type at
 * the top level before one inside a field (`tags` before `tags.1`); otherwise in the schema's
 * order, which a stable sort keeps.
 */
function ranked(errors: readonly ErrorObject[]): ErrorObject[] {
  return [...errors].sort(
    (a, b) => errorRank(a) - errorRank(b) || (errorRank(a) < 2 ? depth(a) - depth(b) : 0),
  );
}

function schemaOf(error: ErrorObject): Record<string, unknown> {
  return (error.parentSchema as Record<string, unknown> | undefined) ?? {};
}

function reasonFor(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const value = show(error.data);
  const reason = schemaOf(error)['x-reason'];
  if (typeof reason === 'string') {
    return reason.replace('<value>', value);
  }
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
    case 'x-max-json-bytes':
      return `must be at most ${String(error.schema)} bytes of JSON`;
    default:
      return error.message ?? 'not allowed';
  }
}

/** One Ajv error as the contract's error. */
function toError(error: ErrorObject, httpPart: string, prefix?: string): ApiError {
  const params = error.params as Record<string, unknown>;
  // `x-invalid-code`: every error of this value answers with one code (INVALID_PAGE for a page
  // that is not a positive integer, whatever the reason).
  const always = schemaOf(error)['x-invalid-code'];
  if (isErrorCode(always) && error.keyword !== 'required') {
    return new ApiError(always, { value: show(error.data) });
  }
  if (error.keyword === 'required') {
    return new ApiError('MISSING_REQUIRED_FIELD', {
      field: fieldPath(error.instancePath, String(params.missingProperty), prefix),
    });
  }
  if (error.keyword === 'type') {
    const types = String(params.type)
      .split(',')
      .filter((type) => type !== 'null');
    return new ApiError('INVALID_FIELD_TYPE', {
      field: fieldPath(error.instancePath, undefined, prefix) || 'body',
      type: types[0] ?? 'object',
    });
  }
  if (error.keyword === 'additionalProperties') {
    return new ApiError('INVALID_FIELD_VALUE', {
      field: fieldPath(error.instancePath, String(params.additionalProperty), prefix),
      reason: reasonFor(error),
    });
  }
  const field = fieldPath(error.instancePath, undefined, prefix) || httpPart;
  const special = schemaOf(error)['x-error-code'];
  if (isErrorCode(special)) {
    // These codes' messages do not name the field (`Invalid webhook URL: <reason>`), so the
    // reason does.
    return new ApiError(special, {
      value: show(error.data),
      field,
      reason: `${field} ${reasonFor(error)}`,
    });
  }
  return new ApiError('INVALID_FIELD_VALUE', { field, reason: reasonFor(error) });
}

export interface SchemaProblems {
  /** The first missing field or wrong type, or null. */
  readonly structure: ApiError | null;
  /** Every value the schema refuses, in the order they are reported. */
  readonly values: readonly ApiError[];
}

/** Sorts Ajv errors into the one structural error reported first and the wrong values. */
export function schemaProblems(
  errors: readonly ErrorObject[],
  httpPart: string,
  prefix?: string,
): SchemaProblems {
  const all = ranked(errors);
  const first = all[0];
  if (first !== undefined && errorRank(first) < 2) {
    return { structure: toError(first, httpPart, prefix), values: [] };
  }
  return { structure: null, values: all.map((error) => toError(error, httpPart, prefix)) };
}

/** Turns Ajv errors into the one error the contract wants first. */
export function toApiError(
  errors: readonly ErrorObject[],
  httpPart: string,
  prefix?: string,
): ApiError {
  const first = ranked(errors)[0];
  return first === undefined
    ? new ApiError('INVALID_FIELD_VALUE', { field: httpPart, reason: 'not allowed' })
    : toError(first, httpPart, prefix);
}
