/**
 * The interfaces use cases need from the outside world. Adapters implement them (adapters/db for
 * the stores); tests and the CLI pass their own clock and id source.
 */
import type { DraftFinding, Finding, Severity } from '../domain/findings/finding.js';
import type { ScanRecord } from '../domain/scans/scan.js';
import type { CancelConflict, ScanStatus } from '../domain/scans/status-machine.js';
import type { ScanTarget } from '../domain/targets/target.js';

export interface Clock {
  now(): Date;
}

export interface IdSource {
  uuid(): string;
}

export interface Tenant {
  readonly id: string;
  readonly status: 'active' | 'suspended';
  readonly monthlyScanQuota: number;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  readonly keyHash: string;
  readonly keyPrefix: string;
  readonly scopes: readonly string[];
  readonly allowedScanTypes: readonly string[];
  readonly allowedIpAddresses: readonly string[];
  readonly rateLimitPerMinute: number;
  readonly rateLimitPerHour: number;
  readonly rateLimitPerDay: number;
  /** Counter set shared by a key and its rotation successors. */
  readonly rateLimitBucket: string;
  readonly expiresAt: Date | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly revokedReason: string | null;
  readonly suspendedAt: Date | null;
  readonly rotatedToKeyId: string | null;
  readonly rotatedFromKeyId: string | null;
}

export type NewApiKey = Omit<
  ApiKeyRecord,
  'createdAt' | 'lastUsedAt' | 'revokedAt' | 'revokedReason' | 'suspendedAt' | 'rotatedToKeyId'
> & { readonly createdBy: string | null; readonly createdAt: Date };

export interface TenantStore {
  /** Returns the tenant, creating it (active, with this quota) the first time it is named. */
  ensure(id: string, monthlyScanQuota: number): Promise<Tenant>;
  get(id: string): Promise<Tenant | null>;
  setStatus(id: string, status: Tenant['status']): Promise<Tenant | null>;
  setQuota(id: string, monthlyScanQuota: number): Promise<Tenant | null>;
}

/** What one authentication lookup returns: key, tenant status and the database clock. */
export interface KeyForAuth {
  /** The fields the pipeline reads; description, keyHash and createdAt are not loaded here. */
  readonly key: ApiKeyRecord;
  readonly tenantStatus: Tenant['status'];
  readonly now: Date;
}

export type RotationPlan =
  | { readonly ok: true; readonly successor: NewApiKey; readonly oldKeyExpiresAt: Date }
  | { readonly ok: false; readonly reason: string };

export interface ApiKeyStore {
  insert(key: NewApiKey): Promise<ApiKeyRecord>;
  /** One round trip: the key by hash, its tenant's status and `now()` of the database. */
  findForAuth(keyHash: string): Promise<KeyForAuth | null>;
  /** A key of this tenant (null for another tenant's key). `tenantId` null: any tenant (admin). */
  findById(tenantId: string | null, id: string): Promise<ApiKeyRecord | null>;
  list(tenantId: string): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt and reason unless already revoked; returns the key as it is afterwards. */
  revoke(tenantId: string, id: string, reason: string | null): Promise<ApiKeyRecord | null>;
  setSuspended(id: string, suspended: boolean): Promise<ApiKeyRecord | null>;
  /**
   * Locks the key, lets `plan` decide (with the database clock) and, when it agrees, inserts the
   * successor and ends the old key's life at `oldKeyExpiresAt`, all in one transaction.
   */
  rotate(
    tenantId: string,
    id: string,
    plan: (current: ApiKeyRecord, now: Date) => RotationPlan,
  ): Promise<
    | {
        readonly ok: true;
        readonly key: ApiKeyRecord;
        readonly previous: ApiKeyRecord;
        readonly now: Date;
      }
    | { readonly ok: false; readonly reason: 'not-found' | string }
  >;
  /** Writes lastUsedAt = now() on each key unless it was written less than a minute ago. */
  touchLastUsed(ids: readonly string[]): Promise<void>;
  /** The database clock. */
  now(): Promise<Date>;
}

/** Notes that a key was used; `lastUsedAt` is written soon after, off the request path. */
export interface LastUsedRecorder {
  record(id: string): void;
}

/** A scan to insert, as create-scan has validated it: what a queued scan's record starts from. */
export type NewScan = Pick<
  ScanRecord,
  | 'id'
  | 'tenantId'
  | 'apiKeyId'
  | 'scanType'
  | 'name'
  | 'target'
  | 'targetType'
  | 'priority'
  | 'tags'
  | 'options'
  | 'config'
  | 'timeoutSeconds'
  | 'assetId'
  | 'callbackUrl'
  | 'templateId'
  | 'parentScanId'
