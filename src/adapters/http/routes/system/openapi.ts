import type { FastifyInstance } from 'fastify';

/** GET /api/v1/openapi.json (generated from the route schemas), public; docs-page.ts renders it. */
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
}
