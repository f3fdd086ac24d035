import type { FastifyInstance } from 'fastify';
import type { MetricsRegistry } from '../metrics/service-metrics.js';

/**
 * Observes every answered request in rampart_http_request_duration_seconds, labelled with the
 * route's pattern (`/api/v1/scans/:scanId`, never the raw URL: ids and query strings would make
 * a series per request) or `unmatched` for the 404 of an unknown path, and the status code.
 */
export function observeRequests(app: FastifyInstance, metrics: MetricsRegistry): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
