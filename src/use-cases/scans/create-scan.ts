/**
 * POST /api/v1/scans: validate (pure), judge the addresses a target name resolves to, check that a
 * worker can run the engine, then store the queued scan and wake the workers. A refused request
 * stores nothing.
 */
import type { RandomBytes } from '../../domain/api-keys/raw-key.js';
import { ApiError } from '../../domain/errors.js';
import { generateWebhookSecret } from '../../domain/webhooks/webhook-secret.js';
import type {
  IdSource,
  ScanStore,
  TargetResolver,
  WebhookUrlChecker,
  WorkerDirectory,
} from '../ports.js';
import { type ScanCreatedView, toScanCreatedView } from './scan-view.js';
import { validateScanRequest } from './validate-scan-request.js';

export interface CreateScanDeps {
  readonly scans: ScanStore;
  readonly workers: WorkerDirectory;
  readonly resolver: TargetResolver;
  /** Checks a callbackUrl like a webhook URL (refused ranges, resolution). */
  readonly urls: WebhookUrlChecker;
  readonly ids: IdSource;
  readonly randomBytes: RandomBytes;
  readonly allowPrivateTargets: boolean;
}

export interface ScanCaller {
  readonly tenantId: string;
  readonly apiKeyId: string | null;
  /** null: every engine (a dashboard JWT). */
  readonly allowedScanTypes: readonly string[] | null;
}

export async function createScan(
  deps: CreateScanDeps,
  caller: ScanCaller,
  body: unknown,
): Promise<ScanCreatedView> {
  const check = validateScanRequest(body, {
    allowedScanTypes: caller.allowedScanTypes,
    allowPrivateTargets: deps.allowPrivateTargets,
  });
  if (!check.ok) {
    throw check.error;
  }
  const request = check.request;
  if (request.callbackUrl !== null) {
    const callback = await deps.urls.check(request.callbackUrl);
    if (!callback.ok) {
      throw new ApiError(callback.code, { reason: callback.reason });
    }
  }
  if (!deps.allowPrivateTargets && !request.target.hostIsAddress && request.target.host !== null) {
    // A name that does not resolve now is accepted: the worker resolves it again at start and
    // fails the scan with TARGET_UNRESOLVABLE (decisions.md, "How a scan ends").
    const resolved = await deps.resolver.check(request.target, false);
    if (!resolved.ok && resolved.code === 'TARGET_NOT_ALLOWED') {
      throw new ApiError(
        'TARGET_NOT_ALLOWED',
        {},
        { message: `Target not allowed: ${resolved.message}` },
      );
    }
  }
  const runnable = await deps.workers.runnableEngines();
  if (!runnable.has(request.engine.name)) {
    throw new ApiError('SERVICE_UNAVAILABLE', {
      reason: `no worker can run ${request.engine.name} scans right now`,
    });
  }
  const callbackSecret =
    request.callbackUrl === null ? null : generateWebhookSecret(deps.randomBytes);
  const scan = await deps.scans.insert({
    id: deps.ids.uuid(),
    tenantId: caller.tenantId,
    apiKeyId: caller.apiKeyId,
    scanType: request.engine.name,
    name: request.name,
    target: request.target.value,
    targetType: request.target.type,
    priority: request.priority,
    tags: request.tags,
    options: request.options,
    config: request.config,
    timeoutSeconds: request.timeoutSeconds,
    assetId: request.assetId,
    callbackUrl: request.callbackUrl,
    callbackSecret,
    templateId: null,
    parentScanId: null,
  });
  return toScanCreatedView(scan, callbackSecret);
}
