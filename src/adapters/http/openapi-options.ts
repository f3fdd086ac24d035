import type { SwaggerOptions } from '@fastify/swagger';
import { WEBHOOK_EVENTS_DOC } from './schemas/webhook-events-doc.js';

/** Plain JSON built from TypeBox schemas, as the option's own object types. */
type Webhooks = NonNullable<
  Extract<
    NonNullable<Extract<SwaggerOptions, { openapi?: unknown }>['openapi']>,
    { webhooks?: unknown }
  >['webhooks']
>;

/** Sent on every answer (build-app.ts and the error handler set it). */
const REQUEST_ID_HEADER = {
  description:
    'The request id: the incoming X-Request-Id when it is 1 to 128 characters of A-Z a-z 0-9 . _ : -, else a fresh UUID; also in the logs',
  schema: { type: 'string' },
};

/**
 * OpenAPI 3.1 document settings; paths and schemas come from the routes themselves (each route's
 * schema holds its `operationId`, `security` and response headers), the `webhooks` section from
 * schemas/webhook-events-doc.ts. `transformObject` adds what every answer carries.
 */
export const OPENAPI_OPTIONS: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    // Relative: the document describes the server that serves it, wherever that is.
    servers: [{ url: '/', description: 'The server that serves this document' }],
    info: {
      title: 'Rampart security scanning API',
      version: '1.0.0',
      description:
        'Multi-tenant security scanning service. Programmatic calls send X-API-Key; key management and admin calls send a JWT bearer token. Every error answers { success: false, error, code }. Limits (Rampart extensions): a tenant holds at most TENANT_MAX_API_KEYS keys, TENANT_MAX_WEBHOOKS webhooks, TENANT_MAX_TEMPLATES templates, TENANT_MAX_ASSETS assets and TENANT_MAX_SCHEDULES schedules (409 TENANT_LIMIT_REACHED); list pages run from 1 to 10000 (INVALID_PAGE).',
    },
    webhooks: WEBHOOK_EVENTS_DOC as Webhooks,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            'Per-key rate limits (minute, hour, UTC day). After AUTH_FAILURES_PER_MINUTE 401 answers in a minute, an address gets 429 for requests whose credentials fail; valid credentials are never refused by that limit.',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "A dashboard token: all scopes, no per-key limits; all of a tenant's tokens share TENANT_TOKEN_REQUESTS_PER_MINUTE requests per UTC minute on tenant and key-management routes (X-RateLimit-* headers; 429 RATE_LIMIT_EXCEEDED with Retry-After). Admin routes do not count.",
        },
        metricsToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'GET /metrics only, and only when METRICS_TOKEN is set (a Rampart extension): the token itself, compared in constant time.',
        },
      },
    },
    tags: [
      { name: 'scans', description: 'Submit, follow and cancel scans; read their results' },
      { name: 'engines', description: 'Scan engines, their availability and option schemas' },
      { name: 'webhooks', description: 'Webhook registrations and their delivery log' },
      { name: 'templates', description: 'Saved scan settings to start scans from' },
      {
        name: 'issues',
        description:
          'Findings across rescans: open, fixed, reopened, and triage that sticks (a Rampart extension)',
      },
      { name: 'usage', description: "The tenant's scan quota and usage" },
      { name: 'api-keys', description: 'Key management (JWT)' },
      { name: 'admin', description: 'Platform administration (JWT with role admin)' },
      {
        name: 'assets',
        description:
          'Registered targets with proof of ownership (a Rampart extension; scopes assets:read and assets:write)',
      },
      {
        name: 'schedules',
        description: 'Scheduled scans (an extension; scopes schedules:read, schedules:write)',
      },
      {
        name: 'system',
        description:
          'Health, readiness, this document (no credentials) and the Prometheus metrics (METRICS_TOKEN when set)',
      },
      {
        name: 'webhook-events',
        description:
          'What Rampart POSTs to webhook receivers (the `webhooks` section): bodies and signature headers',
      },
    ],
  },
  transformObject: (document) => {
    if (!('openapiObject' in document)) {
      return document.swaggerObject;
    }
    const { openapiObject } = document;
    for (const pathItem of Object.values(openapiObject.paths ?? {})) {
      for (const operation of Object.values(pathItem ?? {})) {
        for (const response of Object.values(
          (operation as { responses?: Record<string, { headers?: Record<string, unknown> }> })
            .responses ?? {},
        )) {
          response.headers = { 'X-Request-Id': REQUEST_ID_HEADER, ...response.headers };
        }
      }
    }
    return openapiObject;
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
  },
};