> & { readonly callbackSecret: string | null };

/** What a sentinel scan stores besides its parent and child rows (the plan's outcome). */
export interface NewSentinelRun {
  readonly depth: string;
  readonly correlate: boolean;
  readonly riskScore: boolean;
  readonly skipped: ReadonlyArray<{ readonly engine: string; readonly reason: string }>;
}

/** A sentinel child scan as the API shows it in its parent's detail. */
export interface SentinelChildSummary {
  readonly scanId: string;
  readonly engine: string;
  readonly status: ScanStatus;
  readonly progress: number;
  readonly resultCount: number;
  readonly findingsSummary: Record<Severity, number>;
  readonly error: { readonly code: string; readonly message: string } | null;
}

/** The sentinel part of a parent scan. */
export interface SentinelRunView {
  readonly depth: string;
  readonly correlate: boolean;
  readonly riskScore: boolean;
  readonly skipped: ReadonlyArray<{ readonly engine: string; readonly reason: string }>;
  readonly children: readonly SentinelChildSummary[];
  /** The scan's risk factors once its findings were collected (riskScore on), else null. */
  readonly riskFactors: ReadonlyArray<{
    readonly factor: string;
    readonly points: number;
    readonly detail: string;
  }> | null;
}

export interface Page {
  readonly page: number;
  readonly limit: number;
}

export type CancelResult =
  | { readonly ok: true; readonly scan: ScanRecord }
  | { readonly ok: false; readonly reason: 'not-found' }
  | { readonly ok: false; readonly reason: 'conflict'; readonly code: CancelConflict };

/** Scans as the API reads and writes them. Every status write goes through the status machine. */
export interface ScanStore {
  /**
   * Counts the scan in the tenant's month (`YYYY-MM-01`) and inserts it queued, waking the
   * workers, atomically; null when the month's quota is used up (nothing is stored).
   */
  insert(scan: NewScan, quotaMonth: string): Promise<ScanRecord | null>;
  /**
   * Stores a sentinel scan: the parent (counted against the quota like `insert`), its children
   * (queued, not counted) and its run record, atomically; null when the quota is used up.
   */
  insertSentinel(
    parent: NewScan,
    children: readonly NewScan[],
    run: NewSentinelRun,
    quotaMonth: string,
  ): Promise<ScanRecord | null>;
  /** The sentinel part of a parent scan (null for any other scan). */
  sentinelRun(tenantId: string, scanId: string): Promise<SentinelRunView | null>;
  get(tenantId: string, id: string): Promise<ScanRecord | null>;
  list(
    tenantId: string,
    filter: {
      readonly scanType: string | null;
      readonly status: ScanStatus | null;
      /** null: top-level scans only (sentinel children are hidden); an id: that scan's children. */
      readonly parentScanId: string | null;
    },
    page: Page,
  ): Promise<{ readonly scans: ScanRecord[]; readonly total: number }>;
  /**
   * Cancels a queued or running scan and tells the worker running it, in one transaction (its
   * children, if any, are the cancel use case's to cancel).
   */
  cancel(tenantId: string, id: string): Promise<CancelResult>;
  listFindings(
    tenantId: string,
    scanId: string,
    filter: { readonly severity: Severity | null },
    page: Page | null,
  ): Promise<{ readonly findings: Finding[]; readonly total: number }>;
}

/** Which engines some live worker can run now (the 503 check and GET /api/v1/engines). */
export interface WorkerDirectory {
  runnableEngines(): Promise<ReadonlySet<string>>;
}

export type TargetCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: 'TARGET_UNRESOLVABLE' | 'TARGET_NOT_ALLOWED';
      readonly message: string;
    };

/** Resolves a target's name (if it has one) and judges every address it resolves to. */
export interface TargetResolver {
  check(target: ScanTarget, allowPrivate: boolean): Promise<TargetCheck>;
}

export interface EngineRunRequest {
  readonly scan: ScanRecord;
  readonly target: ScanTarget;
  /** The effective options, validated again against the engine's schema at claim time. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  onProgress(percent: number): void;
}

export interface EngineRunOutput {
  /** Findings read from the tool's output, also after a timeout or a cancel (partial output). */
  readonly findings: readonly DraftFinding[];
  readonly warnings: readonly string[];
  readonly ending: 'completed' | 'timed-out' | 'cancelled' | 'engine-error';
  /** For `engine-error`: what went wrong, for the scan's `error.message`. */
  readonly message: string | null;
}

