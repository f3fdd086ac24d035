/**
 * The service's configuration: read once from an environment object, validated, frozen. This is
 * the only module that knows environment variable names (decisions.md, "Running the service").
 */
import ipaddr from 'ipaddr.js';
import {
  REQUIRE_VERIFIED_TARGETS_VALUES,
  type RequireVerifiedTargets,
} from '../domain/assets/verification-policy.js';
import {
  allowedRangeError,
  asCidr,
  type PrivateTargetPolicy,
} from '../domain/targets/private-target-policy.js';
import { MAX_RUNNING_SCANS_CAP } from '../domain/tenants/running-scans-cap.js';
import { ENGINE_NAMES, isEngineName } from '../engines/engine.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | null;
  /**
   * How long opening a PostgreSQL connection, or waiting for a pooled one, may take
   * (DATABASE_CONNECT_TIMEOUT_MS); also the deadline of /readyz's database check.
   */
  readonly databaseConnectTimeoutMs: number;
  /**
   * The server-side statement_timeout of every PostgreSQL statement (DATABASE_STATEMENT_TIMEOUT_MS);
   * the client gives up a little later, so a silent network path ends the call too.
   */
  readonly databaseStatementTimeoutMs: number;
  readonly dataDir: string;
  readonly redisUrl: string | null;
  readonly jwt: JwtConfig;
  /** The dashboard's sign-in with the identity provider (OIDC_*); null: token sign-in only. */
  readonly dashboardOidc: DashboardOidcConfig | null;
  /** The at-rest encryption keys of credentials in engine options (SECRETS_KEY, SECRETS_KEY_PREVIOUS). */
  readonly secrets: SecretsConfig;
  readonly apiKeyPrefix: string;
  /** ALLOW_PRIVATE_TARGETS: `false`, `true` or the CIDR ranges allowed despite being refused. */
  readonly allowPrivateTargets: PrivateTargetPolicy;
  readonly allowPrivateWebhooks: boolean;
  readonly webhookRetryDelaysMs: readonly number[];
  /** Ownership verification of assets (VERIFICATION_*, REQUIRE_VERIFIED_TARGETS). */
  readonly verification: VerificationConfig;
  readonly webhookTimeoutMs: number;
  /** Attempts in flight of one tenant's deliveries, over every process (WEBHOOK_TENANT_MAX_IN_FLIGHT). */
  readonly webhookTenantMaxInFlight: number;
  /** `POST /webhooks/:id/test` calls in progress per tenant, over every process (WEBHOOK_TEST_MAX_CONCURRENT). */
  readonly webhookTestMaxConcurrent: number;
  /** Scheduled scans (SCHEDULER_*, SCHEDULE_*): how often due schedules are looked for, when an
   * occurrence counts as missed, and after how many runs without a scan a schedule pauses. */
  /** Retention (RETENTION_*): how old finished rows are deleted, in batches, by one process. */
  readonly retention: RetentionConfig;
  readonly scheduler: {
    readonly enabled: boolean;
    readonly pollMs: number;
    readonly lateAfterMs: number;
    readonly maxFailures: number;
  };
  readonly workers: number;
  readonly workerConcurrency: number;
  /** How long a claimed scan stays with a worker that stopped heartbeating (WORKER_LEASE_MS). */
  readonly workerLeaseMs: number;
  /** How long running scans may finish after SIGTERM before they go back to the queue. */
  readonly workerShutdownGraceMs: number;
  /**
   * The engines this process's workers run (WORKER_ENGINES), of those whose scanners are installed;
   * null: every installed one. Worker processes of one engine pool set the pool's engines.
   */
  readonly workerEngines: readonly string[] | null;
  /**
   * The port of `npm run worker`'s /healthz, /readyz and /metrics (METRICS_PORT, or its older
   * name WORKER_HEALTH_PORT); null: none.
   */
  readonly workerHealthPort: number | null;
  /** METRICS_TOKEN: the bearer token GET /metrics needs; null: the route is public. */
  readonly metricsToken: string | null;
  /** OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME); see tracing(). */
  readonly tracing: TracingConfig;
  /** The PATH scanners are looked up on and run with (the only variable of the service's own environment they see, besides locale and TZ). */
  readonly scannerPath: string | null;
  /** How scanner processes are isolated (SCANNER_SANDBOX, SCANNER_USER, SCANNER_*_LIMIT). */
  readonly scannerSandbox: ScannerSandboxConfig;
  /** The nftables table (family inet) holding the scanner user's egress rules (SCANNER_EGRESS_TABLE). */
  readonly scannerEgressTable: string;
  readonly defaultMonthlyScanQuota: number;
  /** Running scans a tenant may have at once unless an admin set its own cap. */
  readonly tenantMaxRunningScans: number;
  readonly trustedProxies: readonly string[];
  readonly authFailuresPerMinute: number;
  /** Per-tenant caps and the dashboard-token request budget (TENANT_MAX_*, TENANT_TOKEN_*). */
  readonly tenantLimits: TenantLimits;
  readonly logLevel: string;
}

