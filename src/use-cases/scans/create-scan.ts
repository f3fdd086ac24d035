/**
 * POST /api/v1/scans: validate (pure), judge the addresses a target name resolves to, check that a
 * worker can run the engine, then store the queued scan and wake the workers. A refused request
 * stores nothing.
 */
import type { RandomBytes } from '../../domain/api-keys/raw-key.js';
import {
  engineNeedingVerification,
  type RequireVerifiedTargets,
} from '../../domain/assets/verification-policy.js';
import { ApiError, formatErrorMessage } from '../../domain/errors.js';
import { maskSecretConfig } from '../../domain/secrets/secret-config.js';
import {
  type KeptSecrets,
  maskSecretOptions,
  SECRET_MASK,
} from '../../domain/secrets/secret-options.js';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import { quotaPeriod } from '../../domain/tenants/quota-period.js';
import { generateWebhookSecret } from '../../domain/webhooks/webhook-secret.js';
import { coveringAsset } from '../assets/covering-asset.js';
import type { AssetRecord, AssetStore } from '../ports/assets.js';
import type { Clock, IdSource } from '../ports/common.js';
import type { ServiceMetrics } from '../ports/metrics.js';
import type {
  NewScan,
  NewSentinelRun,
  ScanStore,
  TargetResolver,
  WorkerDirectory,
} from '../ports/scans.js';
import type { SecretBox } from '../ports/secrets.js';
import type { TemplateRecord, TemplateStore } from '../ports/templates.js';
import type { ScanTracing } from '../ports/tracing.js';
import type { WebhookUrlChecker } from '../ports/webhooks.js';
import { configToStore, optionsToStore } from '../secrets/option-secrets.js';
import { type ScanCreatedView, toScanCreatedView } from './scan-view.js';
import { type ValidScanRequest, validateScanRequest } from './validate-scan-request.js';

/** What a new scan that runs as child scans stores besides its own row. */
export interface ChildScanPlan {
  readonly children: readonly NewScan[];
  readonly run: NewSentinelRun;
}

/** Plans the child scans of a new scan whose engine runs others (sentinel-lifecycle.ts). */
export interface ChildScanPlanner {
  /** The children, or null when the engine runs itself; refusals are thrown as ApiErrors. */
  plan(
    parent: NewScan,
    request: ValidScanRequest,
    context: {
      readonly caller: ScanCaller;
      readonly runnable: ReadonlySet<string>;
      readonly ids: IdSource;
      readonly allowPrivateTargets: PrivateTargetPolicy;
    },
  ): ChildScanPlan | null;
}

export interface CreateScanDeps {
  readonly scans: ScanStore;
  readonly childScans: ChildScanPlanner;
  readonly workers: WorkerDirectory;
  readonly resolver: TargetResolver;
  /** Checks a callbackUrl like a webhook URL (refused ranges, resolution). */
  readonly urls: WebhookUrlChecker;
  readonly ids: IdSource;
  readonly randomBytes: RandomBytes;
  readonly allowPrivateTargets: PrivateTargetPolicy;
  readonly templates: TemplateStore;
  /** The tenant's assets: the one `assetId` names must cover the target; else the narrowest is linked. */
  readonly assets: AssetStore;
  /** REQUIRE_VERIFIED_TARGETS. */
  readonly requireVerifiedTargets: RequireVerifiedTargets;
  /** Seals the credentials of the options before the scan is stored. */
  readonly secrets: SecretBox;
  /** Decides the quota month of a new scan. */
  readonly clock: Clock;
  /** Counts created scans and quota refusals. */
  readonly metrics: ServiceMetrics;
  /** The trace the new scan's row keeps, for the worker's run to continue. */
  readonly tracing: ScanTracing;
}

const MISSING_SCAN_TYPE = formatErrorMessage('MISSING_REQUIRED_FIELD', { field: 'scanType' });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A scan from a template (decisions.md): each top-level field of the request replaces the
 * template's, except `options`, merged key by key with the request's keys winning. The
 * template's credentials take part as shown (`********`); the stored ones replace the masks after
 * validation.
 */