/** Runs one engine on one target: the process runner for real tools, an instant double in tests. */
export interface EngineRunner {
  run(request: EngineRunRequest): Promise<EngineRunOutput>;
}

export type WebhookUrlCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: 'INVALID_WEBHOOK_URL' | 'WEBHOOK_URL_UNREACHABLE';
      readonly reason: string;
    };

/** Checks a webhook or callback URL when it is given (creation, PATCH, a scan's callbackUrl). */
export interface WebhookUrlChecker {
  check(url: string): Promise<WebhookUrlCheck>;
}

export interface WebhookRecord {
  /** The stored UUID; the API shows `wh-<uuid>`. */
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly url: string;
  readonly secret: string;
  readonly events: readonly string[];
  readonly isActive: boolean;
  readonly consecutiveFailures: number;
  readonly lastTriggeredAt: Date | null;
  readonly lastStatusCode: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface WebhookPatch {
  readonly name?: string;
  readonly url?: string;
  readonly events?: readonly string[];
  readonly isActive?: boolean;
}

export interface DeliveryAttemptRecord {
  readonly deliveryId: string;
  readonly event: string;
  readonly attempt: number;
  readonly statusCode: number;
  readonly success: boolean;
  readonly responseTimeMs: number;
  readonly error: string | null;
  readonly nextAttemptAt: Date | null;
  readonly attemptedAt: Date;
}

export interface WebhookStore {
  insert(webhook: {
    id: string;
    tenantId: string;
    name: string;
    url: string;
    secret: string;
    events: readonly string[];
  }): Promise<WebhookRecord>;
  list(tenantId: string, page: Page): Promise<{ webhooks: WebhookRecord[]; total: number }>;
  get(tenantId: string, id: string): Promise<WebhookRecord | null>;
  /** `isActive: true` also resets consecutiveFailures (decisions.md). */
  update(tenantId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null>;
  /** Deletes the webhook with its pending deliveries and their log. */
  delete(tenantId: string, id: string): Promise<boolean>;
  listAttempts(
    tenantId: string,
    webhookId: string,
    page: Page,
  ): Promise<{ attempts: DeliveryAttemptRecord[]; total: number }>;
  /** Logs a test delivery (one attempt); touches only lastTriggeredAt and lastStatusCode. */
  recordTest(
    webhook: WebhookRecord,
    delivery: { id: string; body: string; eventTimestamp: string },
    outcome: WebhookSendOutcome,
  ): Promise<void>;
}

export interface WebhookSendOutcome {
  readonly statusCode: number;
  readonly success: boolean;
  readonly responseTimeMs: number;
  readonly error: string | null;
}

/** Sends one signed delivery (the undici client in production). */
export interface WebhookSender {
  send(request: {
    url: string;
    headers: Record<string, string>;
    body: string;
  }): Promise<WebhookSendOutcome>;
}

export interface TemplateRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  readonly scanType: string;
  /** The options as given (defaults are filled in when a scan is created from it). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly config: Readonly<Record<string, unknown>>;
  readonly priority: string | null;
  readonly tags: readonly string[];
  readonly timeoutSeconds: number | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type TemplateFields = Omit<TemplateRecord, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'>;

export interface TemplateStore {
  /** 'duplicate-name' when the tenant has a template of that name (the unique index decides). */
  insert(
    template: TemplateFields & { readonly id: string; readonly tenantId: string },
  ): Promise<TemplateRecord | 'duplicate-name'>;
  list(tenantId: string, page: Page): Promise<{ templates: TemplateRecord[]; total: number }>;
  get(tenantId: string, id: string): Promise<TemplateRecord | null>;
  update(
    tenantId: string,
    id: string,
    fields: TemplateFields,
  ): Promise<TemplateRecord | null | 'duplicate-name'>;
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** Counts for GET /api/v1/usage. */
export interface UsageStore {
  /** Scans counted against the quota in the month `YYYY-MM-01`. */
  quotaUsed(tenantId: string, month: string): Promise<number>;
  /** The tenant's scans created in [start, end), by status and by engine. */
  scansBetween(
    tenantId: string,
    start: Date,
    end: Date,
  ): Promise<{ byStatus: Record<string, number>; byScanType: Record<string, number> }>;
}
