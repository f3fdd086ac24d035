/**
 * Validation of template bodies (POST and PATCH /api/v1/templates), pure. A missing name is
 * TEMPLATE_NAME_REQUIRED before any other check (decisions.md); then wrong types, a missing
 * scanType, then the field codes in the order of a scan: INVALID_SCAN_TYPE, INVALID_PRIORITY,
 * INVALID_FIELD_VALUE (options against the engine's schema, timeout 1..86400, name ≤ 255, tags).
 * `null` in an optional field clears it on PATCH and means "not given" on POST.
 */
import { ApiError } from '../../domain/errors.js';
import { isPriority } from '../../domain/scans/priority.js';
import { isEngineName } from '../../engines/engine.js';
import { ENGINES } from '../../engines/registry.js';
import { checkEngineOptions } from '../../engines/validate-options.js';
import type { TemplateFields, TemplateRecord } from '../ports/templates.js';
import { type FieldType, hasType, MAX_TIMEOUT_SECONDS } from '../scans/validate-scan-request.js';

const FIELD_TYPES: ReadonlyArray<readonly [string, FieldType]> = [
  ['name', 'string'],
  ['description', 'string'],
  ['scanType', 'string'],
  ['options', 'object'],
  ['config', 'object'],
  ['priority', 'string'],
  ['tags', 'array'],
  ['timeout', 'integer'],
];

/**
 * The template's fields after applying `body` to `current` (null: a create). Throws the contract's
 * ApiError for the first problem.
 */
export function templateFieldsFrom(body: unknown, current: TemplateRecord | null): TemplateFields {
  if (!hasType(body, 'object')) {
    throw new ApiError('INVALID_FIELD_TYPE', { field: 'body', type: 'object' });
  }
  const input = body as Record<string, unknown>;
  const has = (field: string) => Object.hasOwn(input, field) && input[field] !== undefined;
  const nameGiven = has('name') && input.name !== null;
  if (
    (current === null && !nameGiven) ||
    (has('name') && (input.name === null || input.name === ''))
  ) {
    throw new ApiError('TEMPLATE_NAME_REQUIRED');
  }
  for (const [field, type] of FIELD_TYPES) {
    if (has(field) && input[field] !== null && !hasType(input[field], type)) {
      throw new ApiError('INVALID_FIELD_TYPE', { field, type });
    }
  }
  const tags = (input.tags as unknown[] | null | undefined) ?? current?.tags ?? [];
  const badTag = tags.findIndex((tag) => typeof tag !== 'string');
  if (badTag !== -1) {
    throw new ApiError('INVALID_FIELD_TYPE', { field: `tags.${badTag}`, type: 'string' });
  }
  const scanType =
    has('scanType') && input.scanType !== null ? (input.scanType as string) : current?.scanType;
  if (scanType === undefined) {
    throw new ApiError('MISSING_REQUIRED_FIELD', { field: 'scanType' });
  }
  const options = has('options')
    ? ((input.options as Record<string, unknown> | null) ?? {})
    : (current?.options ?? {});
  const engine = isEngineName(scanType) ? ENGINES[scanType] : null;
  const checked = engine === null ? null : checkEngineOptions(engine, options);
  if (checked !== null && !checked.ok && checked.kind === 'structure') {
    throw checked.error;
  }
  if (engine === null) {
    throw new ApiError('INVALID_SCAN_TYPE', { value: scanType });
  }
  const priority = has('priority')
    ? (input.priority as string | null)
    : (current?.priority ?? null);
  if (priority !== null && !isPriority(priority)) {
    throw new ApiError('INVALID_PRIORITY', { value: priority });
  }
  if (checked !== null && !checked.ok) {
    throw checked.error;
  }
  const name = nameGiven ? (input.name as string) : (current?.name ?? '');
  if (name.length > 255) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: 'name',
      reason: 'must be at most 255 characters long',
    });
  }
  const timeout = has('timeout')
    ? (input.timeout as number | null)
    : (current?.timeoutSeconds ?? null);
  if (timeout !== null && (timeout < 1 || timeout > MAX_TIMEOUT_SECONDS)) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: 'timeout',
      reason: `${timeout} is not between 1 and ${MAX_TIMEOUT_SECONDS} seconds`,
    });
  }
  if (tags.length > 50 || (tags as string[]).some((tag) => tag.length === 0 || tag.length > 100)) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: 'tags',
      reason: 'at most 50 tags of 1 to 100 characters',
    });
  }
  const description = has('description')
    ? (input.description as string | null)
    : (current?.description ?? null);
  if (description !== null && description.length > 2000) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: 'description',
      reason: 'must be at most 2000 characters long',
    });
  }
  return {
    name,
    description,
    scanType,
    options,
    config: has('config')
      ? ((input.config as Record<string, unknown> | null) ?? {})
      : (current?.config ?? {}),
    priority,
    tags: tags as string[],
    timeoutSeconds: timeout,
  };
}
