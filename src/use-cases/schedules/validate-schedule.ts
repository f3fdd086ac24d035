/**
 * Validation of schedule bodies (POST and PATCH /api/v1/schedules). The schema answers missing
 * fields and wrong types first, then its wrong values; then the rules across fields: a cron
 * expression (with its time zone) or an interval, a scan body or a template, no credentials in
 * the schedule's own scan body. Each target is then checked as a scan request would be
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

const checkCreate = compileBodyCheck(CreateScheduleBody);
const checkPatch = compileBodyCheck(PatchScheduleBody);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const invalid = (field: string, reason: string) =>
  new ApiError('INVALID_FIELD_VALUE', { field, reason });

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
    targets: current.targets,
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
  deps: Pick<CreateScanDeps, 'templates' | 'allowPrivateTargets'>,
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
  for (const field of ['target', 'templateId']) {
    if (scan[field] !== undefined) {
      throw invalid(
        `scan.${field}`,
        field === 'target' ? 'targets are given in targets' : 'give templateId beside scan',
      );
    }
  }
  if (hasCredentials(scan)) {
    throw invalid(
      'scan',
      'credentials are not stored in a schedule: put them in a template and give its templateId',
    );
  }
  const targets = merged.targets as string[];
  if (new Set(targets).size !== targets.length) {
    throw invalid('targets', 'each target once');
  }
  for (const target of targets) {
    await checkScanRequest(deps, caller, {
      ...scan,
      target,
      ...(templateId === null ? {} : { templateId }),
    });
  }
  return {
    name: String(merged.name),
    description: given('description') ? String(merged.description) : null,
    scan,
    templateId: templateId?.toLowerCase() ?? null,
    targets,
    recurrence,
    missedRunPolicy: (given('missedRunPolicy')
      ? merged.missedRunPolicy
      : 'skip') as MissedRunPolicy,
    paused: merged.paused === true,
  };
}
