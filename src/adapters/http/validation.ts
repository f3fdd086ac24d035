/**
 * Schema validation for Fastify with two Ajv instances: bodies are never coerced (a string "60"
 * is not an integer: INVALID_FIELD_TYPE), query strings and path params are (they are text).
 * Unknown keys are never removed silently: closed objects (`additionalProperties: false`) fail.
 * `x-error-code` on a schema names the catalog code its value errors answer with, so field
 * specific codes (INVALID_SCAN_TYPE, API_KEY_NOT_FOUND for a malformed id …) live in the schema.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { toApiError } from '../../domain/validation/schema-errors.js';

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
  ajv.addKeyword({ keyword: 'x-invalid-code', schemaType: 'string' });
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
