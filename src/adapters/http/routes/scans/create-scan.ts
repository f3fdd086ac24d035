import type { FastifyInstance } from 'fastify';
import { createScan } from '../../../../use-cases/scans/create-scan.js';
import {
  CreateScanBody,
  CreateScanBodyByEngine,
} from '../../../../use-cases/scans/scan-request-schema.js';
import type { AppDeps } from '../../app-deps.js';
import { documentedAs } from '../../documented-as.js';
import { tenantCaller } from '../../request-auth.js';
import {
  API_KEY_AUTH_CODES,
  BODY_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';
import { ScanCreated } from '../../schemas/scan.js';
import { useCaseChecksBody } from '../../validation.js';

export function registerCreateScan(app: FastifyInstance, deps: AppDeps): void {
  app.post(
    '/api/v1/scans',
    {
      config: { scope: 'scans:create', ...documentedAs({ body: CreateScanBodyByEngine }) },
      validatorCompiler: useCaseChecksBody,
      schema: {
        operationId: 'createScan',
        summary: 'Submit a scan (queued at once, run by a worker)',
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        body: CreateScanBody,
        response: {
          201: { ...success(ScanCreated), headers: RATE_LIMIT_HEADERS },
          ...errorResponses(
            ...API_KEY_AUTH_CODES,
            ...BODY_CODES,
            'INVALID_SCAN_TYPE',
            'SCAN_TYPE_NOT_ALLOWED',
            'INVALID_PRIORITY',
            'INVALID_TARGET',
            'INVALID_WEBHOOK_URL',
            'WEBHOOK_URL_UNREACHABLE',
            'TARGET_NOT_ALLOWED',
            'TEMPLATE_NOT_FOUND',
            'INVALID_ASSET_ID',
            'TARGET_NOT_VERIFIED',
            'QUOTA_EXCEEDED',
          ),
        },
      },
    },
    async (request, reply) => {
      const caller = tenantCaller(request);
      const data = await createScan(
        {
          scans: deps.scans,
          childScans: deps.childScans,
          workers: deps.workers,
          resolver: deps.resolver,
          urls: deps.webhookUrls,
          ids: deps.ids,
          randomBytes: deps.randomBytes,
          allowPrivateTargets: deps.config.allowPrivateTargets,
          templates: deps.templates,
          assets: deps.assets,
          requireVerifiedTargets: deps.config.verification.requireVerifiedTargets,
          secrets: deps.secrets,
          clock: deps.clock,
          metrics: deps.metrics,
          tracing: deps.tracing,
        },
        {
          tenantId: caller.tenantId,
          apiKeyId: caller.kind === 'api-key' ? caller.key.id : null,
          allowedScanTypes: caller.kind === 'api-key' ? caller.key.allowedScanTypes : null,
        },
        request.body,
      );
      return reply.code(201).send({ success: true, data });
    },
  );
}