function mergeWithTemplate(body: Record<string, unknown>, template: TemplateRecord) {
  const given = (field: string) => body[field] !== undefined && body[field] !== null;
  const requestOptions = given('options') ? body.options : undefined;
  const templateOptions = maskSecretOptions({ ...template.options });
  const options =
    requestOptions === undefined
      ? templateOptions
      : typeof requestOptions === 'object' && !Array.isArray(requestOptions)
        ? { ...templateOptions, ...(requestOptions as Record<string, unknown>) }
        : requestOptions;
  return {
    scanType: template.scanType,
    config: maskSecretConfig({ ...template.config }),
    tags: template.tags,
    ...(template.priority === null ? {} : { priority: template.priority }),
    ...(template.timeoutSeconds === null ? {} : { timeout: template.timeoutSeconds }),
    ...Object.fromEntries(
      Object.entries(body).filter(([, value]) => value !== undefined && value !== null),
    ),
    options,
  };
}

/** What to store, or INVALID_FIELD_VALUE for a `********` where the template has no value. */
function storedOrRefused(kept: KeptSecrets): Record<string, unknown> {
  if (!kept.ok) {
    throw new ApiError('INVALID_FIELD_VALUE', {
      field: kept.field,
      reason: `${SECRET_MASK} stands for the template's value, and it has none`,
    });
  }
  return kept.options;
}

/** 403 TARGET_NOT_VERIFIED, saying what to do. */
function notVerified(
  policy: RequireVerifiedTargets,
  engine: string,
  target: string,
  asset: AssetRecord | null,
): ApiError {
  const shown = target.length > 200 ? `${target.slice(0, 200)}…` : target;
  const how =
    asset === null
      ? 'register an asset covering it (POST /api/v1/assets), publish its verification token as a DNS TXT record or an HTTPS file, then POST /api/v1/assets/<id>/verify'
      : `publish the verification token of asset ${asset.id} (${asset.kind} ${asset.value}) as a DNS TXT record or an HTTPS file (GET /api/v1/assets/${asset.id} shows where), then POST /api/v1/assets/${asset.id}/verify`;
  return new ApiError('TARGET_NOT_VERIFIED', {
    reason: `REQUIRE_VERIFIED_TARGETS=${policy}: ${engine} scans need a verified asset covering ${shown}; ${how}`,
  });
}

export interface ScanCaller {
  readonly tenantId: string;
  readonly apiKeyId: string | null;
  /** null: every engine (a dashboard JWT). */
  readonly allowedScanTypes: readonly string[] | null;
}

/**
 * The checks of a scan request that need no I/O but the template lookup: the template merged in,
 * the body validated, TEMPLATE_NOT_FOUND in its turn. Schedules run it over each target when they
 * are written, so a schedule that could never create its scans is refused at once.
 */
export async function checkScanRequest(
  deps: Pick<CreateScanDeps, 'templates' | 'allowPrivateTargets'>,
  caller: ScanCaller,
  body: unknown,
): Promise<{ request: ValidScanRequest; template: TemplateRecord | null }> {
  const input =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : null;
  // A templateId of another type is the schema's INVALID_FIELD_TYPE; a malformed one finds nothing.
  const templateId = input?.templateId;
  const template =
    typeof templateId === 'string' && UUID.test(templateId)
      ? await deps.templates.get(caller.tenantId, templateId.toLowerCase())
      : null;
  const check = validateScanRequest(
    input !== null && template !== null ? mergeWithTemplate(input, template) : body,
    {
      allowedScanTypes: caller.allowedScanTypes,
      allowPrivateTargets: deps.allowPrivateTargets,
    },
  );
  const templateMissing = typeof templateId === 'string' && template === null;
  if (!check.ok) {
    // With a templateId, scanType may be omitted (decisions.md): the template is resolved before
    // scanType is required, so a template that is not found (unknown, another tenant's) is the
    // answer, not the scanType it would have given.
    if (templateMissing && check.error.message === MISSING_SCAN_TYPE) {
      throw new ApiError('TEMPLATE_NOT_FOUND');
    }
    throw check.error;
  }
  // The last of the field codes (decisions.md, step 6).
  if (templateMissing) {
    throw new ApiError('TEMPLATE_NOT_FOUND');
  }
  return { request: check.request, template };
}