/** What is deleted after how long (README, Operations, "Retention"); 0 days: kept forever. */
export interface RetentionConfig {
  /** RETENTION_EVENTS_DAYS: scan events of the outbox, once fanned out into deliveries. */
  readonly eventsDays: number;
  /** RETENTION_DELIVERIES_DAYS: ended webhook, callback and test deliveries with their attempts. */
  readonly deliveriesDays: number;
  /** RETENTION_FINDINGS_DAYS: findings of scans that ended this long ago (0: the default, never). */
  readonly findingsDays: number;
  /** RETENTION_BATCH_SIZE: rows one delete statement removes at most. */
  readonly batchSize: number;
  /** RETENTION_INTERVAL_MS: how often a process looks for rows to delete. */
  readonly intervalMs: number;
}

export interface VerificationConfig {
  /** VERIFICATION_DNS_SERVERS: `address[:port]` entries for TXT lookups; empty: the system's. */
  readonly dnsServers: readonly string[];
  /** VERIFICATION_TIMEOUT_MS: deadline of one DNS lookup or HTTPS fetch. */
  readonly timeoutMs: number;
  /** VERIFICATION_GRACE_HOURS: how long a verified asset may miss its proof. */
  readonly graceHours: number;
  /** VERIFICATION_INTERVAL_HOURS: how often verified assets are checked again; 0: never. */
  readonly intervalHours: number;
  /** REQUIRE_VERIFIED_TARGETS: which scans need a verified asset covering their target. */
  readonly requireVerifiedTargets: RequireVerifiedTargets;
}

/** What one tenant may hold and how often its dashboard tokens may call (README, Configuration). */
export interface TenantLimits {
  /** API keys that can still authenticate: not revoked, not expired (TENANT_MAX_API_KEYS). */
  readonly maxApiKeys: number;
  /** Webhooks, active or disabled (TENANT_MAX_WEBHOOKS). */
  readonly maxWebhooks: number;
  /** Scan templates (TENANT_MAX_TEMPLATES). */
  readonly maxTemplates: number;
  /** Assets, verified or not (TENANT_MAX_ASSETS). */
  readonly maxAssets: number;
  /** Schedules, paused ones included (TENANT_MAX_SCHEDULES). */
  readonly maxSchedules: number;
  /** Requests per UTC minute of all of a tenant's dashboard JWTs together. */
  readonly tokenRequestsPerMinute: number;
}

export type JwtConfig =
  | { readonly mode: 'secret'; readonly secret: string | null }
  | {
      readonly mode: 'jwks';
      readonly jwksUrl: string;
      /** Required: without it any token of the identity provider, for any client, would pass. */
      readonly issuer: string;
      readonly audience: string;
    };

/**
 * The dashboard's OpenID Connect sign-in (authorization code with PKCE, a public client: no
 * secret). The provider is JWT_ISSUER, discovered at `<issuer>/.well-known/openid-configuration`;
 * the token the dashboard keeps is the access token, which must name JWT_AUDIENCE.
 */
