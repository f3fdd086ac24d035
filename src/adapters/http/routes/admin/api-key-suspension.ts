import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { setApiKeySuspension } from '../../../../use-cases/api-keys/manage-api-keys.js';
import type { AppDeps } from '../../app-deps.js';
import { ApiKeyRef, KeyIdParams } from '../../schemas/api-key.js';
import { errorResponses, JWT_AUTH_CODES, success } from '../../schemas/envelope.js';

/** POST /api/v1/admin/api-keys/:keyId/suspend and /reinstate (admin JWT). */
export function registerApiKeySuspension(app: FastifyInstance, deps: AppDeps): void {
  for (const action of ['suspend', 'reinstate'] as const) {
    app.post<{ Params: { keyId: string } }>(
      `/api/v1/admin/api-keys/:keyId/${action}`,
      {
        config: { admin: true },
        schema: {
          operationId: action === 'suspend' ? 'suspendApiKey' : 'reinstateApiKey',
          summary:
            action === 'suspend'
              ? 'Suspend an API key (any tenant)'
              : 'Reinstate a suspended API key',
          tags: ['admin'],
          security: [{ bearerAuth: [] }],
          params: KeyIdParams,
          response: {
            200: success(Type.Object({ apiKey: ApiKeyRef })),
            ...errorResponses(
              ...JWT_AUTH_CODES,
              'ADMIN_REQUIRED',
              'API_KEY_NOT_FOUND',
              'API_KEY_NOT_ACTIVE',
            ),
          },
        },
      },
      async (request) => {
        const apiKey = await setApiKeySuspension(
          deps.apiKeys,
          request.params.keyId,
          action === 'suspend',
        );
        return { success: true, data: { apiKey } };
      },
    );
  }
}
