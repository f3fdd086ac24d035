import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { toAssetView } from '../../../../use-cases/assets/manage-assets.js';
import { setAssetVerifiedByAdmin } from '../../../../use-cases/assets/verify-asset.js';
import type { AppDeps } from '../../app-deps.js';
import { errorResponses, JWT_AUTH_CODES, success } from '../../schemas/envelope.js';
import { AssetIdParams, AssetSchema } from '../assets/index.js';

/**
 * POST /api/v1/admin/assets/:assetId/verify and /unverify (admin JWT): how IP, network and image
 * assets, which cannot all publish a proof, are verified; periodic checks leave an administrator's
 * verification as it is.
 */
export function registerAssetVerificationAdmin(app: FastifyInstance, deps: AppDeps): void {
  for (const action of ['verify', 'unverify'] as const) {
    app.post<{ Params: { assetId: string } }>(
      `/api/v1/admin/assets/:assetId/${action}`,
      {
        config: { admin: true },
        schema: {
          operationId: action === 'verify' ? 'adminVerifyAsset' : 'adminUnverifyAsset',
          summary:
            action === 'verify'
              ? 'Mark an asset verified (any tenant; method admin)'
              : 'Mark an asset unverified (any tenant)',
          tags: ['admin'],
          security: [{ bearerAuth: [] }],
          params: AssetIdParams,
          response: {
            200: success(Type.Object({ asset: AssetSchema })),
            ...errorResponses(...JWT_AUTH_CODES, 'ADMIN_REQUIRED', 'ASSET_NOT_FOUND'),
          },
        },
      },
      async (request) => {
        const asset = await setAssetVerifiedByAdmin(
          deps.assets,
          deps.clock,
          request.params.assetId,
          action === 'verify',
        );
        return { success: true, data: { asset: toAssetView(asset) } };
      },
    );
  }
}