export async function createScan(
  deps: CreateScanDeps,
  caller: ScanCaller,
  body: unknown,
): Promise<ScanCreatedView> {
  const { request, template } = await checkScanRequest(deps, caller, body);
  // After every other field code (INVALID_ASSET_ID is the last of step 6).
  const engines =
    request.engine.kind === 'tool'
      ? [request.engine.name]
      : [request.engine.name, ...request.engine.memberEngines(request.options)];
  const needsVerified = engineNeedingVerification(deps.requireVerifiedTargets, engines);
  const asset = await coveringAsset(
    deps.assets,
    caller.tenantId,
    request.assetId,
    request.target,
    needsVerified !== null,
  );
  // Credentials are stored sealed; `********` keeps the template's at the same place.
  const options = storedOrRefused(
    optionsToStore(deps.secrets, caller.tenantId, request.options, template?.options ?? {}),
  );
  const config = storedOrRefused(
    configToStore(deps.secrets, caller.tenantId, request.config, template?.config ?? {}),
  );
  if (request.callbackUrl !== null) {
    const callback = await deps.urls.check(request.callbackUrl);
    if (!callback.ok) {
      throw new ApiError(callback.code, { reason: callback.reason });
    }
  }
  if (
    deps.allowPrivateTargets !== true &&
    !request.target.hostIsAddress &&
    request.target.host !== null
  ) {
    // A name that does not resolve now is accepted: the worker resolves it again at start and
    // fails the scan with TARGET_UNRESOLVABLE (decisions.md, "How a scan ends").
    const resolved = await deps.resolver.check(request.target, deps.allowPrivateTargets);
    if (!resolved.ok && resolved.code === 'TARGET_NOT_ALLOWED') {
      throw new ApiError(
        'TARGET_NOT_ALLOWED',
        {},
        { message: `Target not allowed: ${resolved.message}` },
      );
    }
  }
  if (needsVerified !== null && asset?.verificationStatus !== 'verified') {
    throw notVerified(deps.requireVerifiedTargets, needsVerified, request.target.value, asset);
  }
  const runnable: ReadonlySet<string> = new Set((await deps.workers.runnableEngines()).keys());
  const callbackSecret =
    request.callbackUrl === null ? null : generateWebhookSecret(deps.randomBytes);
  const period = quotaPeriod(deps.clock.now());
  const parent: NewScan = {
    id: deps.ids.uuid(),
    tenantId: caller.tenantId,
    apiKeyId: caller.apiKeyId,
    scanType: request.engine.name,
    name: request.name,
    target: request.target.value,
    targetType: request.target.type,
    priority: request.priority,
    tags: request.tags,
    options,
    config,
    timeoutSeconds: request.timeoutSeconds,
    assetId: asset?.id ?? null,
    callbackUrl: request.callbackUrl,
    callbackSecret,
    templateId: template?.id ?? null,
    parentScanId: null,
    traceContext: deps.tracing.currentTraceContext(),
  };
  const children = deps.childScans.plan(parent, request, {
    caller,
    runnable,
    ids: deps.ids,
    allowPrivateTargets: deps.allowPrivateTargets,
  });
  if (children === null && !runnable.has(request.engine.name)) {
    throw new ApiError('SERVICE_UNAVAILABLE', {
      reason: `no worker can run ${request.engine.name} scans right now`,
    });
  }
  const scan =
    children === null
      ? await deps.scans.insert(parent, period.key)
      : await deps.scans.insertSentinel(parent, children.children, children.run, period.key);
  if (scan === null) {
    deps.metrics.quotaExceeded();
    throw new ApiError('QUOTA_EXCEEDED', { resetsAt: period.end.toISOString() });
  }
  for (const stored of [parent, ...(children?.children ?? [])]) {
    deps.metrics.scanCreated(stored.scanType, stored.priority);
  }
  return toScanCreatedView(scan, callbackSecret);
}
