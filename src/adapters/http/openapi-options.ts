import type { SwaggerOptions } from '@fastify/swagger';
import { RATE_LIMIT_HEADERS } from './schemas/envelope.js';

/** OpenAPI 3.1 document settings; paths and schemas come from the routes themselves. */
export const OPENAPI_OPTIONS: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Rampart security scanning API',
      version: '1.0.0',
      description:
        'Multi-tenant security scanning service. Programmatic calls send X-API-Key; key management and admin calls send a JWT bearer token. Every error answers { success: false, error, code }. Limits (Rampart extensions): a tenant holds at most TENANT_MAX_API_KEYS keys, TENANT_MAX_WEBHOOKS webhooks and TENANT_MAX_TEMPLATES templates (409 TENANT_LIMIT_REACHED); list pages run from 1 to 10000 (INVALID_PAGE).',
    },
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
      },
      headers: RATE_LIMIT_HEADERS,
    },
    tags: [
      { name: 'api-keys', description: 'Key management (JWT)' },
      { name: 'admin', description: 'Platform administration (JWT with role admin)' },
      { name: 'engines', description: 'Scan engines' },
      {
        name: 'schedules',
        description: 'Scheduled scans (an extension; scopes schedules:read, schedules:write)',
      },
      { name: 'system', description: 'Health and readiness' },
    ],
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
  },
};
