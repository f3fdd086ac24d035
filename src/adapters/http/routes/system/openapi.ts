import type { FastifyInstance } from 'fastify';
import { DOCS_PAGE } from './docs-page.js';

/** GET /api/v1/openapi.json (generated from the route schemas) and GET /docs. */
export function registerOpenApi(app: FastifyInstance): void {
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(DOCS_PAGE),
  );
}
