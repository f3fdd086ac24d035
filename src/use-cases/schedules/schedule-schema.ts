/**
 * The bodies of POST and PATCH /api/v1/schedules as JSON Schema (TypeBox): types and limits here,
 * the rules across fields in validate-schedule.ts. `scan` is a POST /api/v1/scans body without
 * `target`; it is checked as one, for each target, when the schedule is written.
 */
import { Type } from '@sinclair/typebox';
import { orNull } from '../../domain/validation/or-null.js';
import {
  MAX_ASSET_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_TAG_LENGTH,
} from '../scans/scan-request-schema.js';

export const MAX_SCHEDULE_TARGETS = 100;
export const MIN_INTERVAL_SECONDS = 60;
export const MAX_INTERVAL_SECONDS = 366 * 86_400;

const scheduleFields = {
  name: Type.String({
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    'x-reason': `must be 1 to ${MAX_NAME_LENGTH} characters long`,
  }),
  description: Type.Optional(orNull(Type.String({ maxLength: 2000 }))),
  scan: Type.Optional(
    orNull(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            'The body of POST /api/v1/scans without target (scanType, options, config, priority, tags, timeout, name, callbackUrl …). Credentials are refused here: keep them in a template and give its templateId.',
        },
      ),
    ),
  ),
  templateId: Type.Optional(
    orNull(Type.String({ description: 'Start each scan from this template (as POST /scans)' })),
  ),
  targets: Type.Optional(
    orNull(
      Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
        minItems: 1,
        maxItems: MAX_SCHEDULE_TARGETS,
        description:
          'One scan per target at each occurrence. Give exactly one of targets, assetIds and assetTag',
      }),
    ),
  ),
  assetIds: Type.Optional(
    orNull(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_ASSET_ID_LENGTH }), {
        minItems: 1,
        maxItems: MAX_SCHEDULE_TARGETS,
        description:
          "Instead of targets: assets of the tenant (GET /api/v1/assets); each occurrence scans each asset's value, linked to the asset. An unknown id is 400 INVALID_ASSET_ID",
      }),
    ),
  ),
  assetTag: Type.Optional(
    orNull(
      Type.String({
        minLength: 1,
        maxLength: MAX_TAG_LENGTH,
        description: `Instead of targets: every asset of the tenant carrying this tag when the occurrence runs (assets tagged later are included; at most ${MAX_SCHEDULE_TARGETS}, oldest first)`,
      }),
    ),
  ),
  cron: Type.Optional(
    orNull(
      Type.String({
        maxLength: 200,
        description: 'Five-field cron expression (minute hour day-of-month month day-of-week)',
      }),
    ),
  ),
  timeZone: Type.Optional(
    orNull(Type.String({ maxLength: 100, description: 'IANA time zone of cron (default UTC)' })),
  ),
  intervalSeconds: Type.Optional(
    orNull(
      Type.Integer({
        minimum: MIN_INTERVAL_SECONDS,
        maximum: MAX_INTERVAL_SECONDS,
        'x-reason': `<value> is not between ${MIN_INTERVAL_SECONDS} and ${MAX_INTERVAL_SECONDS} seconds`,
        description: 'Instead of cron: every so many seconds, counted from creation',
      }),
    ),
  ),
  missedRunPolicy: Type.Optional(
    orNull(
      Type.String({
        enum: ['skip', 'run_once'],
        description: 'Occurrences missed while no scheduler ran: skip them, or run the latest once',
      }),
    ),
  ),
  paused: Type.Optional(orNull(Type.Boolean())),
};

export const CreateScheduleBody = Type.Object(scheduleFields);

export const PatchScheduleBody = Type.Partial(Type.Object(scheduleFields));
