/**
 * The check every parser test makes of each finding it parses: the draft matches the domain's
 * runtime schema (the one the API's Finding schema is built from, so no extra or missing field, a
 * severity of the five-level scale, nulls only where the API allows them), and its raw record is
 * plain JSON data. Each test adds what is specific to its engine.
 */
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import { DraftFindingSchema } from '../../src/domain/findings/finding-schema.js';

// Strict, so that a keyword Ajv does not know fails here instead of being ignored.
const validate = new Ajv({ allErrors: true, strict: true }).compile(DraftFindingSchema);

/** Ajv's complaints about a draft finding, one `path message` line each; empty when it is valid. */
export function draftFindingErrors(finding: unknown): string[] {
  if (validate(finding)) {
    return [];
  }
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
}

export function expectValidDraftFinding(finding: unknown): void {
  expect(draftFindingErrors(finding), JSON.stringify(finding)).toEqual([]);
  const { raw } = finding as { readonly raw: unknown };
  expect(JSON.parse(JSON.stringify(raw))).toEqual(raw);
}
