/**
 * One set of security checks run over every route the app registers, against a listening server:
 * who may call the route (anyone; a key with the route's scope or a dashboard JWT; a JWT; an admin
 * JWT), and that another tenant's resource and an id that is not a UUID both get the route's 404
 * code. ROUTES holds each route's access and fixture; the first test fails when the app registers
 * a route that ROUTES does not list (or ROUTES lists one the app no longer has), so a new route
 * cannot skip these checks.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../src/adapters/auth-tokens/jwt.js';
import { SCOPES, type Scope } from '../../src/domain/api-keys/scopes.js';
import { draftFinding, instantEngine } from '../doubles/engines.js';
import { bearer, createKey, type TestResponse, tokenFor, useTestApp } from '../support/harness.js';
import { registeredRoutes } from '../support/registered-routes.js';
import { waitUntilEnded } from '../support/scans.js';

/** A resource a route's id parameter names, and the 404 its routes answer when it is not there. */
const NOT_FOUND = {
  scan: { noun: 'scan', code: 'SCAN_NOT_FOUND', error: 'Scan not found' },
  webhook: { noun: 'webhook', code: 'WEBHOOK_NOT_FOUND', error: 'Webhook not found' },
  template: { noun: 'template', code: 'TEMPLATE_NOT_FOUND', error: 'Template not found' },
  asset: { noun: 'asset', code: 'ASSET_NOT_FOUND', error: 'Asset not found' },
  schedule: { noun: 'schedule', code: 'SCHEDULE_NOT_FOUND', error: 'Schedule not found' },
  apiKey: { noun: 'API key', code: 'API_KEY_NOT_FOUND', error: 'API key not found' },
  tenant: { noun: 'tenant', code: 'TENANT_NOT_FOUND', error: 'Tenant not found' },
  issue: { noun: 'issue', code: 'ISSUE_NOT_FOUND', error: 'Issue not found' },
} as const;
type Resource = keyof typeof NOT_FOUND;
/** The resources a tenant owns (a tenant is not one: only admin routes name tenants). */
type OwnedResource = Exclude<Resource, 'tenant'>;

/** Ids that are not UUIDs (nor `wh-<uuid>`): decisions.md answers them with the 404 code too. */
const MALFORMED_IDS = ['not-a-uuid', 'wh-not-a-uuid', "1'%20or%201=1"];

/** What an admitted caller gets from a route without an id (with the body given). */
interface Answer {
  readonly status: number;
  readonly code?: string;
}

/**
 * A route with an id is called with another tenant's real resource (admitted callers get the
 * resource's 404); a route without one is called as is and answers `admitted`. `body` is sent as
 * JSON; on routes with an id it is valid, so that the id decides the answer.
 */
type Fixture =
  | { readonly resource: OwnedResource; readonly body?: unknown }
  | { readonly admitted: Answer; readonly body?: unknown };

type RouteAccess =
  /** `path`: what a wildcard route is called with (a file it serves). */
  | { readonly auth: 'public'; readonly path?: string }
  | ({ readonly auth: 'api-key'; readonly scope: Scope | null } & Fixture)
  | ({ readonly auth: 'jwt' } & Fixture)
  /** Admin routes act on any tenant's records, so only unknown and malformed ids are checked. */
  | { readonly auth: 'admin'; readonly resource: Resource; readonly body?: unknown };

const OK: Answer = { status: 200 };
const MISSING_FIELD: Answer = { status: 400, code: 'MISSING_REQUIRED_FIELD' };

