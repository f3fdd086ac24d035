/** Scan templates (API-key context; each route declares its scope). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../../../../domain/errors.js';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  patchTemplate,
} from '../../../../use-cases/templates/manage-templates.js';
import {
  CreateTemplateBody,
  CreateTemplateBodyByEngine,
  PatchTemplateBody,
  PatchTemplateBodyByEngine,
} from '../../../../use-cases/templates/template-schema.js';
import type { AppDeps } from '../../app-deps.js';
import { documentedAs } from '../../documented-as.js';
import { tenantCaller } from '../../request-auth.js';
import {
  BODY_CODES,
  tenantErrors as errors,
  tenantOk as ok,
  TENANT_SECURITY as security,
} from '../../schemas/envelope.js';
import { PageQuery, PaginationSchema } from '../../schemas/scan.js';
import { useCaseChecksBody } from '../../validation.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const TemplateSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: NullableString,
    scanType: Type.String(),
    options: Type.Object({}, { additionalProperties: true }),
    config: Type.Object({}, { additionalProperties: true }),
    priority: NullableString,
    tags: Type.Array(Type.String()),
    timeout: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const TemplateIdParams = Type.Object({
  templateId: Type.String({
    format: 'uuid',
    'x-invalid-code': 'TEMPLATE_NOT_FOUND',
    description: 'The template id',
  }),
});

const BODY_ERRORS: ErrorCode[] = [
  ...BODY_CODES,
  'TEMPLATE_NAME_REQUIRED',
  'DUPLICATE_TEMPLATE_NAME',
  'INVALID_SCAN_TYPE',
  'INVALID_PRIORITY',
];
type WithId = { Params: { templateId: string } };

export function registerTemplateRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.post(
    '/api/v1/templates',
    {
      config: { scope: 'templates:create', ...documentedAs({ body: CreateTemplateBodyByEngine }) },
      validatorCompiler: useCaseChecksBody,
      schema: {
        operationId: 'createTemplate',
        summary: 'Create a scan template',
        description:
          "At most TENANT_MAX_TEMPLATES templates per tenant: 409 TENANT_LIMIT_REACHED (after every 400). `config` is at most 16 KiB of JSON, like a scan's.",
        tags: ['templates'],
        security,
        body: CreateTemplateBody,
        response: {
          201: ok(Type.Object({ template: TemplateSchema })),
          ...errors(...BODY_ERRORS, 'TENANT_LIMIT_REACHED'),
        },
      },
    },
    async (request, reply) => {
      const data = await createTemplate(
        {
          templates: deps.templates,
          ids: deps.ids,
          secrets: deps.secrets,
          maxTemplates: deps.config.tenantLimits.maxTemplates,
        },
        tenantCaller(request).tenantId,
        request.body,
      );
      return reply.code(201).send({ success: true, data });
    },
  );

  app.get<{ Querystring: { page?: number; limit?: number } }>(
    '/api/v1/templates',
    {
      config: { scope: 'templates:read' },
      schema: {
        operationId: 'listTemplates',
        summary: "The tenant's templates, newest first",
        tags: ['templates'],
        security,
        querystring: Type.Object(PageQuery),
        response: {
          200: ok(
            Type.Object({ templates: Type.Array(TemplateSchema), pagination: PaginationSchema }),
          ),
          ...errors('INVALID_PAGE', 'INVALID_LIMIT'),
        },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return {
        success: true,
        data: await listTemplates(deps.templates, tenantCaller(request).tenantId, { page, limit }),
      };
    },
  );

  app.get<WithId>(
    '/api/v1/templates/:templateId',
    {
      config: { scope: 'templates:read' },
      schema: {
        operationId: 'getTemplate',
        summary: 'One template',
        tags: ['templates'],
        security,
        params: TemplateIdParams,
        response: {
          200: ok(Type.Object({ template: TemplateSchema })),
          ...errors('TEMPLATE_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await getTemplate(
        deps.templates,
        tenantCaller(request).tenantId,
        request.params.templateId,
      ),
    }),
  );

  app.patch<WithId>(
    '/api/v1/templates/:templateId',
    {
      config: { scope: 'templates:update', ...documentedAs({ body: PatchTemplateBodyByEngine }) },
      validatorCompiler: useCaseChecksBody,
      schema: {
        operationId: 'updateTemplate',
        summary: 'Change a template (a new name must be unique too)',
        tags: ['templates'],
        security,
        params: TemplateIdParams,
        body: PatchTemplateBody,
        response: {
          200: ok(Type.Object({ template: TemplateSchema })),
          ...errors(...BODY_ERRORS, 'TEMPLATE_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await patchTemplate(
        deps.templates,
        tenantCaller(request).tenantId,
        request.params.templateId,
        request.body,
        deps.secrets,
      ),
    }),
  );

  app.delete<WithId>(
    '/api/v1/templates/:templateId',
    {
      config: { scope: 'templates:delete' },
      schema: {
        operationId: 'deleteTemplate',
        summary: 'Delete a template (scans made from it keep their templateId)',
        tags: ['templates'],
        security,
        params: TemplateIdParams,
        response: {
          200: ok(
            Type.Object(
              { id: Type.String(), deleted: Type.Literal(true) },
              { additionalProperties: false },
            ),
          ),
          ...errors('TEMPLATE_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await deleteTemplate(
        deps.templates,
        tenantCaller(request).tenantId,
        request.params.templateId,
      ),
    }),
  );
}
