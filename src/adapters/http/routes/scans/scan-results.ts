import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { CSV_COLUMNS } from '../../../../domain/findings/csv.js';
import type { Severity } from '../../../../domain/findings/finding.js';
import type { TriageState } from '../../../../domain/issues/triage.js';
import {
  type ExportFormat,
  exportResults,
  getResults,
  listFindings,
} from '../../../../use-cases/scans/scan-results.js';
import type { AppDeps } from '../../app-deps.js';
import { documentedAs } from '../../documented-as.js';
import { tenantCaller } from '../../request-auth.js';
import {
  API_KEY_AUTH_CODES,
  errorResponses,
  RATE_LIMIT_HEADERS,
  success,
} from '../../schemas/envelope.js';
import {
  EngineFilter,
  FindingRef,
  PageQuery,
  PaginationSchema,
  ScanIdParams,
  SentinelSchema,
  SeverityFilter,
  TriageFilter,
} from '../../schemas/scan.js';

const Summary = Type.Record(Type.String(), Type.Integer());

const ResultsEnvelope = success(
  Type.Object(
    {
      scanId: Type.String({ format: 'uuid' }),
      status: Type.String(),
      partial: Type.Boolean({
        description: 'true for cancelled and failed scans: the findings collected so far',
      }),
      summary: Summary,
      riskScore: Type.Integer({ minimum: 0, maximum: 100 }),
      findings: Type.Array(FindingRef),
      pagination: PaginationSchema,
      sentinel: Type.Optional(SentinelSchema),
      findingsPrunedAt: Type.Optional(
        Type.String({
          format: 'date-time',
          description:
            "Extension, present only when retention (RETENTION_FINDINGS_DAYS) deleted this scan's findings: when. `findings` is then empty; `summary` and `riskScore` keep what the scan found",
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

/** A SARIF 2.1.0 log, as far as the document describes it (the OASIS schema has the rest). */
const SarifLog = Type.Object(
  {
    $schema: Type.String(),
    version: Type.Literal('2.1.0'),
    runs: Type.Array(Type.Object({}, { additionalProperties: true }), { minItems: 1 }),
  },
  {
    description:
      'SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html): one run of the scanning tool, its rules and results',
  },
);

/** The `format=defectdojo` file: DefectDojo's Generic Findings Import JSON (defectdojo.ts). */
const DefectDojoFile = Type.Object(
  {
    findings: Type.Array(
      Type.Object(
        {
          title: Type.String(),
          severity: Type.String({ enum: ['Critical', 'High', 'Medium', 'Low', 'Info'] }),
          description: Type.String({
            description: 'What identifies the finding only (stable across rescans)',
          }),
          unique_id_from_tool: Type.String({ description: "Rampart's fingerprint" }),
          vuln_id_from_tool: Type.String({ description: 'The rule id' }),
          static_finding: Type.Boolean(),
          dynamic_finding: Type.Boolean(),
          cwe: Type.Optional(Type.Integer()),
          vulnerability_ids: Type.Optional(Type.Array(Type.String())),
          endpoints: Type.Optional(Type.Array(Type.String())),
          mitigation: Type.Optional(Type.String()),
          impact: Type.Optional(Type.String()),
          references: Type.Optional(Type.String()),
          active: Type.Optional(
            Type.Boolean({ description: 'false for a triaged finding (its issue is triaged)' }),
          ),
          false_p: Type.Optional(Type.Boolean({ description: 'Its issue is a false_positive' })),
          risk_accepted: Type.Optional(
            Type.Boolean({ description: 'Its issue is an accepted_risk' }),
          ),
          out_of_scope: Type.Optional(Type.Boolean({ description: 'Its issue is out_of_scope' })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      "DefectDojo's Generic Findings Import (scan_type=Generic Findings Import), keys strictly in its vocabulary",
  },
);

/**
 * The 200 as documented: the envelope, or with `format` the whole result as a file (streamed, so
 * Fastify's serializer never sees it and the route's own 200 stays the envelope).
 */
const ResultsDocumented = {
  description:
    'format=json: the envelope, one page of findings. format=sarif, format=csv or format=defectdojo: the whole result as a file to download',
  headers: {
    ...RATE_LIMIT_HEADERS,
    'Content-Disposition': {
      type: 'string',
      description:
        'With a file: attachment; filename="rampart-scan-<scanId>.sarif" (or .csv, .defectdojo.json)',
    },
  },
  content: {
    'application/json': { schema: Type.Union([ResultsEnvelope, DefectDojoFile]) },
    'application/sarif+json': { schema: SarifLog },
    'text/csv': {
      schema: Type.String({
        description: `RFC 4180, UTF-8, CRLF line ends, no byte-order mark; header row ${CSV_COLUMNS.join(',')}; one row per finding, most severe first`,
      }),
    },
  },
};

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
      config: { scope: 'results:read', ...documentedAs({ response: { 200: ResultsDocumented } }) },
      schema: {
        operationId: 'getScanResults',
        summary:
          'Results of an ended scan: JSON (paged), or the whole result as SARIF 2.1.0, CSV or DefectDojo Generic Findings Import JSON',
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: ScanIdParams,
        querystring: Type.Object({
          format: Type.Optional(
            Type.String({
              enum: ['json', 'sarif', 'csv', 'defectdojo'],
              default: 'json',
              description:
                'json: the envelope, paged; sarif (application/sarif+json), csv (text/csv) or defectdojo (application/json, DefectDojo Generic Findings Import): the whole result as a file',
            }),
          ),
          ...PageQuery,
        }),
        response: {
          200: {
            ...ResultsEnvelope,
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
          data: await getResults(deps.scans, tenantId, scanId, { page, limit }, deps.clock.now()),
        };
      }
      const scanType = (await deps.scans.get(tenantId, scanId))?.scanType;
      const version = deps.engines.find((engine) => engine.name === scanType)?.version ?? null;
      const file = await exportResults(
        deps.scans,
        tenantId,
        scanId,
        format,
        version,
        deps.clock.now(),
      );
      // Streamed (chunked): a page of findings is read only when the client has taken the
      // previous one. Not in object mode, so the stream buffers bytes, not pages.
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .send(Readable.from(file.body, { objectMode: false }));
    },
  );
}

/**
 * The findings list's filters: `severity` (the contract's), `engine` and `triage` (Rampart
 * extensions). Each narrows the list and its pagination's totals.
 */
const FindingsQuery = Type.Object({
  severity: Type.Optional(SeverityFilter),
  engine: Type.Optional({
    ...EngineFilter,
    description:
      'Rampart extension: only findings of this engine (on a sentinel scan, the child engine that produced them)',
  }),
  triage: Type.Optional({
    ...TriageFilter,
    description:
      'Rampart extension: only findings whose issue has this triage in effect (an accepted risk past its expiry is none); a finding without an issue (triage null) matches none of them',
  }),
  ...PageQuery,
});

export function registerListFindings(app: FastifyInstance, deps: AppDeps): void {
  app.get<{
    Params: { scanId: string };
    Querystring: {
      severity?: Severity;
      engine?: string;
      triage?: TriageState;
      page?: number;
      limit?: number;
    };
  }>(
    '/api/v1/scans/:scanId/findings',
    {
      config: { scope: 'results:read' },
      schema: {
        operationId: 'listScanFindings',
        summary: 'Findings of an ended scan, most severe first, filtered and paged',
        description:
          "Filters combine, and pagination.total counts the findings that match them all. `severity` is the contract's filter; `engine` and `triage` are Rampart extensions.",
        tags: ['scans'],
        security: [{ apiKey: [] }, { bearerAuth: [] }],
        params: ScanIdParams,
        querystring: FindingsQuery,
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
      const { severity, engine, triage, page = 1, limit = 20 } = request.query;
      const data = await listFindings(
        deps.scans,
        tenantId,
        request.params.scanId,
        { severity: severity ?? null, engine: engine ?? null, triage: triage ?? null },
        { page, limit },
        deps.clock.now(),
      );
      return { success: true, data };
    },
  );
}
