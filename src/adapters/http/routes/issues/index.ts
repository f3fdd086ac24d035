/**
 * Issues across rescans (issue 23, a Rampart extension): read with results:read, triaged with
 * results:triage.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Severity } from '../../../../domain/findings/finding.js';
import { ISSUE_STATUSES, type IssueStatus } from '../../../../domain/issues/issue.js';
import {
  MAX_TRIAGE_REASON,
  TRIAGE_STATES,
  type TriageState,
} from '../../../../domain/issues/triage.js';
import { orNull } from '../../../../domain/validation/or-null.js';
import { getIssue, listIssues } from '../../../../use-cases/issues/read-issues.js';
import { diffScan } from '../../../../use-cases/issues/scan-diff.js';
import { triageIssue, triageIssues } from '../../../../use-cases/issues/triage-issue.js';
import type { IssueFilter } from '../../../../use-cases/ports/issues.js';
import type { AppDeps } from '../../app-deps.js';
import { tenantCaller } from '../../request-auth.js';
import {
  API_KEY_AUTH_CODES,
  BODY_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';
import { IssueIdParams, IssueRef, IssueWithHistory } from '../../schemas/issue.js';
import {
  EngineFilter,
  PageQuery,
  PaginationSchema,
  ScanIdParams,
  SeverityFilter,
  TriageFilter,
} from '../../schemas/scan.js';

/** The list's filters, also bulk triage's `filter`. */
const FilterFields = {
  target: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2048, description: 'Only issues of this target' }),
  ),
  engine: Type.Optional({
    ...EngineFilter,
    description: "Only issues whose latest finding is this engine's",
  }),
  severity: Type.Optional({ ...SeverityFilter, description: 'Only issues of this severity' }),
  status: Type.Optional(
    Type.String({ enum: [...ISSUE_STATUSES], description: 'Only issues in this status' }),
  ),
  triage: Type.Optional({ ...TriageFilter, description: 'Only issues with this triage in effect' }),
  since: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Only issues last seen at or after this instant (ISO 8601 with a zone)',
    }),
  ),
};

const ListQuery = Type.Object({ ...FilterFields, ...PageQuery });

const TriageBody = Type.Object({
  triage: Type.String({
    enum: [...TRIAGE_STATES],
    description:
      'none, false_positive, accepted_risk (needs a reason) or out_of_scope; kept when the finding comes back',
  }),
  reason: Type.Optional(
    orNull(Type.String({ maxLength: MAX_TRIAGE_REASON }), {
      description: 'Why (required for accepted_risk; blank counts as absent; none clears it)',
    }),
  ),
  expiresAt: Type.Optional(
    orNull(Type.String({ format: 'date-time' }), {
      description:
        'accepted_risk only, in the future (ISO 8601 with a zone): then it returns to none; absent or null: no expiry',
    }),
  ),
});

interface TriageBodyValue {
  triage: TriageState;
  reason?: string | null;
  expiresAt?: string | null;
}

interface FilterValue {
  /** Bulk triage only. */
  ids?: string[];
  target?: string;
  engine?: string;
  severity?: Severity;
  status?: IssueStatus;
  triage?: TriageState;
  since?: string;
}

interface ListQueryValue extends FilterValue {
  page?: number;
  limit?: number;
}

function toFilter(value: FilterValue): IssueFilter {
  return {
    ids: value.ids === undefined ? null : value.ids.map((id) => id.toLowerCase()),
    target: value.target ?? null,
    engine: value.engine ?? null,
    severity: value.severity ?? null,
    status: value.status ?? null,
    triage: value.triage ?? null,
    since: value.since === undefined ? null : new Date(value.since),
  };
}

/** Most issue ids one bulk triage names (a page of the list at its largest). */
const MAX_TRIAGE_IDS = 100;

const BulkTriageBody = Type.Object({
  filter: Type.Object(
    {
      ids: Type.Optional(
        Type.Array(Type.String({ format: 'uuid' }), {
          minItems: 1,
          maxItems: MAX_TRIAGE_IDS,
          description: `Rampart extension: only these issues (1 to ${MAX_TRIAGE_IDS} ids; ids the tenant does not have match nothing)`,
        }),
      ),
      ...FilterFields,
    },
    {
      description:
        "The issues to triage: ids and the list's filters, all of which must hold (at least one)",
    },
  ),
  ...TriageBody.properties,
});

/** Who a triage change names: the API key id, or the dashboard JWT subject. */
function actorOf(caller: ReturnType<typeof tenantCaller>): string {
  return caller.kind === 'api-key' ? caller.key.id : caller.subject;
}

