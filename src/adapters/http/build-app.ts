/**
 * The HTTP application: Fastify with the error envelope, schema validation, request ids, the
 * OpenAPI document, and three encapsulated contexts: public, API key, JWT. Building the app never
 * listens; main/server.ts and the tests decide where it listens.
 */
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type preValidationHookHandler,
} from 'fastify';
import type { Logger } from 'pino';
import type { AppDeps } from './app-deps.js';
import { errorHandler, frameworkErrors, notFoundHandler } from './error-handler.js';
import { OPENAPI_OPTIONS } from './openapi-options.js';
import { createApiKeyAuthHook } from './plugins/api-key-auth.js';
import { createAuthFailureLimiter } from './plugins/auth-failures.js';
import { createJwtAuthHook } from './plugins/jwt-auth.js';
import { createTenantTokenBudget } from './plugins/tenant-token-budget.js';
import { observeRequests } from './request-metrics.js';
import { registerAdminRoutes } from './routes/admin/index.js';
import { registerApiKeyRoutes } from './routes/api-keys/index.js';
import { registerAssetRoutes } from './routes/assets/index.js';
import { registerListEngines } from './routes/engines/list-engines.js';
import { registerIssueRoutes } from './routes/issues/index.js';
import { registerScanRoutes } from './routes/scans/index.js';
import { registerScheduleRoutes } from './routes/schedules/index.js';
import { registerDashboard } from './routes/system/dashboard.js';
import { registerDocsPage } from './routes/system/docs-page.js';
import { registerHealth } from './routes/system/health.js';
import { registerMetrics } from './routes/system/metrics.js';
import { registerOpenApi } from './routes/system/openapi.js';
import { registerTemplateRoutes } from './routes/templates/index.js';
import { registerGetDailyUsage, registerGetUsage } from './routes/usage/get-usage.js';
import { registerWebhookRoutes } from './routes/webhooks/index.js';
import { ApiKeyView, TenantView } from './schemas/api-key.js';
import { ErrorEnvelope } from './schemas/envelope.js';
import { IssueSchema } from './schemas/issue.js';
import { FindingSchema, ScanDetail } from './schemas/scan.js';
import { WebhookSchema } from './schemas/webhook.js';
import { validatorCompiler } from './validation.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDeps, logger: Logger): Promise<FastifyInstance> {
  const app = Fastify({
    // Typed as Fastify's base logger so route modules can take a plain FastifyInstance.
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: deps.config.trustedProxies.length > 0 ? [...deps.config.trustedProxies] : false,
    requestIdHeader: false,
    // An incoming id is kept only when it is short and plain; otherwise a fresh UUID.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)
        ? incoming
        : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
    return503OnClosing: true,
    frameworkErrors,
  });
  // Request spans (tracing on): before every hook and route, so it sees all of them.
  if (deps.httpTracing !== null) {
    await app.register(deps.httpTracing);
  }
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  registerJsonParser(app);
  app.decorateRequest('auth', null);
  documentScopes(app);
  // Set when the request arrives (a synchronous hook: no promise per request), so every answer,
  // errors included, carries it.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  for (const schema of [
    ErrorEnvelope,
    ApiKeyView,
    TenantView,
    ScanDetail,
    FindingSchema,
    WebhookSchema,
    IssueSchema,
  ]) {
    app.addSchema(schema);
  }
  await app.register(swagger, OPENAPI_OPTIONS);

  const failures = createAuthFailureLimiter(
    deps.rateLimits,
    deps.config.authFailuresPerMinute,
    deps.metrics,
  );
  app.addHook('onResponse', failures.countFailure);
  observeRequests(app, deps.metricsRegistry);
  const tokenBudget = createTenantTokenBudget(
    deps.rateLimits,
    deps.config.tenantLimits.tokenRequestsPerMinute,
    deps.metrics,
  );

  registerHealth(app, deps);
  registerOpenApi(app);
  await registerDashboard(app, { oidc: deps.config.dashboardOidc });
  await registerDocsPage(app);
  registerMetrics(app, { metrics: deps.metricsRegistry, metricsToken: deps.config.metricsToken });
  await app.register((apiKeyContext, _opts, done) => {
    apiKeyContext.addHook('onRequest', createApiKeyAuthHook(deps, failures, tokenBudget));
    registerListEngines(apiKeyContext, deps);
    registerScanRoutes(apiKeyContext, deps);
    registerWebhookRoutes(apiKeyContext, deps);
    registerTemplateRoutes(apiKeyContext, deps);
    registerAssetRoutes(apiKeyContext, deps);
    registerScheduleRoutes(apiKeyContext, deps);
    registerIssueRoutes(apiKeyContext, deps);
    registerGetUsage(apiKeyContext, deps);
    registerGetDailyUsage(apiKeyContext, deps);
    done();
  });
  await app.register((jwtContext, _opts, done) => {
    jwtContext.addHook('onRequest', createJwtAuthHook(deps, failures, tokenBudget));
    registerApiKeyRoutes(jwtContext, deps);
    registerAdminRoutes(jwtContext, deps);
    done();
  });
  return app;
}

/**
 * JSON bodies: an empty body counts as no body (a DELETE with `Content-Type: application/json` and
 * nothing else is fine); anything else goes through Fastify's own parser, which refuses
 * `__proto__` and `constructor.prototype` keys.
 */
function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') {
      done(null, undefined);
      return;
    }
    // The default parser answers through `done`; its declared Promise return is never used.
    void parse(request, String(body), done);
  });
  // A route with a body schema and no body is validated as an empty object, so a missing body
  // answers "Missing required field: name" rather than a type error. Attached only to routes that
  // have a body schema, so that GET requests (the hot path) run no extra hook.
  app.addHook('onRoute', (route) => {
    if (route.schema?.body === undefined) {
      return;
    }
    const existing = route.preValidation;
    const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    route.preValidation = [...hooks, emptyBodyAsObject];
  });
}

/**
 * Writes each route's required scope into its OpenAPI operation: as the role list of the apiKey
 * security requirement (OpenAPI 3.1 allows role names for non-OAuth schemes) and in the
 * description, so the document lists every route with its scope. Registered before the routes.
 */
function documentScopes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    if (scope === undefined || route.schema === undefined) {
      return;
    }
    const schema = route.schema as Record<string, unknown> & {
      security?: Array<Record<string, string[]>>;
      description?: string;
    };
    route.schema = {
      ...schema,
      security: (schema.security ?? [{ apiKey: [] }]).map((requirement) =>
        'apiKey' in requirement ? { apiKey: [scope] } : requirement,
      ),
      description: `${schema.description ? `${schema.description} ` : ''}Requires the \`${scope}\` scope (a dashboard JWT has every scope).`,
    };
  });
}

const emptyBodyAsObject: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) {
    request.body = {};
  }
  done();
};
