import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Severity } from '../../../../domain/findings/finding.js';
import {
  type ExportFormat,
  exportResults,
  getResults,
  listFindings,
} from '../../../../use-cases/scans/scan-results.js';
import type { AppDeps } from '../../app-deps.js';
import { tenantCaller } from '../../request-auth.js';
import {
  API_KEY_AUTH_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';
import {
  FindingRef,
  PageQuery,
  PaginationSchema,
  ScanIdParams,
  SentinelSchema,
  SeverityFilter,
} from '../../schemas/scan.js';

const Summary = Type.Record(Type.String(), Type.Integer());

const RESULT_CODES = [
  ...API_KEY_AUTH_CODES,
  'SCAN_NOT_FOUND',
  'RESULTS_NOT_READY',
  'INVALID_FIELD_VALUE',
  'INVALID_PAGE',
  'INVALID_LIMIT',
] as const;

export function registerGetResults(app: FastifyInstance, deps: AppDeps): void {
  app.get<{
    Params: { scanId: string };
    Querystring: { format?: 'json' | ExportFormat; page?: number; limit?: number };
  }>(
    '/api/v1/scans/:scanId/results',
    {
      config: { scope: 'results:read' },
      schema: {
        summary:
          'Results of an ended scan: JSON (paged), or the whole result as SARIF 2.1.0, CSV or DefectDojo Generic Findings Import JSON',
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: ScanIdParams,
        querystring: Type.Object({
          format: Type.Optional(
            Type.String({ enum: ['json', 'sarif', 'csv', 'defectdojo'], default: 'json' }),
          ),
          ...PageQuery,
        }),
        response: {
          200: {
            ...success(
              Type.Object(
                {
                  scanId: Type.String({ format: 'uuid' }),
                  status: Type.String(),
                  partial: Type.Boolean({
                    description:
                      'true for cancelled and failed scans: the findings collected so far',
                  }),
                  summary: Summary,
                  riskScore: Type.Integer({ minimum: 0, maximum: 100 }),
                  findings: Type.Array(FindingRef),
                  pagination: PaginationSchema,
                  sentinel: Type.Optional(SentinelSchema),
                },
                { additionalProperties: false },
              ),
            ),
            headers: RATE_LIMIT_HEADERS,
            description:
              'JSON in the envelope; with format=sarif (application/sarif+json) or format=csv (text/csv) the file itself',
          },
          ...errorResponses(...RESULT_CODES),
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = tenantCaller(request);
      const { format = 'json', page = 1, limit = 20 } = request.query;
      const { scanId } = request.params;
      if (format === 'json') {
        return {
          success: true,
          data: await getResults(deps.scans, tenantId, scanId, { page, limit }),
        };
      }
      const scanType = (await deps.scans.get(tenantId, scanId))?.scanType;
      const version = deps.engines.find((engine) => engine.name === scanType)?.version ?? null;
      const file = await exportResults(deps.scans, tenantId, scanId, format, version);
      // Streamed (chunked): a page of findings is read only when the client has taken the
      // previous one. Not in object mode, so the stream buffers bytes, not pages.
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .send(Readable.from(file.body, { objectMode: false }));
    },
  );
}

export function registerListFindings(app: FastifyInstance, deps: AppDeps): void {
  app.get<{
    Params: { scanId: string };
    Querystring: { severity?: Severity; page?: number; limit?: number };
  }>(
    '/api/v1/scans/:scanId/findings',
    {
      config: { scope: 'results:read' },
      schema: {
        summary: 'Findings of an ended scan, most severe first, filtered and paged',
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: ScanIdParams,
        querystring: Type.Object({ severity: Type.Optional(SeverityFilter), ...PageQuery }),
        response: {
          200: {
            ...success(
              Type.Object(
                { findings: Type.Array(FindingRef), pagination: PaginationSchema },
                { additionalProperties: false },
              ),
            ),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(...RESULT_CODES),
        },
      },
    },
    async (request) => {
      const { tenantId } = tenantCaller(request);
      const { severity, page = 1, limit = 20 } = request.query;
      const data = await listFindings(deps.scans, tenantId, request.params.scanId, severity, {
        page,
        limit,
      });
      return { success: true, data };
    },
  );
}
