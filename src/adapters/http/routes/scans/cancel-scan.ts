import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { cancelScan } from '../../../../use-cases/scans/cancel-scan.js';
import type { AppDeps } from '../../app-deps.js';
import { tenantCaller } from '../../request-auth.js';
import {
  API_KEY_AUTH_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';
import { ScanIdParams, ScanRef } from '../../schemas/scan.js';

export function registerCancelScan(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Params: { scanId: string } }>(
    '/api/v1/scans/:scanId/cancel',
    {
      config: { scope: 'scans:cancel' },
      schema: {
        operationId: 'cancelScan',
        summary: 'Cancel a queued or running scan (a running scanner is stopped within 2 s)',
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: ScanIdParams,
        response: {
          200: { ...success(Type.Object({ scan: ScanRef })), headers: RATE_LIMIT_HEADERS },
          ...errorResponses(
            ...API_KEY_AUTH_CODES,
            'SCAN_NOT_FOUND',
            'SCAN_ALREADY_COMPLETED',
            'SCAN_ALREADY_CANCELLED',
            'SCAN_ALREADY_FAILED',
          ),
        },
      },
    },
    async (request) => {
      const { tenantId } = tenantCaller(request);
      const scan = await cancelScan(deps, tenantId, request.params.scanId);
      deps.wakeDispatcher();
      return { success: true, data: { scan } };
    },
  );
}
