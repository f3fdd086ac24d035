/**
 * The bodies of POST and PATCH /api/v1/templates as JSON Schema (TypeBox): the one place their
 * types and limits live, shared with a scan's where the fields are a scan's. validate-template.ts
 * checks bodies with them, and the routes show them in the OpenAPI document. A null field means
 * "not given" on POST and clears the field on PATCH (`scanType`: keeps it; `tags`: keeps them).
 */
import { Type } from '@sinclair/typebox';
import { orNull } from '../../domain/validation/or-null.js';
import { variantPerEngine } from '../scans/options-by-engine.js';
import {
  ConfigSchema,
  MAX_NAME_LENGTH,
  OptionsSchema,
  PrioritySchema,
  ScanTypeSchema,
  TagsSchema,
  TimeoutSchema,
} from '../scans/scan-request-schema.js';

const MAX_DESCRIPTION_LENGTH = 2000;

const templateFields = {
  name: Type.String({
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description: 'Unique per tenant (exact match)',
  }),
  description: Type.Optional(orNull(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }))),
  scanType: ScanTypeSchema,
  options: Type.Optional(orNull(OptionsSchema)),
  config: Type.Optional(orNull(ConfigSchema)),
  priority: Type.Optional(orNull(PrioritySchema)),
  tags: Type.Optional(orNull(TagsSchema)),
  timeout: Type.Optional(orNull(TimeoutSchema)),
};

export const CreateTemplateBody = Type.Object(templateFields);

export const PatchTemplateBody = Type.Partial(
  Type.Object({ ...templateFields, scanType: orNull(ScanTypeSchema) }),
);

/** The POST body as the OpenAPI document shows it: one variant per engine (options-by-engine.ts). */
export const CreateTemplateBodyByEngine = variantPerEngine(templateFields);

const patchFields = Type.Partial(Type.Object(templateFields)).properties;

/**
 * The PATCH body as the OpenAPI document shows it: one variant per engine, or, without scanType,
 * options for the engine the template already has.
 */
export const PatchTemplateBodyByEngine = variantPerEngine(patchFields, {
  fields: { ...patchFields, scanType: Type.Optional(Type.Null()) },
  description: "Keeps the template's scanType; options are that engine's (checked on update)",
});
