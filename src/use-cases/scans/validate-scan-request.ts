/**
 * Validation of `POST /api/v1/scans`, pure: the body in, a validated request or the one error the
 * contract wants first out. The order is decisions.md's step 6: a non-object body, missing
 * required fields, wrong types (top-level first, then inside `options` once the engine is known),
 * then the field-specific codes in their listed order: INVALID_SCAN_TYPE, SCAN_TYPE_NOT_ALLOWED,
 * INVALID_PRIORITY, INVALID_TARGET, INVALID_FIELD_VALUE (INVALID_WEBHOOK_URL for callbackUrl with
 * them), TARGET_NOT_ALLOWED for literal addresses. Names are resolved afterwards by the use case.
 *
 * Decided where the contract is silent: `null` in an optional field means "not given"; `name`
 * defaults to "<scanType> <target>" and is at most 255 characters; at most 50 tags of 1..100
 * characters; `assetId` at most 255 characters; `config` any object up to 16 KiB of JSON.
 */
import { ApiError } from '../../domain/errors.js';
import { DEFAULT_PRIORITY, isPriority, type Priority } from '../../domain/scans/priority.js';
import { parseTarget } from '../../domain/targets/parse-target.js';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import { targetRefusal } from '../../domain/targets/refused-ranges.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { EngineDefinition } from '../../engines/engine.js';
import { isEngineName } from '../../engines/engine.js';
import { ENGINES } from '../../engines/registry.js';
import { checkEngineOptions } from '../../engines/validate-options.js';

export interface ValidScanRequest {
  readonly engine: EngineDefinition;
  readonly target: ScanTarget;
  readonly name: string;
  readonly priority: Priority;
  readonly options: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  readonly tags: string[];
  readonly timeoutSeconds: number;
  /** Whether the request gave `timeout` (sentinel passes a given timeout on to its children). */
  readonly timeoutGiven: boolean;
  readonly assetId: string | null;
  readonly callbackUrl: string | null;
}

export interface ScanRequestContext {
  /** The caller's allowed engines; null: every engine (a dashboard JWT). */
  readonly allowedScanTypes: readonly string[] | null;
  /** ALLOW_PRIVATE_TARGETS: which addresses in refused ranges targets may name. */
  readonly allowPrivateTargets: PrivateTargetPolicy;
}

export type ScanRequestCheck =
  | { readonly ok: true; readonly request: ValidScanRequest }
  | { readonly ok: false; readonly error: ApiError };

export const MAX_TIMEOUT_SECONDS = 86_400;
const MAX_NAME = 255;
const MAX_TAGS = 50;
const MAX_TAG = 100;
const MAX_ASSET_ID = 255;
const MAX_CONFIG_BYTES = 16 * 1024;
const MAX_URL = 2048;

export type FieldType = 'string' | 'object' | 'array' | 'integer';

const FIELD_TYPES: ReadonlyArray<readonly [string, FieldType]> = [
  ['target', 'string'],
  ['scanType', 'string'],
  ['name', 'string'],
  ['targetType', 'string'],
  ['priority', 'string'],
  ['options', 'object'],
  ['config', 'object'],
  ['tags', 'array'],
  ['timeout', 'integer'],
  ['assetId', 'string'],
  ['callbackUrl', 'string'],
];

/** Whether a JSON value has the type a field's message names (`integer`: a whole number). */
export function hasType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
  }
}

const fail = (error: ApiError): ScanRequestCheck => ({ ok: false, error });

