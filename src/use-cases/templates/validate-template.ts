/**
 * Validation of template bodies (POST and PATCH /api/v1/templates), pure. A missing name is
 * TEMPLATE_NAME_REQUIRED before any other check (decisions.md); then missing fields and wrong
 * types, then the field codes in the order of a scan: INVALID_SCAN_TYPE, INVALID_PRIORITY,
 * INVALID_FIELD_VALUE (options against the engine's schema, then the schema's limits). Types and
 * limits are the schema's (template-schema.ts). `null` in an optional field clears it on PATCH
 * and means "not given" on POST.
 */
import { ApiError } from '../../domain/errors.js';
import { compileBodyCheck, firstWith } from '../../domain/validation/ajv.js';
import { isEngineName } from '../../engines/engine.js';
import { ENGINES } from '../../engines/registry.js';
import { checkEngineConfig, checkEngineOptions } from '../../engines/validate-options.js';
import type { TemplateFields } from '../ports/templates.js';
import { CreateTemplateBody, PatchTemplateBody } from './template-schema.js';

const checkCreate = compileBodyCheck(CreateTemplateBody);
const checkPatch = compileBodyCheck(PatchTemplateBody);

/** What a create starts from; its schema requires name and scanType, so both are replaced. */
const NEW_TEMPLATE: TemplateFields = {
  name: '',
  description: null,
  scanType: '',
  options: {},
  config: {},
  priority: null,
  tags: [],
  timeoutSeconds: null,
};

function isObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/**
 * The template's fields after applying `body` to `current` (null: a create). Throws the contract's
 * ApiError for the first problem.
 */
export function templateFieldsFrom(body: unknown, current: TemplateFields | null): TemplateFields {
  const sent = isObject(body) ? body : {};
  const has = (field: string) => Object.hasOwn(sent, field) && sent[field] !== undefined;
  if (
    isObject(body) &&
    ((current === null && (sent.name === undefined || sent.name === null)) ||
      (has('name') && (sent.name === null || sent.name === '')))
  ) {
    throw new ApiError('TEMPLATE_NAME_REQUIRED');
  }
  const checked = current === null ? checkCreate(body) : checkPatch(body);
  if (checked.structure !== null) {
    throw checked.structure;
  }
  const input = checked.body;
  const base = current ?? NEW_TEMPLATE;
  const scanType = input.scanType ?? base.scanType;
  const options = has('options') ? (input.options ?? {}) : base.options;
  const engine = isEngineName(scanType) ? ENGINES[scanType] : null;
  const checkedOptions = engine === null ? null : checkEngineOptions(engine, options);
  if (checkedOptions !== null && !checkedOptions.ok && checkedOptions.kind === 'structure') {
    throw checkedOptions.error;
  }
  const config = has('config') ? (input.config ?? {}) : base.config;
  const checkedConfig = engine === null ? null : checkEngineConfig(engine, config);
  if (checkedConfig !== null && !checkedConfig.ok && checkedConfig.kind === 'structure') {
    throw checkedConfig.error;
  }
  if (engine === null) {
    throw new ApiError('INVALID_SCAN_TYPE', { value: scanType });
  }
  // The schema's wrong values are answered at their code's turn (INVALID_SCAN_TYPE: the lookup).
  const badPriority = firstWith(checked.values, 'INVALID_PRIORITY');
  if (badPriority !== null) {
    throw badPriority;
  }
  if (checkedOptions !== null && !checkedOptions.ok) {
    throw checkedOptions.error;
  }
  if (checkedConfig !== null && !checkedConfig.ok) {
    throw checkedConfig.error;
  }
  const badValue = firstWith(checked.values, 'INVALID_FIELD_VALUE');
  if (badValue !== null) {
    throw badValue;
  }
  return {
    name: input.name ?? base.name,
    description: has('description') ? (input.description ?? null) : base.description,
    scanType,
    options,
    config,
    priority: has('priority') ? (input.priority ?? null) : base.priority,
    tags: input.tags ?? base.tags,
    timeoutSeconds: has('timeout') ? (input.timeout ?? null) : base.timeoutSeconds,
  };
}