export interface DashboardOidcConfig {
  /** JWT_ISSUER: an https: URL. */
  readonly issuer: string;
  /** OIDC_CLIENT_ID: the dashboard's client registered at the provider. */
  readonly clientId: string;
  /** OIDC_SCOPES: space-separated, `openid` among them. */
  readonly scopes: string;
  /** JWT_AUDIENCE: what the access token's `aud` must name for the service to accept it. */
  readonly audience: string;
  /** OIDC_PROVIDER_NAME, or the issuer's host: the button says "Sign in with <name>". */
  readonly providerName: string;
}

export interface SecretsConfig {
  /** SECRETS_KEY, 32 bytes; null: the key generated into DATA_DIR/secrets-key is used. */
  readonly key: Buffer | null;
  /** SECRETS_KEY_PREVIOUS: keys that still open values sealed before a rotation. */
  readonly previousKeys: readonly Buffer[];
}

export type ScannerSandboxMode = 'auto' | 'required' | 'off';

/**
 * `auto`: sandbox when this machine can, otherwise start with a warning naming what is missing;
 * `required`: refuse to start without it; `off`: run scanners as the service's own user.
 */
export interface ScannerSandboxConfig {
  readonly mode: ScannerSandboxMode;
  /** The unprivileged user scanners run as inside the sandbox. */
  readonly user: string;
  readonly limits: ScannerLimits;
}

/** Resource limits of each sandboxed scanner process (setrlimit; see README "Worker setup"). */
export interface ScannerLimits {
  /** Address space per process (RLIMIT_AS), MiB. */
  readonly memoryMb: number;
  /** Processes of the scanner user, all running scans together (RLIMIT_NPROC counts per user). */
  readonly processes: number;
  /** Largest file a scanner may write (RLIMIT_FSIZE), MiB. */
  readonly fileSizeMb: number;
  /** CPU time per process (RLIMIT_CPU), seconds. */
  readonly cpuSeconds: number;
}

/** A bad value; `main` prints the one-line message and exits with code 1. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`Invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) {
    return fallback;
  }
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** `on` (the default) or `off`. */
function onOff(env: Env, name: string): boolean {
  const raw = read(env, name) ?? 'on';
  if (raw !== 'on' && raw !== 'off') {
    throw new ConfigError(name, `must be on or off, got "${raw}"`);
  }
  return raw === 'on';
}

/**
 * METRICS_PORT, or WORKER_HEALTH_PORT (its name before metrics were served there); both set to
 * different values is an error.
 */
function metricsPort(env: Env): number | null {
  const port =
    read(env, 'METRICS_PORT') === undefined ? null : integer(env, 'METRICS_PORT', 0, 0, 65535);
  const alias =
    read(env, 'WORKER_HEALTH_PORT') === undefined
      ? null
      : integer(env, 'WORKER_HEALTH_PORT', 0, 0, 65535);
  if (port !== null && alias !== null && port !== alias) {
    throw new ConfigError(
      'METRICS_PORT',
      `and WORKER_HEALTH_PORT (its older name) name different ports (${port}, ${alias}); set only METRICS_PORT`,
    );
  }
  return port ?? alias;
}

/**
 * Traces are on when OTEL_EXPORTER_OTLP_ENDPOINT is set (an http or https URL); the OTel SDK reads
 * it and the rest of the standard OTEL_* variables itself. `serviceName` is OTEL_SERVICE_NAME, or
 * null for the process's own (`rampart-api`, `rampart-worker`).
 */
export interface TracingConfig {
  readonly enabled: boolean;
  readonly serviceName: string | null;
}

function tracing(env: Env): TracingConfig {
  const endpoint = read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint !== undefined) {
    let protocol: string | null = null;
    try {
      protocol = new URL(endpoint).protocol;
    } catch {
      protocol = null;
    }
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw new ConfigError(
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'must be an http or https URL (the OTLP collector)',
      );
    }
  }
  return { enabled: endpoint !== undefined, serviceName: read(env, 'OTEL_SERVICE_NAME') ?? null };
}