/** Validates a create-scan body. */
export function validateScanRequest(body: unknown, context: ScanRequestContext): ScanRequestCheck {
  if (!hasType(body, 'object')) {
    return fail(new ApiError('INVALID_FIELD_TYPE', { field: 'body', type: 'object' }));
  }
  const input = body as Record<string, unknown>;
  const given = (field: string) => input[field] !== undefined && input[field] !== null;
  for (const field of ['target', 'scanType']) {
    if (!given(field)) {
      return fail(new ApiError('MISSING_REQUIRED_FIELD', { field }));
    }
  }
  for (const [field, type] of FIELD_TYPES) {
    if (given(field) && !hasType(input[field], type)) {
      return fail(new ApiError('INVALID_FIELD_TYPE', { field, type }));
    }
  }
  const tags = (input.tags as unknown[] | undefined) ?? [];
  const badTag = tags.findIndex((tag) => typeof tag !== 'string');
  if (badTag !== -1) {
    return fail(new ApiError('INVALID_FIELD_TYPE', { field: `tags.${badTag}`, type: 'string' }));
  }
  const scanType = input.scanType as string;
  const engine = isEngineName(scanType) ? ENGINES[scanType] : null;
  const options = engine ? checkEngineOptions(engine, input.options) : null;
  if (options && !options.ok && options.kind === 'structure') {
    return fail(options.error);
  }
  if (engine === null) {
    return fail(new ApiError('INVALID_SCAN_TYPE', { value: scanType }));
  }
  const refused = refusedEngine(engine, options?.ok ? options.options : {}, context);
  if (refused !== null) {
    return fail(new ApiError('SCAN_TYPE_NOT_ALLOWED', { value: refused }));
  }
  const priority = given('priority') ? input.priority : DEFAULT_PRIORITY;
  if (!isPriority(priority)) {
    return fail(new ApiError('INVALID_PRIORITY', { value: String(priority) }));
  }
  const parsed = parseTarget(
    input.target,
    given('targetType') ? (input.targetType as string) : undefined,
    engine.targetTypes,
    engine.name,
  );
  if (!parsed.ok) {
    return fail(new ApiError('INVALID_TARGET', { reason: parsed.reason }));
  }
  const refusedTarget = engine.targetProblem?.(parsed.target) ?? null;
  if (refusedTarget !== null) {
    return fail(new ApiError('INVALID_TARGET', { reason: refusedTarget }));
  }
  if (options !== null && !options.ok) {
    return fail(options.error);
  }
  const againstTarget =
    options === null ? null : (engine.optionsProblem?.(options.options, parsed.target) ?? null);
  if (againstTarget !== null) {
    return fail(
      new ApiError('INVALID_FIELD_VALUE', {
        field: `options.${againstTarget.field}`,
        reason: againstTarget.reason,
      }),
    );
  }
  const values = checkValues(input, tags as string[]);
  if (values !== null) {
    return fail(values);
  }
  const refusal = targetRefusal(parsed.target, context.allowPrivateTargets);
  if (refusal !== null) {
    return fail(new ApiError('TARGET_NOT_ALLOWED', { reason: refusal }));
  }
  return {
    ok: true,
    request: {
      engine,
      target: parsed.target,
      name: given('name') ? (input.name as string) : `${engine.name} ${parsed.target.value}`,
      priority,
      options: options?.ok ? options.options : {},
      config: given('config') ? (input.config as Record<string, unknown>) : {},
      tags: tags as string[],
      timeoutSeconds: given('timeout') ? (input.timeout as number) : engine.defaultTimeoutSeconds,
      timeoutGiven: given('timeout'),
      assetId: given('assetId') ? (input.assetId as string) : null,
      callbackUrl: given('callbackUrl') ? (input.callbackUrl as string) : null,
    },
  };
}

/** The engine (or an engine its options name, for sentinel) the caller may not use, or null. */
function refusedEngine(
  engine: EngineDefinition,
  options: Record<string, unknown>,
  context: ScanRequestContext,
): string | null {
  const allowed = context.allowedScanTypes;
  if (allowed === null) {
    return null;
  }
  const used =
    engine.kind === 'tool' ? [engine.name] : [engine.name, ...engine.memberEngines(options)];
  return used.find((name) => !allowed.includes(name)) ?? null;
}

function checkValues(input: Record<string, unknown>, tags: readonly string[]): ApiError | null {
  const value = (field: string, reason: string) =>
    new ApiError('INVALID_FIELD_VALUE', { field, reason });
  const name = input.name;
  if (typeof name === 'string' && (name.length === 0 || name.length > MAX_NAME)) {
    return value('name', `must be 1 to ${MAX_NAME} characters long`);
  }
  if (tags.length > MAX_TAGS) {
    return value('tags', `must have at most ${MAX_TAGS} items`);
  }
  const badTag = tags.findIndex((tag) => tag.length === 0 || tag.length > MAX_TAG);
  if (badTag !== -1) {
    return value(`tags.${badTag}`, `must be 1 to ${MAX_TAG} characters long`);
  }
  const timeout = input.timeout;
  if (typeof timeout === 'number' && (timeout < 1 || timeout > MAX_TIMEOUT_SECONDS)) {
    return value('timeout', `${timeout} is not between 1 and ${MAX_TIMEOUT_SECONDS} seconds`);
  }
  const assetId = input.assetId;
  if (typeof assetId === 'string' && (assetId.length === 0 || assetId.length > MAX_ASSET_ID)) {
    return value('assetId', `must be 1 to ${MAX_ASSET_ID} characters long`);
  }
  const config = input.config;
  if (config !== undefined && config !== null && JSON.stringify(config).length > MAX_CONFIG_BYTES) {
    return value('config', `must be at most ${MAX_CONFIG_BYTES} bytes of JSON`);
  }
  const callbackUrl = input.callbackUrl;
  if (typeof callbackUrl === 'string') {
    const reason = callbackUrlError(callbackUrl);
    if (reason !== null) {
      return new ApiError('INVALID_WEBHOOK_URL', { reason });
    }
  }
  return null;
}

/** Why a callback URL is refused (HTTPS only, at most 2048 characters), or null. */
export function callbackUrlError(url: string): string | null {
  if (url.length > MAX_URL) {
    return `callbackUrl must be at most ${MAX_URL} characters long`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'callbackUrl is not an absolute URL';
  }
  if (parsed.protocol !== 'https:') {
    return 'callbackUrl must use HTTPS';
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'callbackUrl must not contain credentials';
  }
  return null;
}
