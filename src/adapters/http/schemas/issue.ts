/** Schemas of the issue routes (issue 23, a Rampart extension): exact response shapes. */
import { Type } from '@sinclair/typebox';
import { FingerprintedFindingSchema } from '../../../domain/findings/finding-schema.js';
import { ISSUE_STATUSES } from '../../../domain/issues/issue.js';
import { TRIAGE_STATES } from '../../../domain/issues/triage.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const finding = FingerprintedFindingSchema.properties;

export const IssueSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    target: Type.String({ description: 'The scanned target as the scans stored it' }),
    fingerprint: Type.String({
      description:
        "The fingerprint the issue was created with (a sentinel finding's primary source's)",
    }),
    engine: Type.String({ description: "The latest finding's engine" }),
    ruleId: finding.ruleId,
    title: finding.title,
    severity: finding.severity,
    toolSeverity: finding.toolSeverity,
    category: finding.category,
    location: finding.location,
    identifiers: finding.identifiers,
    description: finding.description,
    remediation: finding.remediation,
    references: finding.references,
    status: Type.String({
      enum: [...ISSUE_STATUSES],
      description:
        'open; fixed: a later completed scan of its engine on the target did not see it; reopened: seen again after fixed',
    }),
    statusChangedAt: DateTime,
    firstSeenAt: DateTime,
    lastSeenAt: DateTime,
    firstScanId: Type.String({ format: 'uuid' }),
    lastScanId: Type.String({ format: 'uuid' }),
    occurrences: Type.Integer({ minimum: 0, description: 'How many scans saw it' }),
    triage: Type.String({
      enum: [...TRIAGE_STATES],
      description: 'The triage in effect (an accepted risk past its expiry reads none)',
    }),
    triageReason: NullableString,
    triagedBy: Type.Union([Type.String(), Type.Null()], {
      description:
        'Who set the triage: the API key id, the dashboard JWT subject, or expiry; null if never triaged',
    }),
    triagedAt: NullableDateTime,
    triageExpiresAt: Type.Union([DateTime, Type.Null()], {
      description: 'accepted_risk only: when it returns to none',
    }),
  },
  { $id: 'Issue', additionalProperties: false },
);

export const IssueRef = Type.Ref('Issue');

export const IssueEventSchema = Type.Object(
  {
    at: DateTime,
    kind: Type.String({ enum: ['status', 'triage'] }),
    from: Type.Union([Type.String(), Type.Null()], {
      description: 'The state before (null when the issue was opened)',
    }),
    to: Type.String(),
    scanId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: 'status moves: the scan that made it',
    }),
    actor: Type.Union([Type.String(), Type.Null()], {
      description: 'triage moves: the API key id, the dashboard JWT subject, or expiry',
    }),
    reason: NullableString,
  },
  { additionalProperties: false },
);

export const IssueWithHistory = Type.Object(
  {
    ...IssueSchema.properties,
    history: Type.Array(IssueEventSchema, { description: 'Status and triage moves, oldest first' }),
  },
  { additionalProperties: false },
);

export const IssueIdParams = Type.Object({
  issueId: Type.String({
    format: 'uuid',
    'x-error-code': 'ISSUE_NOT_FOUND',
    'x-invalid-code': 'ISSUE_NOT_FOUND',
    description: 'The issue id',
  }),
});
