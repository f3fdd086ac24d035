/** Schemas of the scan routes: request documentation and exact response shapes. */
import { Type } from '@sinclair/typebox';
import { SEVERITIES } from '../../../domain/findings/finding.js';
import {
  FingerprintedFindingSchema,
  SeveritySchema,
} from '../../../domain/findings/finding-schema.js';
import { BASELINE_STATES } from '../../../domain/issues/issue.js';
import { TRIAGE_STATES, type TriageState } from '../../../domain/issues/triage.js';
import { PRIORITIES } from '../../../domain/scans/priority.js';
import { SCAN_STATUSES } from '../../../domain/scans/status-machine.js';
import { ENGINE_NAMES, type EngineName } from '../../../engines/engine.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

const ScanCreatedFields = {
  id: Type.String({ format: 'uuid' }),
  scanType: Type.String({ enum: [...ENGINE_NAMES] }),
  name: Type.String(),
  target: Type.String(),
  status: Type.String({ enum: [...SCAN_STATUSES] }),
  priority: Type.String({ enum: [...PRIORITIES] }),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  tags: Type.Array(Type.String()),
  createdAt: DateTime,
};

export const ScanCreated = Type.Object(
  {
    ...ScanCreatedFields,
    callbackSecret: Type.Optional(
      Type.String({ description: 'whsec_… secret that signs the callback; only in this answer' }),
    ),
  },
  { additionalProperties: false },
);

const Summary = Type.Object(
  Object.fromEntries(SEVERITIES.map((severity) => [severity, Type.Integer({ minimum: 0 })])),
  { additionalProperties: false },
);

const RiskFactorSchema = Type.Object(
  {
    factor: Type.String({ description: 'severity, known-cve, confirmed, exposure, …' }),
    points: Type.Number({ description: 'What it added to the score' }),
    detail: Type.String(),
  },
  { additionalProperties: false },
);

/** The sentinel part of a sentinel scan's detail and results. */
export const SentinelSchema = Type.Object(
  {
    depth: Type.String({ enum: ['quick', 'standard', 'deep'] }),
    correlate: Type.Boolean(),
    riskScore: Type.Boolean(),
    skipped: Type.Array(
      Type.Object(
        { engine: Type.String(), reason: Type.String() },
        { additionalProperties: false },
      ),
      { description: 'Engines planning left out, and why' },
    ),
    children: Type.Array(
      Type.Object(
        {
          scanId: Type.String({ format: 'uuid' }),
          engine: Type.String(),
          status: Type.String({ enum: [...SCAN_STATUSES] }),
          progress: Type.Integer({ minimum: 0, maximum: 100 }),
          resultCount: Type.Integer(),
          findingsSummary: Summary,
          error: Type.Union([
            Type.Object(
              { code: Type.String(), message: Type.String() },
              { additionalProperties: false },
            ),
            Type.Null(),
          ]),
        },
        { additionalProperties: false },
      ),
      { description: 'One child scan per engine (GET /api/v1/scans?parentScanId= lists them)' },
    ),
    riskFactors: Type.Union([Type.Array(RiskFactorSchema), Type.Null()], {
      description: 'Why the scan has its riskScore (riskScore on, once the scan has ended)',
    }),
  },
  { additionalProperties: false, description: 'sentinel scans only' },
);

export const ScanDetail = Type.Object(
  {
    ...ScanCreatedFields,
    targetType: Type.String(),
    options: Type.Object(
      {},
      { additionalProperties: true, description: 'Effective options, defaults filled in' },
    ),
    config: Type.Object({}, { additionalProperties: true }),
    timeout: Type.Integer({ description: 'Effective timeout in seconds' }),
    assetId: NullableString,
    callbackUrl: NullableString,
    templateId: NullableString,
    parentScanId: NullableString,
    resultCount: Type.Integer(),
    findingsSummary: Summary,
    riskScore: Type.Integer({ minimum: 0, maximum: 100 }),
    error: Type.Optional(
      Type.Object(
        { code: Type.String(), message: Type.String() },
        { additionalProperties: false, description: 'Failed scans only' },
      ),
    ),
    startedAt: NullableDateTime,
    completedAt: NullableDateTime,
    durationMs: Type.Union([Type.Integer(), Type.Null()]),
    sentinel: Type.Optional(SentinelSchema),
  },
  { $id: 'Scan', additionalProperties: false },
);

