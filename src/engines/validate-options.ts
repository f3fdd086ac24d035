/**
 * Validates a scan's (or template's) `options` against its engine's schema and fills in the
 * defaults of the specification. Pure: Ajv compiles each schema once, on first use.
 */
import type { ValidateFunction } from 'ajv';
import { ApiError } from '../domain/errors.js';
import { createAjv } from '../domain/validation/ajv.js';
import { errorRank, toApiError } from '../domain/validation/schema-errors.js';
import type { EngineDefinition } from './engine.js';

const ajv = createAjv({ coerceTypes: false, useDefaults: true });
const compiled = new Map<string, ValidateFunction>();

function validatorOf(engine: EngineDefinition): ValidateFunction {
  let validate = compiled.get(engine.name);
  if (validate === undefined) {
    validate = ajv.compile(engine.optionsSchema);
    compiled.set(engine.name, validate);
  }
  return validate;
}

export type OptionsCheck =
  | { readonly ok: true; readonly options: Record<string, unknown> }
  | {
      readonly ok: false;
      /** `structure`: a missing field or wrong type; `value`: a value the schema refuses. */
      readonly kind: 'structure' | 'value';
      readonly error: ApiError;
    };

/**
 * Checks `input` (the request's `options`, absent: `{}`) and returns a copy with every default
 * filled in. Field names in errors are dotted from `field` (`options.timing`).
 */
export function checkEngineOptions(
  engine: EngineDefinition,
  input: unknown,
  field = 'options',
): OptionsCheck {
  const copy: unknown =
    input === undefined || input === null ? {} : JSON.parse(JSON.stringify(input));
  const validate = validatorOf(engine);
  if (validate(copy)) {
    const options = copy as Record<string, unknown>;
    const problem = engine.optionsProblem?.(options, null) ?? null;
    if (problem !== null) {
      return {
        ok: false,
        kind: 'value',
        error: new ApiError('INVALID_FIELD_VALUE', {
          field: `${field}.${problem.field}`,
          reason: problem.reason,
        }),
      };
    }
    return { ok: true, options };
  }
  const errors = validate.errors ?? [];
  const structural = errors.some((error) => errorRank(error) < 2);
  return {
    ok: false,
    kind: structural ? 'structure' : 'value',
    error: toApiError(errors, field, field),
  };
}
