import type { FastifyPluginCallback } from 'fastify';
import type { Config } from '../../config/load-config.js';
import type { RandomBytes } from '../../domain/api-keys/raw-key.js';
import type { Scope } from '../../domain/api-keys/scopes.js';
import type { RateLimitDecision } from '../../domain/rate-limits/windows.js';
import type {
  ApiKeyRecord,
  ApiKeyStore,
  LastUsedRecorder,
} from '../../use-cases/ports/api-keys.js';
import type { AssetStore, ProofReader } from '../../use-cases/ports/assets.js';
import type { Clock, IdSource } from '../../use-cases/ports/common.js';
import type { IssueStore } from '../../use-cases/ports/issues.js';
import type { ServiceMetrics } from '../../use-cases/ports/metrics.js';
import type { ScanStore, TargetResolver, WorkerDirectory } from '../../use-cases/ports/scans.js';
import type { ScheduleStore } from '../../use-cases/ports/schedules.js';
import type { SecretBox } from '../../use-cases/ports/secrets.js';
import type { TemplateStore } from '../../use-cases/ports/templates.js';
import type { TenantStore } from '../../use-cases/ports/tenants.js';
import type { ScanTracing } from '../../use-cases/ports/tracing.js';
import type { UsageStore } from '../../use-cases/ports/usage.js';
import type {
  WebhookSender,
  WebhookStore,
  WebhookUrlChecker,
} from '../../use-cases/ports/webhooks.js';
import type { CancelFollowUp } from '../../use-cases/scans/cancel-scan.js';
import type { ChildScanPlanner } from '../../use-cases/scans/create-scan.js';
import type { TokenVerifier } from '../auth-tokens/jwt.js';
import type { HealthCheck } from '../db/database-health.js';
import type { MetricsRegistry } from '../metrics/service-metrics.js';
import type { RateLimitStore } from '../rate-limit-store/rate-limit-store.js';

/** One engine as GET /api/v1/engines reports it. */
export interface EngineAvailability {
  readonly name: string;
  readonly description: string;
  readonly available: boolean;
  readonly version: string | null;
  readonly targetTypes: readonly string[];
  readonly optionsSchema: unknown;
  /** JSON Schema of the scan `config`, for the engines that take one (issue 21). */
  readonly configSchema?: unknown;
}

/** Everything the HTTP layer needs, built once by main/compose.ts (or a test harness). */
export interface AppDeps {
  readonly config: Config;
  readonly apiKeys: ApiKeyStore;
  /** Batches lastUsedAt writes off the request path. */
  readonly lastUsed: LastUsedRecorder;
  readonly tenants: TenantStore;
  readonly rateLimits: RateLimitStore;
  readonly tokens: TokenVerifier;
  /** Engines as probed on this node's PATH (version); `available` is read from `workers`. */
  readonly engines: readonly EngineAvailability[];
  readonly scans: ScanStore;
  /** Child scans of sentinel scans: planned at creation, cancelled with their parent. */
  readonly childScans: ChildScanPlanner & CancelFollowUp;
  /** Which engines a live worker can run (the 503 check, GET /api/v1/engines). */
  readonly workers: WorkerDirectory;
  readonly resolver: TargetResolver;
  readonly webhooks: WebhookStore;
  readonly templates: TemplateStore;
  /** Registered assets (issue 24): their CRUD, a scan's covering asset. */
  readonly assets: AssetStore;
  /** Reads ownership proofs: TXT records, the HTTPS file (through the webhook SSRF guard). */
  readonly proofs: ProofReader;
  readonly schedules: ScheduleStore;
  /** Seals credentials of engine options before scans and templates store them (SECRETS_KEY). */
  readonly secrets: SecretBox;
  readonly usage: UsageStore;
  /** Issues across rescans (issue 23). */
  readonly issues: IssueStore;
  /** Checks webhook and callback URLs when they are given (ALLOW_PRIVATE_WEBHOOKS applied). */
  readonly webhookUrls: WebhookUrlChecker;
  readonly webhookSender: WebhookSender;
  /** Tells the webhook dispatcher that events may be waiting (after a cancel). */
  wakeDispatcher(): void;
  readonly clock: Clock;
  /** This process's metrics: the registry GET /metrics renders, and its event recorder. */
  readonly metrics: ServiceMetrics;
  readonly metricsRegistry: MetricsRegistry;
  /** The trace context a new scan keeps (no-op when tracing is off). */
  readonly tracing: ScanTracing;
  /** @fastify/otel's plugin of request spans, registered before the routes; null: tracing off. */
  readonly httpTracing: FastifyPluginCallback | null;
  readonly ids: IdSource;
  readonly randomBytes: RandomBytes;
  /**
   * Whether this process can serve, and why not (for /readyz): its database answers (and the
   * embedded one has room), and its scan workers, if it runs any, can claim.
   */
  readiness(): Promise<HealthCheck>;
}

/** Who is calling: an API key (tenant routes) or a dashboard JWT. */
export type AuthContext =
  | {
      readonly kind: 'api-key';
      readonly tenantId: string;
      readonly key: ApiKeyRecord;
      /** The rate-limit store's answer when this request was admitted (GET /api/v1/usage). */
      readonly admission: RateLimitDecision;
    }
  | {
      readonly kind: 'jwt';
      readonly tenantId: string;
      readonly subject: string;
      readonly admin: boolean;
    };

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** Scope an API key needs for this route; absent: any valid key. */
    scope?: Scope;
    /** JWT routes: only tokens with role admin. */
    admin?: boolean;
  }
}
