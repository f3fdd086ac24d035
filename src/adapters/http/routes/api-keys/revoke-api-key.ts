import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { revokeApiKey } from '../../../../use-cases/api-keys/manage-api-keys.js';
import type { AppDeps } from '../../app-deps.js';
import { jwtTenant } from '../../request-auth.js';
import { ApiKeyRef, KeyIdParams } from '../../schemas/api-key.js';
import { BODY_CODES, errorResponses, JWT_AUTH_CODES, success } from '../../schemas/envelope.js';

const RevokeBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) });

export function registerRevokeApiKey(app: FastifyInstance, deps: AppDeps): void {
  app.delete<{ Params: { keyId: string }; Body: { reason?: string } }>(
    '/api/v1/api-keys/:keyId',
    {
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key at once and for good (repeating it is harmless)',
        tags: ['api-keys'],
        security: [{ bearerAuth: [] }],
        params: KeyIdParams,
        body: RevokeBody,
        response: {
          200: success(Type.Object({ apiKey: ApiKeyRef })),
          ...errorResponses(...JWT_AUTH_CODES, ...BODY_CODES, 'API_KEY_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const apiKey = await revokeApiKey(
        deps.apiKeys,
        jwtTenant(request).tenantId,
        request.params.keyId,
        request.body.reason ?? null,
      );
      return { success: true, data: { apiKey } };
    },
  );
}