/** METRICS_TOKEN: 16 to 512 printable ASCII characters without spaces, or unset. */
function metricsToken(env: Env): string | null {
  const raw = read(env, 'METRICS_TOKEN');
  if (raw === undefined) {
    return null;
  }
  if (!/^[\x21-\x7e]{16,512}$/.test(raw)) {
    throw new ConfigError(
      'METRICS_TOKEN',
      'must be 16 to 512 printable ASCII characters without spaces (openssl rand -hex 32)',
    );
  }
  return raw;
}

function boolean(env: Env, name: string): boolean {
  const raw = read(env, name);
  if (raw === undefined) {
    return false;
  }
  if (raw === 'true' || raw === '1') {
    return true;
  }
  if (raw === 'false' || raw === '0') {
    return false;
  }
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/**
 * ALLOW_PRIVATE_TARGETS: `true`/`1`, `false`/`0` (the default), or a comma-separated list of
 * canonical addresses and CIDR ranges, kept as CIDR ranges.
 */
function privateTargetPolicy(env: Env): PrivateTargetPolicy {
  const raw = read(env, 'ALLOW_PRIVATE_TARGETS');
  if (raw === undefined || !/[./:]/.test(raw)) {
    return boolean(env, 'ALLOW_PRIVATE_TARGETS');
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const problem = allowedRangeError(entry);
    if (problem !== null) {
      throw new ConfigError(
        'ALLOW_PRIVATE_TARGETS',
        `must be true, false or a comma-separated list of CIDR ranges: ${problem}`,
      );
    }
  }
  return Object.freeze([...new Set(entries.map(asCidr))]);
}

function scannerSandbox(env: Env): ScannerSandboxConfig {
  const mode = read(env, 'SCANNER_SANDBOX') ?? 'auto';
  if (mode !== 'auto' && mode !== 'required' && mode !== 'off') {
    throw new ConfigError('SCANNER_SANDBOX', `must be auto, required or off, got "${mode}"`);
  }
  const user = read(env, 'SCANNER_USER') ?? 'rampart-scanner';
  // A name useradd would accept: the value reaches setpriv and id as one argument.
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(user)) {
    throw new ConfigError('SCANNER_USER', `must be a user name, got "${user}"`);
  }
  return Object.freeze({
    mode,
    user,
    limits: Object.freeze({
      memoryMb: integer(env, 'SCANNER_MEMORY_LIMIT_MB', 4096, 256, 1_048_576),
      processes: integer(env, 'SCANNER_PROCESS_LIMIT', 512, 16, 1_000_000),
      fileSizeMb: integer(env, 'SCANNER_FILE_SIZE_LIMIT_MB', 2048, 1, 1_048_576),
      cpuSeconds: integer(env, 'SCANNER_CPU_LIMIT_SECONDS', 7200, 10, 10_000_000),
    }),
  });
}

function egressTable(env: Env): string {
  const table = read(env, 'SCANNER_EGRESS_TABLE') ?? 'rampart_egress';
  // The prefix keeps the name clear of nft keywords (`rt`, `ip` …) and shows whose table it is.
  if (!/^rampart_[a-z0-9_]{1,40}$/.test(table)) {
    throw new ConfigError(
      'SCANNER_EGRESS_TABLE',
      `must be rampart_ followed by 1-40 lower-case letters, digits or underscores, got "${table}"`,
    );
  }
  return table;
}

/** WORKER_ENGINES: comma-separated engine names; unset: null (every engine found). */
function workerEngines(env: Env): readonly string[] | null {
  const raw = read(env, 'WORKER_ENGINES');
  if (raw === undefined) {
    return null;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isEngineName(entry)) {
      throw new ConfigError(
        'WORKER_ENGINES',
        `must be comma-separated engine names (${ENGINE_NAMES.join(', ')}), got "${entry}"`,
      );
    }
  }
  return Object.freeze([...new Set(entries)]);
}