export const ScanRef = Type.Ref('Scan');

/**
 * A stored finding: the domain's fingerprinted finding with its ids, engine and creation time, and
 * on sentinel scans where it came from.
 */
export const FindingSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    scanId: Type.String({ format: 'uuid' }),
    engine: Type.String(),
    ...FingerprintedFindingSchema.properties,
    createdAt: DateTime,
    issueId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description:
        "The issue this finding is (GET /api/v1/issues/:issueId; a Rampart extension); null for findings that feed no issue: a sentinel child scan's (its parent's findings do) and those of scans that ended before issues were tracked",
    }),
    triage: Type.Union([Type.String({ enum: [...TRIAGE_STATES] }), Type.Null()], {
      description:
        "Its issue's triage in effect now (an accepted risk past its expiry reads none), whichever scan found it; null without an issue",
    }),
    baselineState: Type.Union([Type.String({ enum: [...BASELINE_STATES] }), Type.Null()], {
      description:
        "Against its issue before this finding's scan: new (the scan created the issue, or reopened a fixed one), updated (severity, title, category or CWE/CVE ids changed), unchanged; null without an issue",
    }),
    sources: Type.Optional(
      Type.Array(
        Type.Object(
          {
            engine: Type.String(),
            scanId: Type.String({ format: 'uuid', description: 'The child scan' }),
            findingId: Type.String({
              format: 'uuid',
              description: "Its id in the child's findings",
            }),
            confidence: Type.String({ enum: ['low', 'medium', 'high', 'confirmed'] }),
            finding: Type.Object(
              {},
              {
                additionalProperties: true,
                description: "The engine's original finding (without raw)",
              },
            ),
          },
          { additionalProperties: false },
        ),
        { description: 'sentinel scans only: the findings merged into this one, primary first' },
      ),
    ),
    correlatedBy: Type.Optional(
      Type.Array(Type.String({ enum: ['cve', 'weakness', 'service', 'hostname'] }), {
        description: 'sentinel scans only: the rules that merged its sources',
      }),
    ),
    risk: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              score: Type.Integer({ minimum: 0, maximum: 100 }),
              factors: Type.Array(RiskFactorSchema),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        { description: "sentinel scans with riskScore: the finding's risk and why" },
      ),
    ),
  },
  { $id: 'Finding', additionalProperties: false },
);

export const FindingRef = Type.Ref('Finding');

export const PaginationSchema = Type.Object(
  {
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    totalPages: Type.Integer(),
  },
  { additionalProperties: false },
);

/**
 * The last page a list serves: with `limit` 100 that is the millionth row, far past any real list
 * (a tenant's templates, webhooks and keys are capped; a scan's findings stay below it), while an
 * offset stays cheap to compute and a value like `1e300` never reaches the database.
 */
export const MAX_PAGE = 10_000;

export const PageQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE,
      default: 1,
      'x-invalid-code': 'INVALID_PAGE',
      description: 'Page number, from 1',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 20,
      'x-invalid-code': 'INVALID_LIMIT',
      description: 'Items per page',
    }),
  ),
};

export const ScanIdParams = Type.Object({
  scanId: Type.String({
    format: 'uuid',
    'x-error-code': 'SCAN_NOT_FOUND',
    'x-invalid-code': 'SCAN_NOT_FOUND',
    description: 'The scan id',
  }),
});

export const SeverityFilter = { ...SeveritySchema, description: 'Only findings of this severity' };

/**
 * The engines a finding names: a scan's own, or on a sentinel scan the child engine that produced
 * it (never `sentinel` itself). The findings list's and the issues list's `engine` filter.
 */
export const EngineFilter = Type.Unsafe<Exclude<EngineName, 'sentinel'>>(
  Type.String({
    enum: ENGINE_NAMES.filter((name) => name !== 'sentinel'),
    description: 'Only findings of this engine',
  }),
);

/** The triage states a list filters on (the triage in effect: an expired accepted risk is none). */
export const TriageFilter = Type.Unsafe<TriageState>(
  Type.String({
    enum: [...TRIAGE_STATES],
    description: 'Only findings with this triage in effect',
  }),
);
