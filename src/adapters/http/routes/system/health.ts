import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../../domain/errors.js';
import type { AppDeps } from '../../app-deps.js';
import { errorResponses } from '../../schemas/envelope.js';

/** GET /healthz (process up) and GET /readyz (database answers, else 503). */
export function registerHealth(app: FastifyInstance, deps: AppDeps): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: 200 while the process is up',
        tags: ['system'],
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
        summary: 'Readiness: 200 only when the database answers',
        tags: ['system'],
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
      if (await deps.ping()) {
        return { success: true, data: { status: 'ready' } };
      }
      throw new ApiError('SERVICE_UNAVAILABLE', { reason: 'the database is not answering' });
    },
  );
}