function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = read(env, name);
  if (raw === undefined) {
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}`);
  }
  return raw;
}

function retryDelays(env: Env): number[] {
  const raw = read(env, 'WEBHOOK_RETRY_DELAYS_MS') ?? '0,60000,120000,240000';
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length !== 4 || parts.some((part) => !/^\d+$/.test(part))) {
    throw new ConfigError(
      'WEBHOOK_RETRY_DELAYS_MS',
      `must be 4 comma-separated non-negative integers, got "${raw}"`,
    );
  }
  return parts.map(Number);
}

function requireVerifiedTargets(env: Env): RequireVerifiedTargets {
  const raw = read(env, 'REQUIRE_VERIFIED_TARGETS') ?? 'off';
  const value = REQUIRE_VERIFIED_TARGETS_VALUES.find((candidate) => candidate === raw);
  if (value === undefined) {
    throw new ConfigError(
      'REQUIRE_VERIFIED_TARGETS',
      `must be off, intrusive or all, got "${raw}"`,
    );
  }
  return value;
}

/** VERIFICATION_DNS_SERVERS: `1.2.3.4`, `1.2.3.4:5353`, `[::1]:53`, comma-separated. */
function dnsServers(env: Env): string[] {
  const raw = read(env, 'VERIFICATION_DNS_SERVERS');
  if (raw === undefined) {
    return [];
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(entry);
    const host = match?.[1] ?? match?.[2] ?? '';
    const port = match?.[3];
    const valid =
      match !== null &&
      ipaddr.isValid(host) &&
      (match[1] === undefined ? !host.includes(':') : host.includes(':')) &&
      (port === undefined || (Number(port) >= 1 && Number(port) <= 65535));
    if (!valid) {
      throw new ConfigError(
        'VERIFICATION_DNS_SERVERS',
        `must be comma-separated addresses with optional ports (127.0.0.1:5353, [::1]:53), got "${entry}"`,
      );
    }
  }
  return entries;
}

function trustedProxies(env: Env): string[] {
  const raw = read(env, 'TRUSTED_PROXIES');
  if (raw === undefined) {
    return [];
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) {
      throw new ConfigError(
        'TRUSTED_PROXIES',
        `has an entry that is not an address or CIDR: "${entry}"`,
      );
    }
  }
  return entries;
}

/**
 * JWKS mode trusts an identity provider's keys fetched over the network, so the keys come over
 * https: only (a plain http: answer could be replaced on the way), and a token must name this
 * service: JWT_ISSUER and JWT_AUDIENCE are required, or every token the provider signs for any of
 * its clients would be accepted.
 */
function jwtConfig(env: Env): JwtConfig {
  const jwksUrl = url(env, 'JWT_JWKS_URL', ['https:']);
  const secret = read(env, 'JWT_SECRET') ?? null;
  if (jwksUrl !== null) {
    if (secret !== null) {
      throw new ConfigError('JWT_JWKS_URL', 'cannot be combined with JWT_SECRET; set only one');
    }
    const required = (name: string) => {
      const value = read(env, name);
      if (value === undefined) {
        throw new ConfigError(name, 'must be set when JWT_JWKS_URL is set');
      }
      return value;
    };
    return {
      mode: 'jwks',
      jwksUrl,
      issuer: required('JWT_ISSUER'),
      audience: required('JWT_AUDIENCE'),
    };
  }
  if (secret !== null && Buffer.byteLength(secret, 'utf8') < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 bytes long');
  }
  return { mode: 'secret', secret };
}

/** One OAuth scope token (RFC 6749, section 3.3): printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The dashboard's sign-in with the identity provider of JWKS mode: OIDC_CLIENT_ID turns it on; the
 * other OIDC_* settings only mean something with it.
 */
function dashboardOidc(env: Env, jwt: JwtConfig): DashboardOidcConfig | null {
  const clientId = read(env, 'OIDC_CLIENT_ID');
  if (clientId === undefined) {
    for (const name of ['OIDC_SCOPES', 'OIDC_PROVIDER_NAME']) {
      if (read(env, name) !== undefined) {
        throw new ConfigError(name, 'needs OIDC_CLIENT_ID');
      }
    }
    return null;
  }
  if (jwt.mode !== 'jwks') {
    throw new ConfigError(
      'OIDC_CLIENT_ID',
      'needs JWT_JWKS_URL, JWT_ISSUER and JWT_AUDIENCE (the identity provider)',
    );
  }
  let issuer: URL | null = null;
  try {
    issuer = new URL(jwt.issuer);
  } catch {
    issuer = null;
  }
  if (
    issuer === null ||
    issuer.protocol !== 'https:' ||
    issuer.search !== '' ||
    issuer.hash !== ''
  ) {
    throw new ConfigError(
      'JWT_ISSUER',
      'must be an https: URL without query or fragment when OIDC_CLIENT_ID is set (the provider is discovered at <JWT_ISSUER>/.well-known/openid-configuration)',
    );
  }
  const scopes = (read(env, 'OIDC_SCOPES') ?? 'openid').split(/\s+/);
  if (!scopes.every((scope) => SCOPE_TOKEN.test(scope)) || !scopes.includes('openid')) {
    throw new ConfigError('OIDC_SCOPES', 'must be space-separated OAuth scopes including openid');
  }
  return {
    issuer: jwt.issuer,
    clientId,
    scopes: [...new Set(scopes)].join(' '),
    audience: jwt.audience,
    providerName: read(env, 'OIDC_PROVIDER_NAME') ?? issuer.host,
  };
}

const SECRETS_KEY_HINT = 'generate one with: openssl rand -base64 32';

/** One key of SECRETS_KEY or SECRETS_KEY_PREVIOUS: 32 bytes in base64 (or base64url). */
function secretsKey(name: string, raw: string): Buffer {
  const key = /^[A-Za-z0-9+/_-]{43}=?$/.test(raw) ? Buffer.from(raw, 'base64') : null;
  if (key === null || key.length !== 32) {
    throw new ConfigError(name, `must be 32 bytes in base64 (${SECRETS_KEY_HINT})`);
  }
  return key;
}

function secretsConfig(env: Env): SecretsConfig {
  const current = read(env, 'SECRETS_KEY');
  const previous = read(env, 'SECRETS_KEY_PREVIOUS');
  return Object.freeze({
    key: current === undefined ? null : secretsKey('SECRETS_KEY', current),
    previousKeys: Object.freeze(
      previous === undefined
        ? []
        : previous.split(',').map((entry) => secretsKey('SECRETS_KEY_PREVIOUS', entry.trim())),
    ),
  });
}

/** Builds the frozen configuration from an environment object (normally `process.env`). */
export function loadConfig(env: Env): Config {
  const prefix = read(env, 'API_KEY_PREFIX') ?? 'rmp';
  if (!/^[a-z][a-z0-9]{1,15}$/.test(prefix)) {
    throw new ConfigError(
      'API_KEY_PREFIX',
      'must be 2-16 lower-case letters or digits, starting with a letter',
    );
  }
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `must be one of fatal, error, warn, info, debug, trace, silent`,
    );
  }
  const jwt = Object.freeze(jwtConfig(env));
  const oidc = dashboardOidc(env, jwt);
  return Object.freeze({
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: read(env, 'HOST') ?? '127.0.0.1',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    databaseStatementTimeoutMs: integer(
      env,
      'DATABASE_STATEMENT_TIMEOUT_MS',
      10_000,
      100,
      3_600_000,
    ),
    dataDir: read(env, 'DATA_DIR') ?? './data',
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    jwt,
    dashboardOidc: oidc === null ? null : Object.freeze(oidc),
    secrets: secretsConfig(env),
    apiKeyPrefix: prefix,
    allowPrivateTargets: privateTargetPolicy(env),
    allowPrivateWebhooks: boolean(env, 'ALLOW_PRIVATE_WEBHOOKS'),
    webhookRetryDelaysMs: Object.freeze(retryDelays(env)),
    verification: Object.freeze({
      dnsServers: Object.freeze(dnsServers(env)),
      timeoutMs: integer(env, 'VERIFICATION_TIMEOUT_MS', 10_000, 100, 120_000),
      graceHours: integer(env, 'VERIFICATION_GRACE_HOURS', 72, 0, 8760),
      intervalHours: integer(env, 'VERIFICATION_INTERVAL_HOURS', 24, 0, 8760),
      requireVerifiedTargets: requireVerifiedTargets(env),
    }),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 30_000, 1, 600_000),
    webhookTenantMaxInFlight: integer(env, 'WEBHOOK_TENANT_MAX_IN_FLIGHT', 4, 1, 1000),
    webhookTestMaxConcurrent: integer(env, 'WEBHOOK_TEST_MAX_CONCURRENT', 2, 1, 1000),
    retention: Object.freeze({
      eventsDays: integer(env, 'RETENTION_EVENTS_DAYS', 30, 0, 36_500),
      deliveriesDays: integer(env, 'RETENTION_DELIVERIES_DAYS', 30, 0, 36_500),
      findingsDays: integer(env, 'RETENTION_FINDINGS_DAYS', 0, 0, 36_500),
      batchSize: integer(env, 'RETENTION_BATCH_SIZE', 1000, 1, 100_000),
      intervalMs: integer(env, 'RETENTION_INTERVAL_MS', 300_000, 1_000, 86_400_000),
    }),
    scheduler: Object.freeze({
      enabled: onOff(env, 'SCHEDULER'),
      pollMs: integer(env, 'SCHEDULER_POLL_MS', 5_000, 10, 3_600_000),
      lateAfterMs: integer(env, 'SCHEDULE_LATE_AFTER_MS', 300_000, 0, 86_400_000),
      maxFailures: integer(env, 'SCHEDULE_MAX_FAILURES', 3, 1, 1000),
    }),
    workers: integer(env, 'WORKERS', 1, 0, 64),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 2, 1, 64),
    workerLeaseMs: integer(env, 'WORKER_LEASE_MS', 30_000, 1_000, 3_600_000),
    workerShutdownGraceMs: integer(env, 'WORKER_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
    workerEngines: workerEngines(env),
    workerHealthPort: metricsPort(env),
    metricsToken: metricsToken(env),
    tracing: Object.freeze(tracing(env)),
    scannerPath: read(env, 'PATH') ?? null,
    scannerSandbox: scannerSandbox(env),
    scannerEgressTable: egressTable(env),
    defaultMonthlyScanQuota: integer(env, 'DEFAULT_MONTHLY_SCAN_QUOTA', 1000, 0, 10_000_000),
    tenantMaxRunningScans: integer(env, 'TENANT_MAX_RUNNING_SCANS', 4, 1, MAX_RUNNING_SCANS_CAP),
    trustedProxies: Object.freeze(trustedProxies(env)),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 300, 1, 1_000_000),
    tenantLimits: Object.freeze({
      maxApiKeys: integer(env, 'TENANT_MAX_API_KEYS', 100, 1, 1_000_000),
      maxWebhooks: integer(env, 'TENANT_MAX_WEBHOOKS', 25, 1, 1_000_000),
      maxTemplates: integer(env, 'TENANT_MAX_TEMPLATES', 100, 1, 1_000_000),
      maxAssets: integer(env, 'TENANT_MAX_ASSETS', 1000, 1, 1_000_000),
      maxSchedules: integer(env, 'TENANT_MAX_SCHEDULES', 100, 1, 1_000_000),
      tokenRequestsPerMinute: integer(env, 'TENANT_TOKEN_REQUESTS_PER_MINUTE', 600, 1, 1_000_000),
    }),
    logLevel,
  });
}

/**
 * For entry points: the configuration from `process.env`-like input, or a one-line message on
 * stderr and exit code 1 when a value is bad (decisions.md, "Running the service").
 */
export function loadConfigOrExit(env: Env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
