import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  type CreateApiKeyInput,
  createApiKey,
} from '../../../../use-cases/api-keys/create-api-key.js';
import type { AppDeps } from '../../app-deps.js';
import { jwtTenant } from '../../request-auth.js';
import { ApiKeyRef, CreateApiKeyBody, RawKey } from '../../schemas/api-key.js';
import { BODY_CODES, errorResponses, JWT_AUTH_CODES, success } from '../../schemas/envelope.js';

export function registerCreateApiKey(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Body: CreateApiKeyInput }>(
    '/api/v1/api-keys',
    {
      schema: {
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description:
          'At most TENANT_MAX_API_KEYS keys per tenant that can still authenticate (revoked and expired keys do not count; a rotation is not refused by the cap): 409 TENANT_LIMIT_REACHED.',
        tags: ['api-keys'],
        security: [{ bearerAuth: [] }],
        body: CreateApiKeyBody,
        response: {
          201: success(Type.Object({ apiKey: ApiKeyRef, rawKey: RawKey })),
          ...errorResponses(
            ...JWT_AUTH_CODES,
            ...BODY_CODES,
            'INVALID_SCAN_TYPE',
            'TENANT_LIMIT_REACHED',
          ),
        },
      },
    },
    async (request, reply) => {
      const { tenantId, subject } = jwtTenant(request);
      const data = await createApiKey(
        {
          ...deps,
          apiKeyPrefix: deps.config.apiKeyPrefix,
          maxApiKeys: deps.config.tenantLimits.maxApiKeys,
        },
        tenantId,
        subject,
        request.body,
      );
      return reply.code(201).send({ success: true, data });
    },
  );
}
