import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../../domain/errors.js';
import type { AppDeps } from '../../app-deps.js';
import { errorResponses } from '../../schemas/envelope.js';

/**
 * GET /healthz (process up) and GET /readyz (the process can serve, else 503 with the reason:
 * `deps.readiness`). Registered by the API app and by `npm run worker`'s health server.
 */
export function registerHealth(app: FastifyInstance, deps: Pick<AppDeps, 'readiness'>): void {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness: 200 while the process is up',
        tags: ['system'],
        security: [],
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Object({ status: Type.String() }),
          }),
        },
      },
    },
    async () => ({ success: true, data: { status: 'ok' } }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary:
          'Readiness: 200 when the database answers (the embedded one with room in DATA_DIR) and, in a process that runs scan workers, one of them can claim; else 503 saying why',
        tags: ['system'],
        security: [],
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Object({ status: Type.String() }),
          }),
          ...errorResponses('SERVICE_UNAVAILABLE'),
        },
      },
    },
    async () => {
      const readiness = await deps.readiness();
      if (readiness.ok) {
        return { success: true, data: { status: 'ready' } };
      }
      throw new ApiError('SERVICE_UNAVAILABLE', { reason: readiness.reason });
    },
  );
}