/** Every route of the app, as `METHOD /path` (HEAD routes follow their GET route). */
const ROUTES: Record<string, RouteAccess> = {
  'GET /healthz': { auth: 'public' },
  'GET /readyz': { auth: 'public' },
  'GET /api/v1/openapi.json': { auth: 'public' },
  // Swagger UI (@fastify/swagger-ui, docs-page.ts): the page, the document it loads (the one
  // above, also as YAML), its bundled files, and a redirect from index.html to the page.
  'GET /docs': { auth: 'public' },
  // The dashboard's pages and files: public like /docs (the app signs in; the API checks each call).
  'GET /app': { auth: 'public' },
  'GET /app/*': { auth: 'public', path: '/app/scans' },
  'GET /docs/json': { auth: 'public' },
  'GET /docs/yaml': { auth: 'public' },
  'GET /docs/static/*': { auth: 'public', path: '/docs/static/swagger-ui-bundle.js' },
  'GET /docs/static/index.html': { auth: 'public' },
  'GET /docs/static/swagger-initializer.js': { auth: 'public' },
  // Public unless METRICS_TOKEN is set (metrics.test.ts checks the token).
  'GET /metrics': { auth: 'public' },

  // Any valid key, whatever its scopes.
  'GET /api/v1/engines': { auth: 'api-key', scope: null, admitted: OK },
  'POST /api/v1/scans': {
    auth: 'api-key',
    scope: 'scans:create',
    admitted: MISSING_FIELD,
    body: {},
  },
  'GET /api/v1/scans': { auth: 'api-key', scope: 'scans:list', admitted: OK },
  'GET /api/v1/scans/:scanId': { auth: 'api-key', scope: 'scans:read', resource: 'scan' },
  'POST /api/v1/scans/:scanId/cancel': { auth: 'api-key', scope: 'scans:cancel', resource: 'scan' },
  'GET /api/v1/scans/:scanId/results': { auth: 'api-key', scope: 'results:read', resource: 'scan' },
  'GET /api/v1/scans/:scanId/findings': {
    auth: 'api-key',
    scope: 'results:read',
    resource: 'scan',
  },
  'GET /api/v1/scans/:scanId/diff': { auth: 'api-key', scope: 'results:read', resource: 'scan' },
  'GET /api/v1/issues': { auth: 'api-key', scope: 'results:read', admitted: OK },
  'GET /api/v1/issues/:issueId': { auth: 'api-key', scope: 'results:read', resource: 'issue' },
  'PATCH /api/v1/issues/:issueId': {
    auth: 'api-key',
    scope: 'results:triage',
    resource: 'issue',
    body: { triage: 'false_positive', reason: 'an intruder' },
  },
  'POST /api/v1/issues/triage': {
    auth: 'api-key',
    scope: 'results:triage',
    admitted: OK,
    body: { filter: { target: '203.0.113.9' }, triage: 'false_positive' },
  },
  'POST /api/v1/webhooks': {
    auth: 'api-key',
    scope: 'webhooks:create',
    admitted: MISSING_FIELD,
    body: {},
  },
  'GET /api/v1/webhooks': { auth: 'api-key', scope: 'webhooks:read', admitted: OK },
  'GET /api/v1/webhooks/:webhookId': {
    auth: 'api-key',
    scope: 'webhooks:read',
    resource: 'webhook',
  },
  'PATCH /api/v1/webhooks/:webhookId': {
    auth: 'api-key',
    scope: 'webhooks:update',
    resource: 'webhook',
    body: { name: 'renamed' },
  },
  'DELETE /api/v1/webhooks/:webhookId': {
    auth: 'api-key',
    scope: 'webhooks:delete',
    resource: 'webhook',
  },
  'POST /api/v1/webhooks/:webhookId/test': {
    auth: 'api-key',
    scope: 'webhooks:create',
    resource: 'webhook',
  },
  'GET /api/v1/webhooks/:webhookId/deliveries': {
    auth: 'api-key',
    scope: 'webhooks:read',
    resource: 'webhook',
  },
  // The delivery id stays `:deliveryId` (call() fills the first parameter): the webhook decides.
  'POST /api/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver': {
    auth: 'api-key',
    scope: 'webhooks:update',
    resource: 'webhook',
  },
  'POST /api/v1/webhooks/:webhookId/deliveries/recover': {
    auth: 'api-key',
    scope: 'webhooks:update',
    resource: 'webhook',
    body: { since: '2026-01-01T00:00:00Z' },
  },
  'POST /api/v1/templates': {
    auth: 'api-key',
    scope: 'templates:create',
    admitted: { status: 400, code: 'TEMPLATE_NAME_REQUIRED' },
    body: {},
  },
  'GET /api/v1/templates': { auth: 'api-key', scope: 'templates:read', admitted: OK },
  'GET /api/v1/templates/:templateId': {
    auth: 'api-key',
    scope: 'templates:read',
    resource: 'template',
  },
  'PATCH /api/v1/templates/:templateId': {
    auth: 'api-key',
    scope: 'templates:update',
    resource: 'template',
    body: { name: 'renamed' },
  },
  'DELETE /api/v1/templates/:templateId': {
    auth: 'api-key',
    scope: 'templates:delete',
    resource: 'template',
  },
  'GET /api/v1/usage': { auth: 'api-key', scope: 'usage:read', admitted: OK },
  'GET /api/v1/usage/daily': { auth: 'api-key', scope: 'usage:read', admitted: OK },
  'POST /api/v1/assets': {
    auth: 'api-key',
    scope: 'assets:write',
    admitted: MISSING_FIELD,
    body: {},
  },
  'GET /api/v1/assets': { auth: 'api-key', scope: 'assets:read', admitted: OK },
  'GET /api/v1/assets/:assetId': { auth: 'api-key', scope: 'assets:read', resource: 'asset' },
  'PATCH /api/v1/assets/:assetId': {
    auth: 'api-key',
    scope: 'assets:write',
    resource: 'asset',
    body: { name: 'renamed' },
  },
  'DELETE /api/v1/assets/:assetId': { auth: 'api-key', scope: 'assets:write', resource: 'asset' },
  'POST /api/v1/assets/:assetId/verify': {
    auth: 'api-key',
    scope: 'assets:write',
    resource: 'asset',
  },
  'POST /api/v1/schedules': {
    auth: 'api-key',
    scope: 'schedules:write',
    admitted: MISSING_FIELD,
    body: {},
  },
  'GET /api/v1/schedules': { auth: 'api-key', scope: 'schedules:read', admitted: OK },
  'GET /api/v1/schedules/:scheduleId': {
    auth: 'api-key',
    scope: 'schedules:read',
    resource: 'schedule',
  },
  'PATCH /api/v1/schedules/:scheduleId': {
    auth: 'api-key',
    scope: 'schedules:write',
    resource: 'schedule',
    body: { paused: true },
  },
  'DELETE /api/v1/schedules/:scheduleId': {
    auth: 'api-key',
    scope: 'schedules:write',
    resource: 'schedule',
  },

  'POST /api/v1/api-keys': { auth: 'jwt', admitted: MISSING_FIELD, body: {} },
  'GET /api/v1/api-keys': { auth: 'jwt', admitted: OK },
  'GET /api/v1/api-keys/:keyId': { auth: 'jwt', resource: 'apiKey' },
  'DELETE /api/v1/api-keys/:keyId': { auth: 'jwt', resource: 'apiKey' },
  'POST /api/v1/api-keys/:keyId/rotate': { auth: 'jwt', resource: 'apiKey' },

  'POST /api/v1/admin/api-keys/:keyId/suspend': { auth: 'admin', resource: 'apiKey' },
  'POST /api/v1/admin/api-keys/:keyId/reinstate': { auth: 'admin', resource: 'apiKey' },
  'POST /api/v1/admin/tenants/:tenantId/suspend': { auth: 'admin', resource: 'tenant' },
  'POST /api/v1/admin/tenants/:tenantId/reinstate': { auth: 'admin', resource: 'tenant' },
  'PUT /api/v1/admin/tenants/:tenantId/quota': {
    auth: 'admin',
    resource: 'tenant',
    body: { monthlyScanQuota: 5 },
  },
  'POST /api/v1/admin/assets/:assetId/verify': { auth: 'admin', resource: 'asset' },
  'POST /api/v1/admin/assets/:assetId/unverify': { auth: 'admin', resource: 'asset' },
  'PUT /api/v1/admin/tenants/:tenantId/max-running-scans': {
    auth: 'admin',
    resource: 'tenant',
    body: { maxRunningScans: 8 },
  },
};

