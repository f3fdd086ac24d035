/**
 * Validation of schedule bodies (POST and PATCH /api/v1/schedules). The schema answers missing
 * fields and wrong types first, then its wrong values; then the rules across fields: a cron
 * expression (with its time zone) or an interval, a scan body or a template, no credentials in
 * the schedule's own scan body, exactly one of targets, assetIds and assetTag. Each target (each
 * asset's value) is then checked as a scan request would be
 * (checkScanRequest), so a schedule that could never create its scans is refused when written.
 */
import { ApiError } from '../../domain/errors.js';
import {
  cronProblem,
  type MissedRunPolicy,
  type Recurrence,
} from '../../domain/schedules/recurrence.js';
import { maskSecretConfig } from '../../domain/secrets/secret-config.js';
import { maskSecretOptions } from '../../domain/secrets/secret-options.js';
import { compileBodyCheck } from '../../domain/validation/ajv.js';
import type { ScheduleFields, ScheduleRecord } from '../ports/schedules.js';
import { type CreateScanDeps, checkScanRequest, type ScanCaller } from '../scans/create-scan.js';
import { CreateScheduleBody, PatchScheduleBody } from './schedule-schema.js';
import { noSuchAsset, scheduledTargets, selectsAssets } from './scheduled-targets.js';

const checkCreate = compileBodyCheck(CreateScheduleBody);
const checkPatch = compileBodyCheck(PatchScheduleBody);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalid = (field: string, reason: string) =>
  new ApiError('INVALID_FIELD_VALUE', { field, reason });

/** The fields that say what a schedule scans: exactly one of them. */
const SELECTIONS = ['targets', 'assetIds', 'assetTag'] as const;

function selectionOf(
  merged: Record<string, unknown>,
  given: (field: string) => boolean,
): Pick<ScheduleFields, 'targets' | 'assetIds' | 'assetTag'> {
  const chosen = SELECTIONS.filter(given);
  const [first, second] = chosen;
  if (first === undefined) {
    throw new ApiError('MISSING_REQUIRED_FIELD', { field: 'targets' });
  }
  if (second !== undefined) {
    throw invalid(second, `give one of ${SELECTIONS.join(', ')}, not ${first} and ${second}`);
  }
  return {
    targets: first === 'targets' ? (merged.targets as string[]) : [],
    assetIds: first === 'assetIds' ? (merged.assetIds as string[]) : null,
    assetTag: first === 'assetTag' ? String(merged.assetTag) : null,
  };
}

/** A stored schedule written back as a body, for PATCH to apply its fields over. */
function asBody(current: ScheduleRecord): Record<string, unknown> {
  const recurrence =
    current.recurrence.kind === 'cron'
      ? { cron: current.recurrence.cron, timeZone: current.recurrence.timeZone }
      : { intervalSeconds: current.recurrence.intervalSeconds };
  return {
    name: current.name,
    description: current.description,
    scan: Object.keys(current.scan).length === 0 ? null : current.scan,
    templateId: current.templateId,
    ...(current.assetIds !== null
      ? { assetIds: current.assetIds }
      : current.assetTag !== null
        ? { assetTag: current.assetTag }
        : { targets: current.targets }),
    ...recurrence,
    missedRunPolicy: current.missedRunPolicy,
    paused: current.paused,
  };
}

function hasCredentials(scan: Record<string, unknown>): boolean {
  for (const field of ['options', 'config'] as const) {
    const value = scan[field];
    if (isObject(value)) {
      const masked =
        field === 'options' ? maskSecretOptions({ ...value }) : maskSecretConfig({ ...value });
      if (JSON.stringify(masked) !== JSON.stringify(value)) {
        return true;
      }
    }
  }
  return false;
}

/**
 * The schedule's fields after applying `body` to `current` (null: a create), each target checked
 * as a scan request of `caller`. `anchor` starts an interval that is new. Throws the first problem.
 */
