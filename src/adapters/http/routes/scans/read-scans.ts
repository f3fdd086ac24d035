import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ScanStatus } from '../../../../domain/scans/status-machine.js';
import { SCAN_STATUSES } from '../../../../domain/scans/status-machine.js';
import { ENGINE_NAMES } from '../../../../engines/engine.js';
import { getScan, listScans } from '../../../../use-cases/scans/read-scans.js';
import type { AppDeps } from '../../app-deps.js';
import { tenantCaller } from '../../request-auth.js';
import {
  API_KEY_AUTH_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';
import { PageQuery, PaginationSchema, ScanIdParams, ScanRef } from '../../schemas/scan.js';

export function registerGetScan(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Params: { scanId: string }; Querystring: { scanType?: string } }>(
    '/api/v1/scans/:scanId',
    {
      config: { scope: 'scans:read' },
      schema: {
        operationId: 'getScan',
        summary: 'One scan: status, progress, effective options, summary of findings',
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: ScanIdParams,
        querystring: Type.Object({
          scanType: Type.Optional(
            Type.String({
              description: "When given and not the scan's engine: 404 SCAN_NOT_FOUND",
            }),
          ),
        }),
        response: {
          200: { ...success(Type.Object({ scan: ScanRef })), headers: RATE_LIMIT_HEADERS },
          ...errorResponses(...API_KEY_AUTH_CODES, 'SCAN_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const { tenantId } = tenantCaller(request);
      const scan = await getScan(
        deps.scans,
        tenantId,
        request.params.scanId,
        request.query.scanType,
      );
      return { success: true, data: { scan } };
    },
  );
}

export function registerListScans(app: FastifyInstance, deps: AppDeps): void {
  app.get<{
    Querystring: {
      scanType?: string;
      status?: ScanStatus;
      parentScanId?: string;
      page?: number;
      limit?: number;
    };
  }>(
    '/api/v1/scans',
    {
      config: { scope: 'scans:list' },
      schema: {
        operationId: 'listScans',
        summary:
          "The tenant's scans, newest first (default scanType nmap; scanType=all for every engine); sentinel children only with parentScanId",
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        querystring: Type.Object({
          scanType: Type.Optional(
            Type.String({
              enum: [...ENGINE_NAMES, 'all'],
              description: 'Default nmap (all when parentScanId is given)',
              'x-error-code': 'INVALID_SCAN_TYPE',
            }),
          ),
          status: Type.Optional(
            Type.String({ enum: [...SCAN_STATUSES], description: 'Only scans in this status' }),
          ),
          parentScanId: Type.Optional(
            Type.String({
              format: 'uuid',
              description: "A sentinel scan's id: lists its child scans (hidden otherwise)",
            }),
          ),
          ...PageQuery,
        }),
        response: {
          200: {
            ...success(Type.Object({ scans: Type.Array(ScanRef), pagination: PaginationSchema })),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(
            ...API_KEY_AUTH_CODES,
            'INVALID_SCAN_TYPE',
            'INVALID_FIELD_VALUE',
            'INVALID_PAGE',
            'INVALID_LIMIT',
          ),
        },
      },
    },
    async (request) => {
      const { tenantId } = tenantCaller(request);
      const { scanType, status, parentScanId, page = 1, limit = 20 } = request.query;
      const data = await listScans(
        deps.scans,
        tenantId,
        { scanType, status, parentScanId },
        { page, limit },
      );
      return { success: true, data };
    },
  );
}
