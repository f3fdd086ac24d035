/** Assets (issue 24; API-key context, scopes assets:read and assets:write). */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CreateAssetBody, PatchAssetBody } from '../../../../use-cases/assets/asset-schema.js';
import {
  createAsset,
  deleteAsset,
  getAsset,
  listAssets,
  patchAsset,
  toAssetView,
} from '../../../../use-cases/assets/manage-assets.js';
import { verifyAsset } from '../../../../use-cases/assets/verify-asset.js';
import type { AppDeps } from '../../app-deps.js';
import { tenantCaller } from '../../request-auth.js';
import {
  BODY_CODES,
  tenantErrors as errors,
  tenantOk as ok,
  TENANT_SECURITY as security,
} from '../../schemas/envelope.js';
import { PageQuery, PaginationSchema } from '../../schemas/scan.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const AssetSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    kind: Type.String({ enum: ['domain', 'host', 'ip', 'network', 'url', 'image'] }),
    value: Type.String(),
    tags: Type.Array(Type.String()),
    verification: Type.Object(
      {
        status: Type.String({ enum: ['unverified', 'verified'] }),
        method: Type.Union([Type.String({ enum: ['dns', 'http', 'admin'] }), Type.Null()]),
        verifiedAt: NullableTime,
        lastCheckedAt: NullableTime,
        lastError: NullableString,
        token: Type.String({ description: 'What the DNS record or the HTTPS file must hold' }),
        dns: Type.Union([
          Type.Object(
            {
              type: Type.Literal('TXT'),
              names: Type.Array(Type.String(), {
                description: 'Publish the record at any one of these names',
              }),
              value: Type.String({ description: 'rampart-verification=<token>' }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ]),
        http: Type.Union([
          Type.Object(
            {
              url: Type.String({
                description: 'Serve the token (the file may end with a newline) here',
              }),
              content: Type.String(),
              path: Type.String(),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ]),
      },
      {
        additionalProperties: false,
        description:
          'dns is null for ip, network, url and image assets; http is null for network and image assets, which an administrator verifies',
      },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const AssetIdParams = Type.Object({
  assetId: Type.String({
    format: 'uuid',
    'x-invalid-code': 'ASSET_NOT_FOUND',
    description: 'The asset id (a UUID)',
  }),
});

type WithId = { Params: Static<typeof AssetIdParams> };
const ONE = Type.Object({ asset: AssetSchema });

export function registerAssetRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post<{ Body: Static<typeof CreateAssetBody> }>(
    '/api/v1/assets',
    {
      config: { scope: 'assets:write' },
      schema: {
        operationId: 'createAsset',
        summary: 'Register an asset (a Rampart extension)',
        description:
          'The answer holds the verification token and where to publish it (README, "Assets"). At most TENANT_MAX_ASSETS assets per tenant: 409 TENANT_LIMIT_REACHED (after every 400).',
        tags: ['assets'],
        security,
        body: CreateAssetBody,
        response: { 201: ok(ONE), ...errors(...BODY_CODES, 'TENANT_LIMIT_REACHED') },
      },
    },
    async (request, reply) => {
      const assetDeps = { ...deps, maxAssets: deps.config.tenantLimits.maxAssets };
      const data = await createAsset(assetDeps, tenantCaller(request).tenantId, {
        ...request.body,
        kind: request.body.kind as Parameters<typeof createAsset>[2]['kind'],
      });
      return reply.code(201).send({ success: true, data });
    },
  );

  app.get<{ Querystring: { page?: number; limit?: number; tag?: string } }>(
    '/api/v1/assets',
    {
      config: { scope: 'assets:read' },
      schema: {
        operationId: 'listAssets',
        summary: "The tenant's assets, newest first",
        tags: ['assets'],
        security,
        querystring: Type.Object({
          ...PageQuery,
          tag: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 100,
              description: 'Only the assets that carry this tag',
            }),
          ),
        }),
        response: {
          200: ok(Type.Object({ assets: Type.Array(AssetSchema), pagination: PaginationSchema })),
          ...errors('INVALID_PAGE', 'INVALID_LIMIT', 'INVALID_FIELD_VALUE'),
        },
      },
    },
    async (request) => {
      const { page = 1, limit = 20, tag } = request.query;
      return {
        success: true,
        data: await listAssets(
          deps.assets,
          tenantCaller(request).tenantId,
          { page, limit },
          tag === undefined ? {} : { tag },
        ),
      };
    },
  );

  app.get<WithId>(
    '/api/v1/assets/:assetId',
    {
      config: { scope: 'assets:read' },
      schema: {
        operationId: 'getAsset',
        summary: 'One asset',
        tags: ['assets'],
        security,
        params: AssetIdParams,
        response: { 200: ok(ONE), ...errors('ASSET_NOT_FOUND') },
      },
    },
    async (request) => ({
      success: true,
      data: await getAsset(deps.assets, tenantCaller(request).tenantId, request.params.assetId),
    }),
  );

  app.patch<WithId & { Body: Static<typeof PatchAssetBody> }>(
    '/api/v1/assets/:assetId',
    {
      config: { scope: 'assets:write' },
      schema: {
        operationId: 'updateAsset',
        summary:
          'Rename an asset or change its tags (kind and value never change: INVALID_FIELD_VALUE)',
        tags: ['assets'],
        security,
        params: AssetIdParams,
        body: PatchAssetBody,
        response: { 200: ok(ONE), ...errors(...BODY_CODES, 'ASSET_NOT_FOUND') },
      },
    },
    async (request) => ({
      success: true,
      data: await patchAsset(
        deps.assets,
        tenantCaller(request).tenantId,
        request.params.assetId,
        request.body,
      ),
    }),
  );

  app.delete<WithId>(
    '/api/v1/assets/:assetId',
    {
      config: { scope: 'assets:write' },
      schema: {
        operationId: 'deleteAsset',
        summary: 'Delete an asset (its scans keep their assetId and history)',
        tags: ['assets'],
        security,
        params: AssetIdParams,
        response: {
          200: ok(
            Type.Object(
              { id: Type.String(), deleted: Type.Literal(true) },
              { additionalProperties: false },
            ),
          ),
          ...errors('ASSET_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await deleteAsset(deps.assets, tenantCaller(request).tenantId, request.params.assetId),
    }),
  );

  app.post<WithId & { Body: { method?: 'dns' | 'http' | null } }>(
    '/api/v1/assets/:assetId/verify',
    {
      config: { scope: 'assets:write' },
      schema: {
        operationId: 'verifyAsset',
        summary: "Check the asset's proof of ownership now",
        description:
          'Looks for the TXT record rampart-verification=<token> at each name of verification.dns, then for the token in the file at verification.http.url (HTTPS, redirects not followed, the same address rules as webhooks: ALLOW_PRIVATE_WEBHOOKS). `method` limits the check to one of them. Answers 200 with the asset either way: verification.status and lastError tell the outcome. A verified asset whose proof is missing stays verified for VERIFICATION_GRACE_HOURS.',
        tags: ['assets'],
        security,
        params: AssetIdParams,
        body: Type.Object({
          method: Type.Optional(Type.Union([Type.String({ enum: ['dns', 'http'] }), Type.Null()])),
        }),
        response: {
          200: ok(ONE),
          ...errors(...BODY_CODES, 'ASSET_NOT_FOUND', 'VERIFICATION_NOT_AVAILABLE'),
        },
      },
    },
    async (request) => {
      const asset = await verifyAsset(
        {
          assets: deps.assets,
          proofs: deps.proofs,
          clock: deps.clock,
          graceMs: deps.config.verification.graceHours * 3_600_000,
        },
        tenantCaller(request).tenantId,
        request.params.assetId,
        request.body?.method ?? null,
      );
      return { success: true, data: { asset: toAssetView(asset) } };
    },
  );
}