export async function scheduleFieldsFrom(
  deps: Pick<CreateScanDeps, 'templates' | 'allowPrivateTargets' | 'assets'>,
  caller: ScanCaller,
  body: unknown,
  current: ScheduleRecord | null,
  anchor: Date,
): Promise<ScheduleFields> {
  const checked = current === null ? checkCreate(body) : checkPatch(body);
  if (checked.structure !== null) {
    throw checked.structure;
  }
  const [firstValue] = checked.values;
  if (firstValue !== undefined) {
    throw firstValue;
  }
  const sent = Object.fromEntries(
    Object.entries(isObject(body) ? body : {}).filter(([, value]) => value !== undefined),
  );
  // A new cron or interval replaces the old recurrence as a whole.
  const base = current === null ? {} : asBody(current);
  if ('cron' in sent || 'intervalSeconds' in sent) {
    for (const field of ['cron', 'timeZone', 'intervalSeconds']) {
      delete base[field];
    }
  }
  // So does a new choice of what to scan.
  if (SELECTIONS.some((field) => field in sent)) {
    for (const field of SELECTIONS) {
      delete base[field];
    }
  }
  const merged = { ...base, ...sent };
  const given = (field: string) => merged[field] !== undefined && merged[field] !== null;

  let recurrence: Recurrence;
  if (given('cron') && given('intervalSeconds')) {
    throw invalid('intervalSeconds', 'give either cron or intervalSeconds, not both');
  } else if (given('cron')) {
    const cron = String(merged.cron).trim();
    const timeZone = given('timeZone') ? String(merged.timeZone) : 'UTC';
    const problem = cronProblem(cron, timeZone);
    if (problem !== null) {
      throw invalid(problem.endsWith('not an IANA time zone') ? 'timeZone' : 'cron', problem);
    }
    recurrence = { kind: 'cron', cron, timeZone };
  } else if (given('intervalSeconds')) {
    if (given('timeZone')) {
      throw invalid('timeZone', 'a time zone goes with cron, not with intervalSeconds');
    }
    const unchanged =
      current?.recurrence.kind === 'interval' &&
      current.recurrence.intervalSeconds === merged.intervalSeconds;
    recurrence = {
      kind: 'interval',
      intervalSeconds: Number(merged.intervalSeconds),
      anchor:
        unchanged && current?.recurrence.kind === 'interval' ? current.recurrence.anchor : anchor,
    };
  } else {
    throw new ApiError('MISSING_REQUIRED_FIELD', { field: 'cron' });
  }

  const scan = given('scan') ? (merged.scan as Record<string, unknown>) : {};
  const templateId = given('templateId') ? String(merged.templateId) : null;
  if (!given('scan') && templateId === null) {
    throw new ApiError('MISSING_REQUIRED_FIELD', { field: 'scan' });
  }
  const selection = selectionOf(merged, given);
  for (const field of ['target', 'templateId', 'assetId']) {
    if (scan[field] !== undefined && (field !== 'assetId' || selectsAssets(selection))) {
      throw invalid(
        `scan.${field}`,
        field === 'target'
          ? 'targets are given in targets'
          : field === 'templateId'
            ? 'give templateId beside scan'
            : 'each scan is linked to its asset of assetIds or assetTag',
      );
    }
  }
  if (hasCredentials(scan)) {
    throw invalid(
      'scan',
      'credentials are not stored in a schedule: put them in a template and give its templateId',
    );
  }
  // Asset ids are UUIDs, in any case; targets are compared as written (URL paths have case).
  const listed = selection.assetIds?.map((id) => id.toLowerCase()) ?? selection.targets;
  if (new Set(listed).size !== listed.length) {
    throw invalid(
      selection.assetIds === null ? 'targets' : 'assetIds',
      selection.assetIds === null ? 'each target once' : 'each asset once',
    );
  }
  const scheduled = await scheduledTargets(deps.assets, caller.tenantId, selection);
  // Written now: every asset named must exist, and a tag must select one (later ones join).
  const [missing] = scheduled.errors;
  if (missing !== undefined && missing.target === null) {
    throw missing.assetId === undefined
      ? invalid(
          'assetTag',
          `no asset of the tenant carries the tag ${JSON.stringify(selection.assetTag)}; tag one first`,
        )
      : noSuchAsset(missing.assetId);
  }
  for (const { target, assetId } of scheduled.targets) {
    await checkScanRequest(deps, caller, {
      ...scan,
      target,
      ...(assetId === null ? {} : { assetId }),
      ...(templateId === null ? {} : { templateId }),
    });
  }
  return {
    name: String(merged.name),
    description: given('description') ? String(merged.description) : null,
    scan,
    templateId: templateId?.toLowerCase() ?? null,
    ...selection,
    assetIds: selection.assetIds?.map((id) => id.toLowerCase()) ?? null,
    recurrence,
    missedRunPolicy: (given('missedRunPolicy')
      ? merged.missedRunPolicy
      : 'skip') as MissedRunPolicy,
    paused: merged.paused === true,
  };
}
