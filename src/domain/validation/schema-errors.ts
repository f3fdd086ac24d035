/**
 * Turns JSON Schema (Ajv) errors into the one error the contract wants first: a missing field
 * before a wrong type before a wrong value (decisions.md, "Order of checks", step 6). Field names
 * are dotted paths (`options.timing`). `x-error-code` on a schema names the catalog code its value
 * errors answer with (INVALID_SCAN_TYPE, API_KEY_NOT_FOUND for a malformed id …).
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
export function toApiError(
  errors: readonly ErrorObject[],
  httpPart: string,
  prefix?: string,
): ApiError {
  const first = [...errors].sort((a, b) => errorRank(a) - errorRank(b))[0];
  if (first === undefined) {
    return new ApiError('INVALID_FIELD_VALUE', { field: httpPart, reason: 'not allowed' });
  }
  const params = first.params as Record<string, unknown>;
  // `x-invalid-code`: every error of this value answers with one code (INVALID_PAGE for a page
  // that is not a positive integer, whatever the reason).
  const always = (first.parentSchema as Record<string, unknown> | undefined)?.['x-invalid-code'];
  if (isErrorCode(always) && first.keyword !== 'required') {
    return new ApiError(always, { value: show(first.data) });
  }
  if (first.keyword === 'required') {
    return new ApiError('MISSING_REQUIRED_FIELD', {
      field: fieldPath(first.instancePath, String(params.missingProperty), prefix),
    });
  }
  if (first.keyword === 'type') {
    const types = String(params.type)
      .split(',')
      .filter((type) => type !== 'null');
    return new ApiError('INVALID_FIELD_TYPE', {
      field: fieldPath(first.instancePath, undefined, prefix) || 'body',
      type: types[0] ?? 'object',
    });
  }
  if (first.keyword === 'additionalProperties') {
    return new ApiError('INVALID_FIELD_VALUE', {
      field: fieldPath(first.instancePath, String(params.additionalProperty), prefix),
      reason: reasonFor(first),
    });
  }
  const field = fieldPath(first.instancePath, undefined, prefix) || httpPart;
  const special = (first.parentSchema as Record<string, unknown> | undefined)?.['x-error-code'];
  if (isErrorCode(special)) {
    return new ApiError(special, { value: show(first.data), field, reason: reasonFor(first) });
  }
  return new ApiError('INVALID_FIELD_VALUE', { field, reason: reasonFor(first) });
}