type Access<A extends RouteAccess['auth']> = Extract<RouteAccess, { auth: A }>;
const routesWith = <A extends RouteAccess['auth']>(...auths: A[]) =>
  Object.entries(ROUTES).filter((entry): entry is [string, Access<A>] =>
    (auths as string[]).includes(entry[1].auth),
  );

const ctx = useTestApp(
  {
    WORKERS: '1',
    WORKER_SHUTDOWN_GRACE_MS: '100',
    // The suite answers well over a hundred 401s to 127.0.0.1 within a minute on purpose.
    AUTH_FAILURES_PER_MINUTE: '100000',
  },
  {
    // One finding a scan, so the owner's scan makes an issue.
    engineRunners: new Map([['nmap', instantEngine(() => [draftFinding()])]]),
    resolver: { check: async () => ({ ok: true as const, addresses: [] }) },
    webhookLookup: async () => ['203.0.113.50'],
  },
);

/** The owner's resources, which the intruder (another tenant) asks for. */
const owned = {} as Record<OwnedResource, string>;
let ownerToken = '';
let intruderToken = '';
let adminToken = '';
/** Intruder keys with one scope each, and with every scope but one. */
const onlyScope = new Map<Scope, string>();
const allButScope = new Map<Scope, string>();
const BAD_TOKENS = [
  'a malformed token',
  'an expired token',
  'a token signed with another secret',
  'an API key',
] as const;
/** Bearer tokens that are not a valid JWT, by what they are. */
const badTokens = {} as Record<(typeof BAD_TOKENS)[number], string>;

