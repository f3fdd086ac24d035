/** Nullable fields for body schemas (TypeBox). */
import { type SchemaOptions, type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * `schema` or null (with `options` added). A type list rather than `anyOf`, so a wrong value is
 * reported against `schema` alone (schema-errors.ts leaves `null` out of a type error's message).
 */
export function orNull<T extends TSchema>(schema: T, options: SchemaOptions = {}) {
  const { type, enum: values } = schema as { type?: unknown; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({
    ...schema,
    ...options,
    type: [type, 'null'],
    ...(values === undefined ? {} : { enum: [...values, null] }),
  });
}
