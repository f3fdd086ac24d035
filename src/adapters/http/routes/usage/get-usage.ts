import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { SEVERITIES } from '../../../../domain/findings/finding.js';
import { SCAN_STATUSES } from '../../../../domain/scans/status-machine.js';
import {
  DEFAULT_USAGE_DAYS,
  MAX_USAGE_DAYS,
  MIN_USAGE_DAYS,
} from '../../../../domain/usage/daily-usage.js';
import { getDailyUsage, getUsage } from '../../../../use-cases/usage/get-usage.js';
import type { AppDeps } from '../../app-deps.js';
import { tenantCaller } from '../../request-auth.js';
import {
  API_KEY_AUTH_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';

const Counts = Type.Record(Type.String(), Type.Integer());
const PerWindow = Type.Object(
  {
    perMinute: Type.Union([Type.Integer(), Type.Null()]),
    perHour: Type.Union([Type.Integer(), Type.Null()]),
    perDay: Type.Union([Type.Integer(), Type.Null()]),
  },
  { additionalProperties: false },
);

const Usage = Type.Object(
  {
    period: Type.Object(
      { start: Type.String(), end: Type.String() },
      { additionalProperties: false },
    ),
    quota: Type.Object(
      {
        limit: Type.Integer(),
        used: Type.Integer(),
        remaining: Type.Integer(),
        resetsAt: Type.String(),
      },
      { additionalProperties: false },
    ),
    scans: Type.Object(
      { total: Type.Integer(), byStatus: Counts, byScanType: Counts },
      { additionalProperties: false },
    ),
    issues: Type.Object(
      {
        open: Type.Integer({ minimum: 0, description: 'The sum of openBySeverity' }),
        openBySeverity: Type.Object(
          Object.fromEntries(
            SEVERITIES.map((severity) => [severity, Type.Integer({ minimum: 0 })]),
          ),
          { additionalProperties: false },
        ),
      },
      {
        additionalProperties: false,
        description:
          "Extension: the tenant's issues (findings across rescans) with status open or reopened and triage none (an accepted risk past its expiry counts), by severity; not limited to the month",
      },
    ),
    apiKey: Type.Optional(
      Type.Object(
        { id: Type.String(), rateLimits: PerWindow, remaining: PerWindow },
        { additionalProperties: false, description: 'Only when called with an API key' },
      ),
    ),
  },
  { additionalProperties: false },
);

/** GET /api/v1/usage (usage:read): the month, the quota, the month's scans, the key's windows. */
export function registerGetUsage(app: FastifyInstance, deps: AppDeps): void {
  app.get(
    '/api/v1/usage',
    {
      config: { scope: 'usage:read' },
      schema: {
        operationId: 'getUsage',
        summary: 'Usage for the current UTC month: quota, scans, and the calling key’s rate limits',
        tags: ['usage'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        response: {
          200: { ...success(Usage), headers: RATE_LIMIT_HEADERS },
          ...errorResponses(...API_KEY_AUTH_CODES),
        },
      },
    },
    async (request) => {
      const caller = tenantCaller(request);
      const data = await getUsage(
        deps,
        caller.tenantId,
        caller.kind === 'api-key' ? { record: caller.key, admission: caller.admission } : null,
      );
      return { success: true, data };
    },
  );
}

const DailyQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: MIN_USAGE_DAYS,
      maximum: MAX_USAGE_DAYS,
      default: DEFAULT_USAGE_DAYS,
      description: `How many UTC days, today included (${MIN_USAGE_DAYS}-${MAX_USAGE_DAYS}, default ${DEFAULT_USAGE_DAYS})`,
    }),
  ),
});

const StatusCounts = Type.Object(
  Object.fromEntries(SCAN_STATUSES.map((status) => [status, Type.Integer({ minimum: 0 })])),
  { additionalProperties: false },
);

const DailyUsage = Type.Object(
  {
    period: Type.Object(
      {
        start: Type.String({ description: '00:00 UTC of the first day' }),
        end: Type.String({ description: '00:00 UTC of the day after today (exclusive)' }),
      },
      { additionalProperties: false },
    ),
    days: Type.Array(
      Type.Object(
        {
          date: Type.String({ description: 'The UTC day, YYYY-MM-DD' }),
          total: Type.Integer({ minimum: 0, description: 'Scans created that day' }),
          byStatus: StatusCounts,
        },
        { additionalProperties: false },
      ),
      { description: 'Every day of the period, oldest first (zero counts included)' },
    ),
  },
  { additionalProperties: false },
);

/** GET /api/v1/usage/daily (usage:read, an extension): scans per UTC day over the last days. */
export function registerGetDailyUsage(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: { days?: number } }>(
    '/api/v1/usage/daily',
    {
      config: { scope: 'usage:read' },
      schema: {
        operationId: 'getDailyUsage',
        summary: 'Scans per UTC day over the last days (a Rampart extension)',
        description:
          "The tenant's scans by the UTC day they were created on and their status now, the last `days` days with today, oldest first; every day is present. Sentinel children are parts of their scan and not counted, as in GET /api/v1/usage.",
        tags: ['usage'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        querystring: DailyQuery,
        response: {
          200: { ...success(DailyUsage), headers: RATE_LIMIT_HEADERS },
          ...errorResponses(...API_KEY_AUTH_CODES, 'INVALID_FIELD_TYPE', 'INVALID_FIELD_VALUE'),
        },
      },
    },
    async (request) => {
      const data = await getDailyUsage(
        deps,
        tenantCaller(request).tenantId,
        request.query.days ?? DEFAULT_USAGE_DAYS,
      );
      return { success: true, data };
    },
  );
}
