/**
 * The one Ajv configuration of the service, and the body checks that the use cases run. Every
 * instance reports all errors with their data (schema-errors.ts picks the one the contract wants),
 * never removes unknown keys, and knows the service's keywords:
 * - `x-error-code` and `x-invalid-code` name the catalog code a field answers with
 *   (schema-errors.ts);
 * - `x-reason` replaces the generic reason of a field's wrong values (`<value>` is the value);
 * - `x-max-json-bytes` limits the size of a value written as JSON (`config`: 16 KiB), a limit
 *   JSON Schema has no keyword for. The size is counted in UTF-16 code units of the JSON text.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { ApiError, ErrorCode } from '../errors.js';
import { schemaProblems } from './schema-errors.js';

// ajv-formats is CommonJS with `export default`; under NodeNext the callable is on `.default`.
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;

export interface AjvOptions {
  /** Query strings and path params are text, so `"60"` may be the integer 60; bodies are not. */
  readonly coerceTypes: boolean;
  /** Fill in the schema's defaults (engine options). */
  readonly useDefaults: boolean;
}

export function createAjv(options: AjvOptions): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    coerceTypes: options.coerceTypes ? 'array' : false,
    useDefaults: options.useDefaults,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'x-error-code', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-invalid-code', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-reason', schemaType: 'string' });
  ajv.addKeyword({
    keyword: 'x-max-json-bytes',
    schemaType: 'number',
    validate: (limit: number, data: unknown) => JSON.stringify(data).length <= limit,
  });
  return ajv;
}

/** JSON bodies: never coerced, no defaults filled in. */
export const bodyAjv = createAjv({ coerceTypes: false, useDefaults: false });

/**
 * What a body check finds: the first missing field or wrong type, or else the body, typed by its
 * schema, with every value the schema refuses (in the order schema-errors.ts ranks them).
 */
export type BodyCheck<T> =
  | { readonly structure: ApiError }
  | { readonly structure: null; readonly body: T; readonly values: readonly ApiError[] };

/** The first of a body's wrong values that answers with one of `codes`, or null. */
export function firstWith(values: readonly ApiError[], ...codes: ErrorCode[]): ApiError | null {
  return values.find((error) => codes.includes(error.code)) ?? null;
}

function withoutNulls(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return body;
  }
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
}

/**
 * Compiles a body schema once, for a use case that interleaves the schema's answers with checks
 * that need context (decisions.md, "Order of checks", step 6). A top-level `null` counts as not
 * given: the schemas mark each optional field nullable, and a required field that is null is
 * missing.
 */
export function compileBodyCheck<T extends TSchema>(
  schema: T,
): (body: unknown) => BodyCheck<Static<T>> {
  const validate = bodyAjv.compile(schema);
  return (body) => {
    const given = withoutNulls(body);
    if (validate(given)) {
      return { structure: null, body: given as Static<T>, values: [] };
    }
    const problems = schemaProblems(validate.errors ?? [], 'body');
    return problems.structure === null
      ? { structure: null, body: given as Static<T>, values: problems.values }
      : { structure: problems.structure };
  };
}
