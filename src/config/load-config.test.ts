import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load-config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: null,
      dataDir: './data',
      redisUrl: null,
      jwt: { mode: 'secret', secret: null },
      apiKeyPrefix: 'rmp',
      allowPrivateTargets: false,
      allowPrivateWebhooks: false,
      webhookRetryDelaysMs: [0, 60000, 120000, 240000],
      webhookTimeoutMs: 30000,
      webhookTenantMaxInFlight: 4,
      webhookTestMaxConcurrent: 2,
      workers: 1,
      workerConcurrency: 2,
      defaultMonthlyScanQuota: 1000,
      trustedProxies: [],
      authFailuresPerMinute: 300,
      tenantLimits: {
        maxApiKeys: 100,
        maxWebhooks: 25,
        maxTemplates: 100,
        maxAssets: 1000,
        maxSchedules: 100,
        tokenRequestsPerMinute: 600,
      },
      databaseConnectTimeoutMs: 5000,
      databaseStatementTimeoutMs: 10000,
      workerHealthPort: null,
      workerEngines: null,
      metricsToken: null,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@db:5432/rampart',
      DATA_DIR: '/var/lib/rampart',
      REDIS_URL: 'redis://cache:6379',
      JWT_SECRET: 'x'.repeat(32),
      API_KEY_PREFIX: 'acme',
      ALLOW_PRIVATE_TARGETS: 'true',
      ALLOW_PRIVATE_WEBHOOKS: '1',
      WEBHOOK_RETRY_DELAYS_MS: '0,200,400,800',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_TENANT_MAX_IN_FLIGHT: '8',
      WEBHOOK_TEST_MAX_CONCURRENT: '1',
      WORKERS: '0',
      WORKER_CONCURRENCY: '4',
      DEFAULT_MONTHLY_SCAN_QUOTA: '50',
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1',
      AUTH_FAILURES_PER_MINUTE: '10',
      TENANT_MAX_API_KEYS: '3',
      TENANT_MAX_WEBHOOKS: '4',
      TENANT_MAX_TEMPLATES: '5',
      TENANT_MAX_ASSETS: '7',
      TENANT_MAX_SCHEDULES: '8',
      TENANT_TOKEN_REQUESTS_PER_MINUTE: '6',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
      WORKER_HEALTH_PORT: '9091',
      WORKER_ENGINES: 'nikto, wapiti,nikto',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u@db:5432/rampart',
      redisUrl: 'redis://cache:6379',
      jwt: { mode: 'secret', secret: 'x'.repeat(32) },
      apiKeyPrefix: 'acme',
      allowPrivateTargets: true,
      allowPrivateWebhooks: true,
      webhookRetryDelaysMs: [0, 200, 400, 800],
      webhookTenantMaxInFlight: 8,
      webhookTestMaxConcurrent: 1,
      workers: 0,
      trustedProxies: ['10.0.0.0/8', '127.0.0.1'],
      authFailuresPerMinute: 10,
      tenantLimits: {
        maxApiKeys: 3,
        maxWebhooks: 4,
        maxTemplates: 5,
        maxAssets: 7,
        maxSchedules: 8,
        tokenRequestsPerMinute: 6,
      },
      databaseConnectTimeoutMs: 1000,
      databaseStatementTimeoutMs: 1500,
      workerHealthPort: 9091,
      workerEngines: ['nikto', 'wapiti'],
    });
  });

  it('reads the scheduler settings', () => {
    expect(loadConfig({}).scheduler).toEqual({
      enabled: true,
      pollMs: 5_000,
      lateAfterMs: 300_000,
      maxFailures: 3,
    });
    expect(
      loadConfig({
        SCHEDULER: 'off',
        SCHEDULER_POLL_MS: '250',
        SCHEDULE_LATE_AFTER_MS: '0',
        SCHEDULE_MAX_FAILURES: '10',
      }).scheduler,
    ).toEqual({ enabled: false, pollMs: 250, lateAfterMs: 0, maxFailures: 10 });
    expect(() => loadConfig({ SCHEDULER: 'maybe' })).toThrow(/SCHEDULER.*on or off/);
    expect(() => loadConfig({ SCHEDULE_MAX_FAILURES: '0' })).toThrow(/SCHEDULE_MAX_FAILURES/);
  });

  it('reads the retention settings: findings kept forever unless set', () => {
    expect(loadConfig({}).retention).toEqual({
      eventsDays: 30,
      deliveriesDays: 30,
      findingsDays: 0,
      batchSize: 1000,
      intervalMs: 300_000,
    });
    expect(
      loadConfig({
        RETENTION_EVENTS_DAYS: '0',
        RETENTION_DELIVERIES_DAYS: '90',
        RETENTION_FINDINGS_DAYS: '365',
        RETENTION_BATCH_SIZE: '50',
        RETENTION_INTERVAL_MS: '60000',
      }).retention,
    ).toEqual({
      eventsDays: 0,
      deliveriesDays: 90,
      findingsDays: 365,
      batchSize: 50,
      intervalMs: 60_000,
    });
    expect(() => loadConfig({ RETENTION_BATCH_SIZE: '0' })).toThrow(/RETENTION_BATCH_SIZE/);
    expect(() => loadConfig({ RETENTION_FINDINGS_DAYS: '-1' })).toThrow(/RETENTION_FINDINGS_DAYS/);
    expect(() => loadConfig({ RETENTION_INTERVAL_MS: '10' })).toThrow(/RETENTION_INTERVAL_MS/);
  });

  it('switches to JWKS with issuer and audience', () => {
    expect(
      loadConfig({
        JWT_JWKS_URL: 'https://idp.example/jwks.json',
        JWT_ISSUER: 'idp',
        JWT_AUDIENCE: 'rampart',
      }).jwt,
    ).toEqual({
      mode: 'jwks',
      jwksUrl: 'https://idp.example/jwks.json',
      issuer: 'idp',
      audience: 'rampart',
    });
  });

  describe('the dashboard sign-in with the identity provider (OIDC_*)', () => {
    const jwks = {
      JWT_JWKS_URL: 'https://idp.example/jwks.json',
      JWT_ISSUER: 'https://idp.example/realms/main',
      JWT_AUDIENCE: 'rampart-api',
    };

    it('is off unless OIDC_CLIENT_ID is set', () => {
      expect(loadConfig({}).dashboardOidc).toBeNull();
      expect(loadConfig(jwks).dashboardOidc).toBeNull();
    });

    it('takes the provider from JWT_ISSUER and the audience from JWT_AUDIENCE', () => {
      expect(loadConfig({ ...jwks, OIDC_CLIENT_ID: 'rampart-dashboard' }).dashboardOidc).toEqual({
        issuer: 'https://idp.example/realms/main',
        clientId: 'rampart-dashboard',
        scopes: 'openid',
        audience: 'rampart-api',
        providerName: 'idp.example',
      });
      expect(
        loadConfig({
          ...jwks,
          OIDC_CLIENT_ID: 'rampart-dashboard',
          OIDC_SCOPES: ' openid  profile api://rampart/scans openid ',
          OIDC_PROVIDER_NAME: 'Example SSO',
        }).dashboardOidc,
      ).toMatchObject({
        scopes: 'openid profile api://rampart/scans',
        providerName: 'Example SSO',
      });
    });

    it.each<[Record<string, string>, string]>([
      [
        { OIDC_CLIENT_ID: 'dash' },
        'Invalid configuration: OIDC_CLIENT_ID needs JWT_JWKS_URL, JWT_ISSUER and JWT_AUDIENCE (the identity provider)',
      ],
      [
        { ...jwks, OIDC_SCOPES: 'openid' },
        'Invalid configuration: OIDC_SCOPES needs OIDC_CLIENT_ID',
      ],
      [
        { ...jwks, OIDC_PROVIDER_NAME: 'SSO' },
        'Invalid configuration: OIDC_PROVIDER_NAME needs OIDC_CLIENT_ID',
      ],
      [
        { ...jwks, OIDC_CLIENT_ID: 'dash', OIDC_SCOPES: 'profile email' },
        'Invalid configuration: OIDC_SCOPES must be space-separated OAuth scopes including openid',
      ],
      [
        { ...jwks, OIDC_CLIENT_ID: 'dash', OIDC_SCOPES: 'openid "quoted"' },
        'Invalid configuration: OIDC_SCOPES must be space-separated OAuth scopes including openid',
      ],
      ...['idp', 'http://idp.example', 'https://idp.example/?realm=x'].map(
        (issuer) =>
          [
            { ...jwks, JWT_ISSUER: issuer, OIDC_CLIENT_ID: 'dash' },
            'Invalid configuration: JWT_ISSUER must be an https: URL without query or fragment when OIDC_CLIENT_ID is set (the provider is discovered at <JWT_ISSUER>/.well-known/openid-configuration)',
          ] as [Record<string, string>, string],
      ),
    ])('refuses %j with one line naming the setting', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });
  });

  it('reads SECRETS_KEY and SECRETS_KEY_PREVIOUS as 32-byte base64 keys', () => {
    const current = Buffer.alloc(32, 1);
    const older = Buffer.alloc(32, 2);
    const oldest = Buffer.alloc(32, 3);
    expect(loadConfig({}).secrets).toEqual({ key: null, previousKeys: [] });
    expect(
      loadConfig({
        SECRETS_KEY: current.toString('base64'),
        SECRETS_KEY_PREVIOUS: `${older.toString('base64url')}, ${oldest.toString('base64')}`,
      }).secrets,
    ).toEqual({ key: current, previousKeys: [older, oldest] });
  });

  it.each([
    ['SECRETS_KEY', 'hunter2'],
    ['SECRETS_KEY', Buffer.alloc(16).toString('base64')],
    ['SECRETS_KEY', Buffer.alloc(33).toString('base64')],
    ['SECRETS_KEY_PREVIOUS', `${Buffer.alloc(32).toString('base64')},x`],
  ])('refuses %s=%s naming the variable and how to generate a key', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      `Invalid configuration: ${name} must be 32 bytes in base64 (generate one with: openssl rand -base64 32)`,
    );
  });

  it.each([
    [
      'JWT_JWKS_URL',
      { JWT_JWKS_URL: 'http://idp.example/jwks.json', JWT_ISSUER: 'idp', JWT_AUDIENCE: 'rampart' },
      'Invalid configuration: JWT_JWKS_URL must use https:',
    ],
    [
      'JWT_ISSUER',
      { JWT_JWKS_URL: 'https://idp.example/jwks.json', JWT_AUDIENCE: 'rampart' },
      'Invalid configuration: JWT_ISSUER must be set when JWT_JWKS_URL is set',
    ],
    [
      'JWT_AUDIENCE',
      { JWT_JWKS_URL: 'https://idp.example/jwks.json', JWT_ISSUER: 'idp' },
      'Invalid configuration: JWT_AUDIENCE must be set when JWT_JWKS_URL is set',
    ],
  ])('refuses JWKS mode over %s as configured', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'not a url'],
    ['JWT_SECRET', 'short'],
    ['API_KEY_PREFIX', 'Bad_Prefix'],
    ['ALLOW_PRIVATE_TARGETS', 'yes'],
    ['WEBHOOK_RETRY_DELAYS_MS', '0,1,2'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_TENANT_MAX_IN_FLIGHT', '0'],
    ['WEBHOOK_TEST_MAX_CONCURRENT', 'two'],
    ['WORKERS', '-1'],
    ['TRUSTED_PROXIES', '10.0.0.0/8,proxy.local'],
    ['AUTH_FAILURES_PER_MINUTE', '1.5'],
    ['TENANT_MAX_API_KEYS', '0'],
    ['TENANT_MAX_WEBHOOKS', 'many'],
    ['TENANT_MAX_TEMPLATES', '-5'],
    ['TENANT_MAX_ASSETS', '0'],
    ['TENANT_MAX_SCHEDULES', '1e3'],
    ['TENANT_TOKEN_REQUESTS_PER_MINUTE', '0'],
    ['LOG_LEVEL', 'loud'],
    ['ALLOW_PRIVATE_TARGETS', '10.20.0.1/16'],
    ['ALLOW_PRIVATE_TARGETS', '10.20.0.0/16,true'],
    ['ALLOW_PRIVATE_TARGETS', '127.1/32'],
    ['SCANNER_SANDBOX', 'maybe'],
    ['SCANNER_USER', 'Root User'],
    ['SCANNER_EGRESS_TABLE', 'rt'],
    ['SCANNER_EGRESS_TABLE', 'rampart_Egress'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '0'],
    ['DATABASE_STATEMENT_TIMEOUT_MS', '50'],
    ['WORKER_HEALTH_PORT', '65536'],
    ['WORKER_ENGINES', 'nmap,openvas'],
    ['METRICS_PORT', '70000'],
    ['METRICS_TOKEN', 'short'],
    ['METRICS_TOKEN', 'has a space in it, sixteen+'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'grpc://collector:4317'],
  ])('refuses %s=%s with a one-line message naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(name);
    expect((error as ConfigError).message).not.toContain('\n');
  });

  it('reads METRICS_PORT, or WORKER_HEALTH_PORT (its older name), and METRICS_TOKEN', () => {
    expect(loadConfig({ METRICS_PORT: '9464' }).workerHealthPort).toBe(9464);
    expect(loadConfig({ WORKER_HEALTH_PORT: '9091' }).workerHealthPort).toBe(9091);
    expect(loadConfig({ METRICS_PORT: '0', WORKER_HEALTH_PORT: '0' }).workerHealthPort).toBe(0);
    expect(() => loadConfig({ METRICS_PORT: '9464', WORKER_HEALTH_PORT: '9091' })).toThrow(
      'Invalid configuration: METRICS_PORT and WORKER_HEALTH_PORT (its older name) name different ports (9464, 9091); set only METRICS_PORT',
    );
    const token = 'a'.repeat(32);
    expect(loadConfig({ METRICS_TOKEN: token }).metricsToken).toBe(token);
    let message = '';
    try {
      loadConfig({ METRICS_TOKEN: 'secret value!' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('METRICS_TOKEN');
    expect(message).not.toContain('secret value');
  });

  it('turns traces on with OTEL_EXPORTER_OTLP_ENDPOINT and names the service OTEL_SERVICE_NAME', () => {
    expect(loadConfig({}).tracing).toEqual({ enabled: false, serviceName: null });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({
      enabled: true,
      serviceName: null,
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com',
        OTEL_SERVICE_NAME: 'rampart-eu',
      }).tracing,
    ).toEqual({ enabled: true, serviceName: 'rampart-eu' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }).tracing.enabled).toBe(false);
  });

  it('reads ALLOW_PRIVATE_TARGETS as a list of CIDR ranges', () => {
    expect(
      loadConfig({ ALLOW_PRIVATE_TARGETS: '10.20.0.0/16, 127.0.0.2,fd00:1::/64,10.20.0.0/16' })
        .allowPrivateTargets,
    ).toEqual(['10.20.0.0/16', '127.0.0.2/32', 'fd00:1::/64']);
    expect(loadConfig({ ALLOW_PRIVATE_TARGETS: '0' }).allowPrivateTargets).toBe(false);
  });

  it('reads the scanner sandbox mode, user and egress table', () => {
    expect(loadConfig({})).toMatchObject({
      scannerSandbox: { mode: 'auto', user: 'rampart-scanner' },
      scannerEgressTable: 'rampart_egress',
    });
    expect(
      loadConfig({
        SCANNER_SANDBOX: 'required',
        SCANNER_USER: 'scan_1',
        SCANNER_EGRESS_TABLE: 'rampart_test_42',
      }),
    ).toMatchObject({
      scannerSandbox: { mode: 'required', user: 'scan_1' },
      scannerEgressTable: 'rampart_test_42',
    });
  });
});

