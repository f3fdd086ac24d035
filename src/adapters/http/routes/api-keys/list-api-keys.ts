import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { getApiKey, listApiKeys } from '../../../../use-cases/api-keys/manage-api-keys.js';
import type { AppDeps } from '../../app-deps.js';
import { jwtTenant } from '../../request-auth.js';
import { ApiKeyRef, KeyIdParams } from '../../schemas/api-key.js';
import { errorResponses, JWT_AUTH_CODES, success } from '../../schemas/envelope.js';

export function registerListApiKeys(app: FastifyInstance, deps: AppDeps): void {
  app.get(
    '/api/v1/api-keys',
    {
      schema: {
        operationId: 'listApiKeys',
        summary: "List the tenant's API keys, newest first",
        tags: ['api-keys'],
        security: [{ bearerAuth: [] }],
        response: {
          200: success(Type.Object({ apiKeys: Type.Array(ApiKeyRef) })),
          ...errorResponses(...JWT_AUTH_CODES),
        },
      },
    },
    async (request) => {
      const apiKeys = await listApiKeys(deps.apiKeys, jwtTenant(request).tenantId);
      return { success: true, data: { apiKeys } };
    },
  );
}

export function registerGetApiKey(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Params: { keyId: string } }>(
    '/api/v1/api-keys/:keyId',
    {
      schema: {
        operationId: 'getApiKey',
        summary: 'Read one API key',
        tags: ['api-keys'],
        security: [{ bearerAuth: [] }],
        params: KeyIdParams,
        response: {
          200: success(Type.Object({ apiKey: ApiKeyRef })),
          ...errorResponses(...JWT_AUTH_CODES, 'API_KEY_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const apiKey = await getApiKey(
        deps.apiKeys,
        jwtTenant(request).tenantId,
        request.params.keyId,
      );
      return { success: true, data: { apiKey } };
    },
  );
}
