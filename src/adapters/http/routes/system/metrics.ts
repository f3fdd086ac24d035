import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../domain/errors.js';
import type { MetricsRegistry } from '../../../metrics/service-metrics.js';
import { errorResponses } from '../../schemas/envelope.js';

/**
 * GET /metrics (a Rampart extension, outside /api/v1): this process's metrics in the Prometheus
 * text format. Public unless METRICS_TOKEN is set; then it needs `Authorization: Bearer
 * <METRICS_TOKEN>`, compared in constant time. Registered by the API app and by `npm run worker`'s
 * listener (main/worker-health.ts).
 */
export function registerMetrics(
  app: FastifyInstance,
  deps: { readonly metrics: MetricsRegistry; readonly metricsToken: string | null },
): void {
  const expected = deps.metricsToken === null ? null : digest(deps.metricsToken);
  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'getMetrics',
        summary: "This process's metrics in the Prometheus text format (a Rampart extension)",
        description:
          'Counters and histograms of this process, and (from the one process that reports them, see README "Metrics") the queue gauges read from the database. Without METRICS_TOKEN the route is public; with it, requests need `Authorization: Bearer <METRICS_TOKEN>`.',
        tags: ['system'],
        security: [{}, { metricsToken: [] }],
        response: {
          200: {
            description: 'The Prometheus text exposition format, version 0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses('MISSING_AUTH_TOKEN', 'INVALID_AUTH_TOKEN'),
        },
      },
    },
    async (request, reply) => {
      if (expected !== null) {
        checkToken(request, expected);
      }
      const text = await deps.metrics.render();
      return reply.type(deps.metrics.contentType).send(text);
    },
  );
}

function checkToken(request: FastifyRequest, expected: Buffer): void {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer (.+)$/i.exec(header.trim()) : null;
  if (match === null) {
    throw new ApiError(
      'MISSING_AUTH_TOKEN',
      {},
      { message: 'Missing bearer token: send Authorization: Bearer <METRICS_TOKEN>' },
    );
  }
  // Digests of equal length, compared in constant time: neither the content nor the length of the
  // token shows in the answer's timing.
  if (!timingSafeEqual(digest(match[1] ?? ''), expected)) {
    throw new ApiError('INVALID_AUTH_TOKEN', { reason: 'not the metrics token' });
  }
}

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