beforeAll(async () => {
  const ownerTenant = randomUUID();
  ownerToken = await tokenFor(ownerTenant);
  intruderToken = await tokenFor(randomUUID());
  adminToken = await tokenFor(randomUUID(), { admin: true, subject: 'root' });
  const limits = { rateLimitPerMinute: 1000 };
  const owner = await createKey(ctx.app, ownerToken, limits);
  const create = async (path: string, json: Record<string, unknown>) => {
    const response = await ctx.app.request(path, {
      method: 'POST',
      headers: { 'x-api-key': owner.rawKey },
      json,
    });
    expect(response.status, response.text).toBe(201);
    return response.body.data;
  };
  owned.apiKey = owner.id;
  owned.scan = (await create('/api/v1/scans', { target: '203.0.113.9', scanType: 'nmap' })).id;
  owned.webhook = (
    await create('/api/v1/webhooks', { name: 'owned', url: 'https://hooks.example/' })
  ).webhook.id;
  owned.template = (
    await create('/api/v1/templates', { name: 'owned', scanType: 'nmap' })
  ).template.id;
  owned.asset = (
    await create('/api/v1/assets', { name: 'owned', kind: 'domain', value: 'owned.example' })
  ).asset.id;
  owned.schedule = (
    await create('/api/v1/schedules', {
      name: 'owned',
      scan: { scanType: 'nmap' },
      targets: ['203.0.113.9'],
      cron: '0 3 * * *',
    })
  ).schedule.id;
  await waitUntilEnded(ctx.app, owner.rawKey, owned.scan, 30_000);
  const issues = await ctx.app.request('/api/v1/issues', {
    headers: { 'x-api-key': owner.rawKey },
  });
  owned.issue = issues.body.data.issues[0].id;
  const intruderKey = async (scopes: Scope[]) =>
    (await createKey(ctx.app, intruderToken, { scopes, ...limits })).rawKey;
  await Promise.all(
    SCOPES.map(async (scope) => {
      onlyScope.set(scope, await intruderKey([scope]));
      allButScope.set(scope, await intruderKey(SCOPES.filter((other) => other !== scope)));
    }),
  );
  badTokens['a malformed token'] = 'not-a-jwt';
  badTokens['an expired token'] = await tokenFor(ownerTenant, { ttlSeconds: -10 });
  badTokens['a token signed with another secret'] = await signToken(
    'another-secret-another-secret-another!',
    { subject: 'u', tenantId: ownerTenant },
    60,
  );
  badTokens['an API key'] = owner.rawKey;
});

