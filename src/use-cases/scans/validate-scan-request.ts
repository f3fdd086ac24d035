/**
 * Validation of `POST /api/v1/scans`, pure: the body in, a validated request or the one error the
 * contract wants first out. The order is decisions.md's step 6: a non-object body, missing
 * required fields, wrong types (top-level first, then inside `options` once the engine is known),
 * then the field-specific codes in their listed order: INVALID_SCAN_TYPE, SCAN_TYPE_NOT_ALLOWED,
 * INVALID_PRIORITY, INVALID_TARGET, INVALID_FIELD_VALUE (INVALID_WEBHOOK_URL for callbackUrl with
 * them), TARGET_NOT_ALLOWED for literal addresses. Names are resolved afterwards by the use case.
 *
 * Types and limits are the schema's (scan-request-schema.ts); this module gives each of its
 * answers at its turn, between the checks that need the engine, the caller's key or the target.
 * Decided where the contract is silent: `null` in a field means "not given"; `name` defaults to
 * "<scanType> <target>".
 */
import { ApiError } from '../../domain/errors.js';
import { DEFAULT_PRIORITY, isPriority, type Priority } from '../../domain/scans/priority.js';
import { ALL_TARGET_TYPES, isTargetType, parseTarget } from '../../domain/targets/parse-target.js';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import { targetRefusal } from '../../domain/targets/refused-ranges.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { compileBodyCheck, firstWith } from '../../domain/validation/ajv.js';
import type { EngineDefinition } from '../../engines/engine.js';
import { isEngineName } from '../../engines/engine.js';
import { ENGINES } from '../../engines/registry.js';
import { checkEngineConfig, checkEngineOptions } from '../../engines/validate-options.js';
import { ScanRequestSchema } from './scan-request-schema.js';

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

const checkBody = compileBodyCheck(ScanRequestSchema);

const fail = (error: ApiError): ScanRequestCheck => ({ ok: false, error });

/** Validates a create-scan body. */
export function validateScanRequest(body: unknown, context: ScanRequestContext): ScanRequestCheck {
  const checked = checkBody(body);
  if (checked.structure !== null) {
    return fail(checked.structure);
  }
  const input = checked.body;
  // The schema's wrong values are answered at their code's turn. INVALID_SCAN_TYPE and
  // INVALID_TARGET come from the engine lookup and parseTarget, which refuse the same values.
  const engine = isEngineName(input.scanType) ? ENGINES[input.scanType] : null;
  const options = engine ? checkEngineOptions(engine, input.options) : null;
  if (options && !options.ok && options.kind === 'structure') {
    return fail(options.error);
  }
  const config = engine ? checkEngineConfig(engine, input.config) : null;
  if (config && !config.ok && config.kind === 'structure') {
    return fail(config.error);
  }
  if (engine === null) {
    return fail(new ApiError('INVALID_SCAN_TYPE', { value: input.scanType }));
  }
  const refused = refusedEngine(engine, options?.ok ? options.options : {}, context);
  if (refused !== null) {
    return fail(new ApiError('SCAN_TYPE_NOT_ALLOWED', { value: refused }));
  }
  const badPriority = firstWith(checked.values, 'INVALID_PRIORITY');
  if (badPriority !== null) {
    return fail(badPriority);
  }
  // An unknown targetType is an unknown enum value (INVALID_FIELD_VALUE, decisions.md); the target
  // cannot be judged against it, so it is answered at INVALID_TARGET's turn. INVALID_TARGET stays
  // for a known type that does not match the target or the engine.
  const givenType = input.targetType ?? undefined;
  if (givenType !== undefined && !isTargetType(givenType)) {
    return fail(
      new ApiError('INVALID_FIELD_VALUE', {
        field: 'targetType',
        reason: `${givenType} is not one of ${ALL_TARGET_TYPES.join(', ')}`,
      }),
    );
  }
  const parsed = parseTarget(
    input.target,
    input.targetType ?? undefined,
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
  if (config !== null && !config.ok) {
    return fail(config.error);
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
  const badValue = firstWith(checked.values, 'INVALID_FIELD_VALUE', 'INVALID_WEBHOOK_URL');
  if (badValue !== null) {
    return fail(badValue);
  }
  const callbackUrl = input.callbackUrl ?? null;
  const badUrl = callbackUrl === null ? null : callbackUrlProblem(callbackUrl);
  if (badUrl !== null) {
    return fail(new ApiError('INVALID_WEBHOOK_URL', { reason: badUrl }));
  }
  const refusal = targetRefusal(parsed.target, context.allowPrivateTargets);
  if (refusal !== null) {
    return fail(new ApiError('TARGET_NOT_ALLOWED', { reason: refusal }));
  }
  const timeout = input.timeout ?? null;
  return {
    ok: true,
    request: {
      engine,
      target: parsed.target,
      name: input.name ?? `${engine.name} ${parsed.target.value}`,
      priority: isPriority(input.priority) ? input.priority : DEFAULT_PRIORITY,
      options: options?.ok ? options.options : {},
      config: config?.ok ? config.options : {},
      tags: input.tags ?? [],
      timeoutSeconds: timeout ?? engine.defaultTimeoutSeconds,
      timeoutGiven: timeout !== null,
      assetId: input.assetId ?? null,
      callbackUrl,
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

/**
 * Why a callback URL is refused beyond the schema's length (HTTPS only, no credentials), or null.
 * Its host is judged later, like a webhook's (WebhookUrlChecker).
 */
function callbackUrlProblem(url: string): string | null {
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
