import type { FastifyInstance } from 'fastify';
import { DOCS_PAGE } from './docs-page.js';

/** GET /api/v1/openapi.json (generated from the route schemas) and GET /docs; both public. */
export function registerOpenApi(app: FastifyInstance): void {
  app.get(
    '/api/v1/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        tags: ['system'],
        security: [],
        response: {
          200: {
            description: 'The OpenAPI document, generated from the route schemas',
            content: {
              'application/json': {
                schema: { type: 'object', additionalProperties: true },
              },
            },
          },
        },
      },
    },
    async () => app.swagger(),
  );
  app.get(
    '/docs',
    {
      schema: {
        operationId: 'getDocsPage',
        summary: 'A page that renders this document',
        tags: ['system'],
        security: [],
        response: {
          200: {
            description: 'Self-contained HTML page (no external scripts)',
            content: { 'text/html': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => reply.type('text/html; charset=utf-8').send(DOCS_PAGE),
  );
}