/** Calls a route of the table, its id parameter (if any) replaced by `id`. */
function call(
  route: string,
  fixture: { readonly body?: unknown },
  id: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const [method, pattern = ''] = route.split(' ');
  return ctx.app.request(pattern.replace(/:\w+/, id), {
    method,
    headers,
    ...(fixture.body === undefined ? {} : { json: fixture.body }),
  });
}

function expectError(response: TestResponse, status: number, code: string, error: unknown) {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual({ success: false, error, code });
}

const expectNotFound = (response: TestResponse, resource: Resource) =>
  expectError(response, 404, NOT_FOUND[resource].code, NOT_FOUND[resource].error);

function expectAnswer(response: TestResponse, answer: Answer) {
  expect(response.status, response.text).toBe(answer.status);
  expect(response.body.success).toBe(answer.status < 400);
  if (answer.code !== undefined) {
    expect(response.body.code).toBe(answer.code);
  }
}

/** `another tenant's scan is SCAN_NOT_FOUND`, for test names. */
const notFoundName = (whose: string, resource: Resource) =>
  `${whose} ${NOT_FOUND[resource].noun} is ${NOT_FOUND[resource].code}`;

const MISSING_API_KEY = 'Missing API key: send it in the X-API-Key header';
const KEY_IN_WRONG_PLACE =
  'Missing API key: API keys are accepted only in the X-API-Key header, not in Authorization or the query string';
const MISSING_AUTH_TOKEN = 'Missing bearer token: send Authorization: Bearer <JWT>';

describe('the route table', () => {
  it('lists exactly the routes the app registers', () => {
    expect(Object.keys(ROUTES).sort()).toEqual(registeredRoutes(ctx.app.composed.app));
  });

  it('holds resources that exist: their owner reads each of them', async () => {
    for (const path of [
      `/api/v1/scans/${owned.scan}`,
      `/api/v1/webhooks/${owned.webhook}`,
      `/api/v1/templates/${owned.template}`,
      `/api/v1/assets/${owned.asset}`,
      `/api/v1/schedules/${owned.schedule}`,
      `/api/v1/api-keys/${owned.apiKey}`,
      `/api/v1/issues/${owned.issue}`,
    ]) {
      expect((await ctx.app.request(path, { headers: bearer(ownerToken) })).status, path).toBe(200);
    }
  });
});

describe.each(routesWith('public'))('%s (public)', (route, access) => {
  it('answers without any credentials', async () => {
    const called = access.path === undefined ? route : `GET ${access.path}`;
    expect((await call(called, {}, '')).status).toBe(200);
  });
});