describe('loadConfig: the scanner sandbox', () => {
  it('sandboxes when it can, as rampart-scanner, with the documented limits by default', () => {
    expect(loadConfig({}).scannerSandbox).toEqual({
      mode: 'auto',
      user: 'rampart-scanner',
      limits: { memoryMb: 4096, processes: 512, fileSizeMb: 2048, cpuSeconds: 7200 },
    });
  });

  it('reads the mode, the user and every limit', () => {
    expect(
      loadConfig({
        SCANNER_SANDBOX: 'required',
        SCANNER_USER: 'scan_runner',
        SCANNER_MEMORY_LIMIT_MB: '1024',
        SCANNER_PROCESS_LIMIT: '64',
        SCANNER_FILE_SIZE_LIMIT_MB: '10',
        SCANNER_CPU_LIMIT_SECONDS: '60',
      }).scannerSandbox,
    ).toEqual({
      mode: 'required',
      user: 'scan_runner',
      limits: { memoryMb: 1024, processes: 64, fileSizeMb: 10, cpuSeconds: 60 },
    });
    expect(loadConfig({ SCANNER_SANDBOX: 'off' }).scannerSandbox.mode).toBe('off');
  });

  it.each([
    [
      'SCANNER_SANDBOX',
      'yes',
      'Invalid configuration: SCANNER_SANDBOX must be auto, required or off, got "yes"',
    ],
    [
      'SCANNER_USER',
      'root;id',
      'Invalid configuration: SCANNER_USER must be a user name, got "root;id"',
    ],
    [
      'SCANNER_MEMORY_LIMIT_MB',
      '100',
      'Invalid configuration: SCANNER_MEMORY_LIMIT_MB must be an integer from 256 to 1048576, got "100"',
    ],
    [
      'SCANNER_CPU_LIMIT_SECONDS',
      '1.5',
      'Invalid configuration: SCANNER_CPU_LIMIT_SECONDS must be an integer from 10 to 10000000, got "1.5"',
    ],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});

describe('verification settings', () => {
  it('default to the system resolvers, 10 s and 72 h of grace', () => {
    expect(loadConfig({}).verification).toEqual({
      dnsServers: [],
      timeoutMs: 10_000,
      graceHours: 72,
      intervalHours: 24,
      requireVerifiedTargets: 'off',
    });
    expect(
      loadConfig({ REQUIRE_VERIFIED_TARGETS: 'intrusive' }).verification.requireVerifiedTargets,
    ).toBe('intrusive');
    expect(() => loadConfig({ REQUIRE_VERIFIED_TARGETS: 'yes' })).toThrow(ConfigError);
  });

  it('read DNS servers with optional ports', () => {
    const config = loadConfig({
      VERIFICATION_DNS_SERVERS: '127.0.0.1:5353, [::1]:53,192.0.2.1',
      VERIFICATION_GRACE_HOURS: '0',
    });
    expect(config.verification.dnsServers).toEqual(['127.0.0.1:5353', '[::1]:53', '192.0.2.1']);
    expect(config.verification.graceHours).toBe(0);
  });

  it.each(['localhost:53', '127.0.0.1:0', '::1:53', '1.2.3.4:99999'])('refuse %s', (entry) => {
    expect(() => loadConfig({ VERIFICATION_DNS_SERVERS: entry })).toThrow(ConfigError);
  });
});
