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
        'Multi-tenant security scanning service. Programmatic calls send X-API-Key; key management and admin calls send a JWT bearer token. Every error answers { success: false, error, code }.',
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      headers: RATE_LIMIT_HEADERS,
    },
    tags: [
      { name: 'api-keys', description: 'Key management (JWT)' },
      { name: 'admin', description: 'Platform administration (JWT with role admin)' },
      { name: 'engines', description: 'Scan engines' },
      { name: 'system', description: 'Health and readiness' },
    ],
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
  },
};