describe.each(routesWith('api-key'))('%s (API key)', (route, access) => {
  const id = () => ('resource' in access ? owned[access.resource] : '');

  it('answers 401 MISSING_API_KEY without a key, to an invalid JWT and to a key sent as a bearer token', async () => {
    expectError(await call(route, access, id()), 401, 'MISSING_API_KEY', MISSING_API_KEY);
    const expired = bearer(badTokens['an expired token']);
    expectError(await call(route, access, id(), expired), 401, 'MISSING_API_KEY', MISSING_API_KEY);
    const misplaced = bearer(badTokens['an API key']);
    expectError(
      await call(route, access, id(), misplaced),
      401,
      'MISSING_API_KEY',
      KEY_IN_WRONG_PLACE,
    );
  });

  it('answers 401 INVALID_API_KEY to an unknown key', async () => {
    const unknown = { 'x-api-key': `rmp_sk_${'A'.repeat(40)}` };
    expectError(
      await call(route, access, id(), unknown),
      401,
      'INVALID_API_KEY',
      'Invalid API key',
    );
  });

  if (access.scope !== null) {
    const scope = access.scope;
    it(`answers 403 INSUFFICIENT_SCOPE to a key with every scope but ${scope}`, async () => {
      const narrow = { 'x-api-key': allButScope.get(scope) ?? '' };
      const response = await call(route, access, id(), narrow);
      expectError(response, 403, 'INSUFFICIENT_SCOPE', `Insufficient scope: requires ${scope}`);
    });
  }

  const admitted =
    'resource' in access
      ? notFoundName("another tenant's", access.resource)
      : `answers ${access.admitted.status}`;
  it(`admits a key with only ${access.scope ?? 'one unrelated scope'} and a dashboard JWT: ${admitted}`, async () => {
    const key = onlyScope.get(access.scope ?? 'usage:read') ?? '';
    for (const headers of [{ 'x-api-key': key }, bearer(intruderToken)]) {
      const response = await call(route, access, id(), headers);
      if ('resource' in access) {
        expectNotFound(response, access.resource);
      } else {
        expectAnswer(response, access.admitted);
      }
    }
  });

  if ('resource' in access) {
    const { resource } = access;
    it(`answers ${NOT_FOUND[resource].code} to ids that are not UUIDs`, async () => {
      for (const malformed of MALFORMED_IDS) {
        expectNotFound(await call(route, access, malformed, bearer(intruderToken)), resource);
      }
    });
  }
});

describe.each(
  routesWith('jwt', 'admin').map(
    ([route, access]) => [route, access.auth === 'admin' ? 'admin JWT' : 'JWT', access] as const,
  ),
)('%s (%s)', (route, _label, access) => {
  const unknownId = randomUUID();
  const id = () =>
    access.auth === 'jwt' && 'resource' in access ? owned[access.resource] : unknownId;

  it('answers 401 MISSING_AUTH_TOKEN without a bearer token, also to an API key in X-API-Key', async () => {
    expectError(await call(route, access, id()), 401, 'MISSING_AUTH_TOKEN', MISSING_AUTH_TOKEN);
    const headers = { 'x-api-key': badTokens['an API key'] };
    expectError(
      await call(route, access, id(), headers),
      401,
      'MISSING_AUTH_TOKEN',
      MISSING_AUTH_TOKEN,
    );
  });

  it.each(BAD_TOKENS)('answers 401 INVALID_AUTH_TOKEN to %s', async (kind) => {
    const response = await call(route, access, id(), bearer(badTokens[kind]));
    const error = expect.stringMatching(/^Invalid bearer token: /);
    expectError(response, 401, 'INVALID_AUTH_TOKEN', error);
  });

  if (access.auth === 'admin') {
    const { resource } = access;
    it('answers 403 ADMIN_REQUIRED to a tenant JWT', async () => {
      const response = await call(route, access, id(), bearer(intruderToken));
      const error = 'This operation requires an administrator token';
      expectError(response, 403, 'ADMIN_REQUIRED', error);
    });

    it(`admits an admin JWT: ${notFoundName('an unknown', resource)}, and so are ids that are not UUIDs`, async () => {
      for (const unknown of [unknownId, ...MALFORMED_IDS]) {
        expectNotFound(await call(route, access, unknown, bearer(adminToken)), resource);
      }
    });
  } else if ('resource' in access) {
    const { resource } = access;
    it(`admits a tenant JWT: ${notFoundName("another tenant's", resource)}, and so are ids that are not UUIDs`, async () => {
      for (const other of [owned[resource], ...MALFORMED_IDS]) {
        expectNotFound(await call(route, access, other, bearer(intruderToken)), resource);
      }
    });
  } else {
    const { admitted } = access;
    it(`admits a tenant JWT: answers ${admitted.status}`, async () => {
      expectAnswer(await call(route, access, '', bearer(intruderToken)), admitted);
    });
  }
});
