import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  DEFAULT_GRACE_PERIOD_HOURS,
  rotateApiKey,
} from '../../../../use-cases/api-keys/manage-api-keys.js';
import type { AppDeps } from '../../app-deps.js';
import { jwtTenant } from '../../request-auth.js';
import { ApiKeyRef, KeyIdParams, RawKey } from '../../schemas/api-key.js';
import { BODY_CODES, errorResponses, JWT_AUTH_CODES, success } from '../../schemas/envelope.js';

const RotateBody = Type.Object({
  gracePeriodHours: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 720, default: DEFAULT_GRACE_PERIOD_HOURS }),
  ),
});

export function registerRotateApiKey(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Params: { keyId: string }; Body: { gracePeriodHours?: number } }>(
    '/api/v1/api-keys/:keyId/rotate',
    {
      schema: {
        operationId: 'rotateApiKey',
        summary: 'Rotate an API key: a new key now, the old one until its grace period ends',
        tags: ['api-keys'],
        security: [{ bearerAuth: [] }],
        params: KeyIdParams,
        body: RotateBody,
        response: {
          201: success(
            Type.Object({
              apiKey: ApiKeyRef,
              rawKey: RawKey,
              previousKey: Type.Object({
                id: Type.String({ format: 'uuid' }),
                status: Type.String(),
                expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
              }),
            }),
          ),
          ...errorResponses(
            ...JWT_AUTH_CODES,
            ...BODY_CODES,
            'API_KEY_NOT_FOUND',
            'API_KEY_NOT_ACTIVE',
          ),
        },
      },
    },
    async (request, reply) => {
      const data = await rotateApiKey(
        { ...deps, apiKeyPrefix: deps.config.apiKeyPrefix },
        jwtTenant(request).tenantId,
        request.params.keyId,
        request.body.gracePeriodHours,
      );
      return reply.code(201).send({ success: true, data });
    },
  );
}
