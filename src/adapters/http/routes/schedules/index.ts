/** Scheduled scans (API-key context; an extension with scopes schedules:read and schedules:write). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../../../../domain/errors.js';
import type { ScanCaller } from '../../../../use-cases/scans/create-scan.js';
import {
  createSchedule,
  deleteSchedule,
  getSchedule,
  listSchedules,
  type ScheduleDeps,
  updateSchedule,
} from '../../../../use-cases/schedules/manage-schedules.js';
import {
  CreateScheduleBody,
  PatchScheduleBody,
} from '../../../../use-cases/schedules/schedule-schema.js';
import type { AppDeps } from '../../app-deps.js';
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
const RunSchema = Type.Object(
  {
    occurrenceAt: Type.String({ format: 'date-time' }),
    ranAt: Type.String({ format: 'date-time' }),
    outcome: Type.String({
      enum: ['created', 'partial', 'failed', 'skipped'],
      description:
        'created: a scan for every target; partial: for some; failed: none (errors say why); skipped: missed while no scheduler ran (missedRunPolicy skip)',
    }),
    scanIds: Type.Array(Type.String({ format: 'uuid' })),
    errors: Type.Array(
      Type.Object({
        target: Type.Union([Type.String(), Type.Null()], {
          description:
            'The scan target; null when there was none (an asset of assetIds that no longer exists, a tag no asset carries)',
        }),
        assetId: Type.Optional(
          Type.String({ description: 'The asset the scan was for (schedules over assets)' }),
        ),
        code: Type.String(),
        message: Type.String(),
      }),
      {
        description:
          'A scan the occurrence did not create, and why; a scan refused for one target or asset does not stop the others',
      },
    ),
    missed: Type.Integer({
      description: 'Due occurrences this run stands for beyond its own (run_once) or skipped',
    }),
  },
  { additionalProperties: false },
);
const ScheduleSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: NullableString,
    scan: Type.Object({}, { additionalProperties: true }),
    templateId: NullableString,
    targets: Type.Array(Type.String(), { description: 'Empty when the schedule scans assets' }),
    assetIds: Type.Union([Type.Array(Type.String({ format: 'uuid' })), Type.Null()]),
    assetTag: NullableString,
    cron: NullableString,
    timeZone: NullableString,
    intervalSeconds: Type.Union([Type.Integer(), Type.Null()]),
    missedRunPolicy: Type.String({ enum: ['skip', 'run_once'] }),
    paused: Type.Boolean(),
    pausedReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the scheduler paused it (consecutive runs that created no scan)',
    }),
    consecutiveFailures: Type.Integer(),
    nextRunAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    lastRuns: Type.Array(RunSchema, { description: 'The newest runs (at most 10), newest first' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const ScheduleIdParams = Type.Object({
  scheduleId: Type.String({
    format: 'uuid',
    'x-invalid-code': 'SCHEDULE_NOT_FOUND',
    description: 'The schedule id (a UUID)',
  }),
});

const BODY_ERRORS: ErrorCode[] = [
  ...BODY_CODES,
  'INVALID_SCAN_TYPE',
  'SCAN_TYPE_NOT_ALLOWED',
  'INVALID_PRIORITY',
  'INVALID_TARGET',
  'TARGET_NOT_ALLOWED',
  'TEMPLATE_NOT_FOUND',
  'INVALID_WEBHOOK_URL',
  'INVALID_ASSET_ID',
];
type WithId = { Params: { scheduleId: string } };

function scanCaller(request: FastifyRequest): ScanCaller {
  const caller = tenantCaller(request);
  return {
    tenantId: caller.tenantId,
    apiKeyId: caller.kind === 'api-key' ? caller.key.id : null,
    allowedScanTypes: caller.kind === 'api-key' ? caller.key.allowedScanTypes : null,
  };
}

const DESCRIPTION =
  'A Rampart extension. At each occurrence of its cron expression (read in timeZone) or interval, a schedule creates one scan per target (or per asset of assetIds, or per asset carrying assetTag at that moment, each scan linked to its asset), as POST /api/v1/scans would (scan body or templateId; quota and per-tenant fairness apply); occurrences missed while no scheduler ran are skipped or run once (missedRunPolicy). A schedule whose runs create no scan SCHEDULE_MAX_FAILURES times in a row (quota, validation, no worker, or an unexpected error recorded as INTERNAL_ERROR, which rolls back only the scans of that schedule) is paused with pausedReason. Scans run with the rights of the key that last wrote the schedule, but the schedule belongs to the tenant: revoking, suspending or expiring that key does not stop it (pause or delete it).';

export function registerScheduleRoutes(app: FastifyInstance, deps: AppDeps): void {
  const scheduleDeps: ScheduleDeps = {
    schedules: deps.schedules,
    templates: deps.templates,
    assets: deps.assets,
    allowPrivateTargets: deps.config.allowPrivateTargets,
    ids: deps.ids,
    clock: deps.clock,
    maxSchedules: deps.config.tenantLimits.maxSchedules,
  };

  app.post(
    '/api/v1/schedules',
    {
      config: { scope: 'schedules:write' },
      validatorCompiler: useCaseChecksBody,
      schema: {
        operationId: 'createSchedule',
        summary: 'Create a schedule of scans',
        description: `${DESCRIPTION} At most TENANT_MAX_SCHEDULES schedules per tenant, paused ones included: 409 TENANT_LIMIT_REACHED (after every 400).`,
        tags: ['schedules'],
        security,
        body: CreateScheduleBody,
        response: {
          201: ok(Type.Object({ schedule: ScheduleSchema })),
          ...errors(...BODY_ERRORS, 'TENANT_LIMIT_REACHED'),
        },
      },
    },
    async (request, reply) => {
      const data = await createSchedule(scheduleDeps, scanCaller(request), request.body);
      return reply.code(201).send({ success: true, data });
    },
  );

  app.get<{ Querystring: { page?: number; limit?: number } }>(
    '/api/v1/schedules',
    {
      config: { scope: 'schedules:read' },
      schema: {
        operationId: 'listSchedules',
        summary: "The tenant's schedules, newest first",
        tags: ['schedules'],
        security,
        querystring: Type.Object(PageQuery),
        response: {
          200: ok(
            Type.Object({ schedules: Type.Array(ScheduleSchema), pagination: PaginationSchema }),
          ),
          ...errors('INVALID_PAGE', 'INVALID_LIMIT'),
        },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      return {
        success: true,
        data: await listSchedules(deps.schedules, tenantCaller(request).tenantId, { page, limit }),
      };
    },
  );

  app.get<WithId>(
    '/api/v1/schedules/:scheduleId',
    {
      config: { scope: 'schedules:read' },
      schema: {
        operationId: 'getSchedule',
        summary: 'One schedule, with its last runs',
        tags: ['schedules'],
        security,
        params: ScheduleIdParams,
        response: {
          200: ok(Type.Object({ schedule: ScheduleSchema })),
          ...errors('SCHEDULE_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await getSchedule(
        deps.schedules,
        tenantCaller(request).tenantId,
        request.params.scheduleId,
      ),
    }),
  );

  app.patch<WithId>(
    '/api/v1/schedules/:scheduleId',
    {
      config: { scope: 'schedules:write' },
      validatorCompiler: useCaseChecksBody,
      schema: {
        operationId: 'updateSchedule',
        summary: 'Change, pause or resume a schedule',
        description:
          'Fields not sent are kept; cron or intervalSeconds replaces the recurrence. Resuming (paused false) clears pausedReason and the failure count and counts the next run from now: what passed while paused is not run.',
        tags: ['schedules'],
        security,
        params: ScheduleIdParams,
        body: PatchScheduleBody,
        response: {
          200: ok(Type.Object({ schedule: ScheduleSchema })),
          ...errors(...BODY_ERRORS, 'SCHEDULE_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await updateSchedule(
        scheduleDeps,
        scanCaller(request),
        request.params.scheduleId,
        request.body,
      ),
    }),
  );

  app.delete<WithId>(
    '/api/v1/schedules/:scheduleId',
    {
      config: { scope: 'schedules:write' },
      schema: {
        operationId: 'deleteSchedule',
        summary: 'Delete a schedule (the scans it created are kept)',
        tags: ['schedules'],
        security,
        params: ScheduleIdParams,
        response: {
          200: ok(
            Type.Object(
              { id: Type.String(), deleted: Type.Literal(true) },
              { additionalProperties: false },
            ),
          ),
          ...errors('SCHEDULE_NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      success: true,
      data: await deleteSchedule(
        deps.schedules,
        tenantCaller(request).tenantId,
        request.params.scheduleId,
      ),
    }),
  );
}
