/**
 * The documented form of a body with `scanType` and `options` (a scan, a template): one variant
 * per engine, whose `scanType` is that engine's name, whose `options` are that engine's
 * options schema (engines/<name>/options.ts) and whose `config` is its config schema when it has
 * one (engines/web-config.ts), so a client generated from the OpenAPI document
 * refuses a wrong option at compile time. Built from the same field schemas the use cases check
 * with and from the engines' own option schemas: nothing here is written twice.
 *
 * Documentation only. Requests are still checked by the open schemas (ScanRequestSchema,
 * template-schema.ts) and then by the engine's schema (engines/validate-options.ts), in the order
 * the contract gives its error codes (INVALID_SCAN_TYPE before SCAN_TYPE_NOT_ALLOWED before an
 * option's INVALID_FIELD_VALUE …), which one `oneOf` could not keep: it would report every
 * variant's failure at once.
 */
import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { orNull } from '../../domain/validation/or-null.js';
import { ENGINE_NAMES } from '../../engines/engine.js';
import { ENGINES } from '../../engines/registry.js';

/**
 * The `config` of `name`'s variant: its engine's closed config schema (engines/web-config.ts)
 * when it has one and the body has a `config`, else the body's own (open) field.
 */
function configOf(name: (typeof ENGINE_NAMES)[number], fields: TProperties): TProperties {
  const schema = ENGINES[name].configSchema;
  if (schema === undefined || !('config' in fields)) {
    return {};
  }
  return {
    config: Type.Optional(
      orNull(schema, {
        description: `${name} config: credentials (header and cookie values, auth.password, auth.token) are shown as ******** and kept when ******** is sent back`,
      }),
    ),
  };
}

/**
 * `anyOf` one object per engine (`fields` with `scanType` that engine's name, required, and
 * `options` its options or null), plus, when `withoutScanType` is given, one object of those
 * fields for a body that names no engine (it comes from a template), whose options stay open.
 * The options are inline, not named components: openapi-typescript makes a component's
 * properties that have a default required (its defaultNonNullable), so a client would have to
 * send every nmap option.
 */
export function variantPerEngine(
  fields: TProperties,
  withoutScanType?: { readonly fields: TProperties; readonly description: string },
): TSchema {
  const variants: TSchema[] = ENGINE_NAMES.map((name) =>
    Type.Object(
      {
        ...fields,
        // A one-value enum, which @fastify/swagger would make of a `const` anyway.
        scanType: Type.Unsafe<typeof name>({ type: 'string', enum: [name] }),
        options: Type.Optional(
          orNull(ENGINES[name].optionsSchema, { description: `${name} options` }),
        ),
        ...configOf(name, fields),
      },
      { title: `${name} scan settings` },
    ),
  );
  if (withoutScanType !== undefined) {
    variants.push(
      Type.Object(withoutScanType.fields, {
        title: 'scan settings without scanType',
        description: withoutScanType.description,
      }),
    );
  }
  // The variants exclude each other by scanType (one engine's name, or null or absent), yet
  // anyOf, not oneOf: Redocly's check that oneOf variants cannot overlap only trusts a property
  // required in every variant, and generators make the same union of either.
  return Type.Union(variants);
}