export function registerIssueRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Querystring: ListQueryValue }>(
    '/api/v1/issues',
    {
      config: { scope: 'results:read' },
      schema: {
        operationId: 'listIssues',
        summary:
          "The tenant's issues (findings across rescans), most severe first, then last seen newest first; filtered and paged (a Rampart extension)",
        tags: ['issues'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        querystring: ListQuery,
        response: {
          200: {
            ...success(
              Type.Object(
                { issues: Type.Array(IssueRef), pagination: PaginationSchema },
                { additionalProperties: false },
              ),
            ),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(
            ...API_KEY_AUTH_CODES,
            'INVALID_FIELD_VALUE',
            'INVALID_PAGE',
            'INVALID_LIMIT',
          ),
        },
      },
    },
    async (request) => {
      const { tenantId } = tenantCaller(request);
      const { page = 1, limit = 20 } = request.query;
      const data = await listIssues(deps, tenantId, toFilter(request.query), { page, limit });
      return { success: true, data };
    },
  );

  app.get<{ Params: { issueId: string } }>(
    '/api/v1/issues/:issueId',
    {
      config: { scope: 'results:read' },
      schema: {
        operationId: 'getIssue',
        summary: 'One issue with its history of status and triage moves (a Rampart extension)',
        tags: ['issues'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: IssueIdParams,
        response: {
          200: {
            ...success(Type.Object({ issue: IssueWithHistory }, { additionalProperties: false })),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(...API_KEY_AUTH_CODES, 'ISSUE_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const { tenantId } = tenantCaller(request);
      const issue = await getIssue(deps, tenantId, request.params.issueId);
      return { success: true, data: { issue } };
    },
  );

  app.patch<{ Params: { issueId: string }; Body: TriageBodyValue }>(
    '/api/v1/issues/:issueId',
    {
      config: { scope: 'results:triage' },
      schema: {
        operationId: 'triageIssue',
        summary:
          "Sets an issue's triage; the change is recorded in its history with who and why (a Rampart extension)",
        description:
          'The same triage, reason and expiry again changes nothing and records nothing. A refused change (accepted_risk without a reason, expiresAt on another state or not in the future) is 400 INVALID_FIELD_VALUE.',
        tags: ['issues'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: IssueIdParams,
        body: TriageBody,
        response: {
          200: {
            ...success(Type.Object({ issue: IssueWithHistory }, { additionalProperties: false })),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(...API_KEY_AUTH_CODES, ...BODY_CODES, 'ISSUE_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const caller = tenantCaller(request);
      const { triage, reason, expiresAt } = request.body;
      const issue = await triageIssue(
        deps,
        caller.tenantId,
        request.params.issueId,
        {
          triage,
          reason: reason ?? null,
          expiresAt: expiresAt == null ? null : new Date(expiresAt),
        },
        actorOf(caller),
      );
      return { success: true, data: { issue } };
    },
  );

  app.post<{ Body: TriageBodyValue & { filter: FilterValue } }>(
    '/api/v1/issues/triage',
    {
      config: { scope: 'results:triage' },
      schema: {
        operationId: 'triageIssues',
        summary:
          "Sets the same triage on every issue a filter matches, each change in its issue's history (a Rampart extension)",
        description:
          'The rules of PATCH /api/v1/issues/{issueId}; issues whose triage in effect is already the one asked for are left alone and not counted. A filter naming nothing is 400 INVALID_FIELD_VALUE.',
        tags: ['issues'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        body: BulkTriageBody,
        response: {
          200: {
            ...success(
              Type.Object(
                { updated: Type.Integer({ minimum: 0, description: 'How many issues changed' }) },
                { additionalProperties: false },
              ),
            ),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(...API_KEY_AUTH_CODES, ...BODY_CODES),
        },
      },
    },
    async (request) => {
      const caller = tenantCaller(request);
      const { filter, triage, reason, expiresAt } = request.body;
      const data = await triageIssues(
        deps,
        caller.tenantId,
        toFilter(filter),
        {
          triage,
          reason: reason ?? null,
          expiresAt: expiresAt == null ? null : new Date(expiresAt),
        },
        actorOf(caller),
      );
      return { success: true, data };
    },
  );

  app.get<{ Params: { scanId: string }; Querystring: { base?: string } }>(
    '/api/v1/scans/:scanId/diff',
    {
      config: { scope: 'results:read' },
      schema: {
        operationId: 'diffScan',
        summary:
          "What changed with an ended scan: its issues against a base scan's of the same target and engine (a Rampart extension)",
        description:
          'new: only in this scan and never seen up to the base; reopened: only in this scan, seen before the base; fixed: only in the base; unchanged: in both. Each list holds the issues, most severe first. Without a base scan every issue of the scan is new and baseScanId is null.',
        tags: ['issues'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: ScanIdParams,
        querystring: Type.Object({
          base: Type.Optional(
            Type.String({
              format: 'uuid',
              description:
                'The scan to compare with (an ended scan of the same target and engine); default: the latest completed one created before this scan',
            }),
          ),
        }),
        response: {
          200: {
            ...success(
              Type.Object(
                {
                  scanId: Type.String({ format: 'uuid' }),
                  baseScanId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
                  new: Type.Array(IssueRef),
                  fixed: Type.Array(IssueRef),
                  reopened: Type.Array(IssueRef),
                  unchanged: Type.Array(IssueRef),
                },
                { additionalProperties: false },
              ),
            ),
            headers: RATE_LIMIT_HEADERS,
          },
          ...errorResponses(
            ...API_KEY_AUTH_CODES,
            'SCAN_NOT_FOUND',
            'RESULTS_NOT_READY',
            'INVALID_FIELD_VALUE',
          ),
        },
      },
    },
    async (request) => {
      const { tenantId } = tenantCaller(request);
      const data = await diffScan(deps, tenantId, request.params.scanId, request.query.base);
      return { success: true, data };
    },
  );
}
