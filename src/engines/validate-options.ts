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

function validatorOf(
  engine: EngineDefinition,
  which: 'options' | 'config' = 'options',
): ValidateFunction {
  const key = `${engine.name}:${which}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    const schema = which === 'options' ? engine.optionsSchema : engine.configSchema;
    validate = ajv.compile(schema ?? {});
    compiled.set(key, validate);
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

/**
 * Checks a request's `config` against its engine's `configSchema` (web-config.ts), the same way
 * as `options`: closed objects, INVALID_FIELD_VALUE for a value the schema or the engine refuses.
 * An engine without a schema keeps `config` as given (absent: `{}`).
 */
export function checkEngineConfig(engine: EngineDefinition, input: unknown): OptionsCheck {
  const copy: unknown =
    input === undefined || input === null ? {} : JSON.parse(JSON.stringify(input));
  if (engine.configSchema === undefined) {
    return { ok: true, options: copy as Record<string, unknown> };
  }
  const validate = validatorOf(engine, 'config');
  if (validate(copy)) {
    const config = copy as Record<string, unknown>;
    const problem = engine.configProblem?.(config) ?? null;
    if (problem !== null) {
      return {
        ok: false,
        kind: 'value',
        error: new ApiError('INVALID_FIELD_VALUE', {
          field: `config.${problem.field}`,
          reason: problem.reason,
        }),
      };
    }
    return { ok: true, options: config };
  }
  const errors = validate.errors ?? [];
  const structural = errors.some((error) => errorRank(error) < 2);
  return {
    ok: false,
    kind: structural ? 'structure' : 'value',
    error: toApiError(errors, 'config', 'config'),
  };
}
