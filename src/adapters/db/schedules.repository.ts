/** Schedules as the API reads and writes them (the scheduler's claim: adapters/queue). */
import type { Kysely, Selectable } from 'kysely';
import type { MissedRunPolicy, Recurrence } from '../../domain/schedules/recurrence.js';
import type {
  NewSchedule,
  ScheduleRecord,
  ScheduleRun,
  ScheduleStore,
} from '../../use-cases/ports/schedules.js';
import type { Database, ScheduleRow, ScheduleRunsTable } from './database.js';
import { insertUnderTenantCap, LIMIT_REACHED } from './tenant-cap.js';

const json = <T>(value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as T;

export function toScheduleRecord(row: ScheduleRow): ScheduleRecord {
  const recurrence: Recurrence =
    row.cron !== null
      ? { kind: 'cron', cron: row.cron, timeZone: row.time_zone ?? 'UTC' }
      : {
          kind: 'interval',
          intervalSeconds: row.interval_seconds ?? 0,
          anchor: row.interval_anchor ?? row.created_at,
        };
  return {
    id: row.id,
    tenantId: row.tenant_id,
    apiKeyId: row.api_key_id,
    allowedScanTypes: row.allowed_scan_types,
    name: row.name,
    description: row.description,
    scan: json<Record<string, unknown>>(row.scan),
    templateId: row.template_id,
    targets: row.targets,
    assetIds: row.asset_ids,
    assetTag: row.asset_tag,
    recurrence,
    missedRunPolicy: row.missed_run_policy as MissedRunPolicy,
    paused: row.paused,
    pausedReason: row.paused_reason,
    consecutiveFailures: row.consecutive_failures,
    nextRunAt: row.next_run_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toScheduleRun(row: Selectable<ScheduleRunsTable>): ScheduleRun {
  return {
    occurrenceAt: row.occurrence_at,
    ranAt: row.ran_at,
    outcome: row.outcome as ScheduleRun['outcome'],
    scanIds: row.scan_ids,
    errors: json<ScheduleRun['errors']>(row.errors),
    missed: row.missed,
  };
}

function columns(schedule: Omit<NewSchedule, 'id' | 'tenantId'>) {
  const { recurrence } = schedule;
  return {
    api_key_id: schedule.apiKeyId,
    allowed_scan_types: schedule.allowedScanTypes === null ? null : [...schedule.allowedScanTypes],
    name: schedule.name,
    description: schedule.description,
    scan: JSON.stringify(schedule.scan),
    template_id: schedule.templateId,
    targets: [...schedule.targets],
    asset_ids: schedule.assetIds === null ? null : [...schedule.assetIds],
    asset_tag: schedule.assetTag,
    cron: recurrence.kind === 'cron' ? recurrence.cron : null,
    time_zone: recurrence.kind === 'cron' ? recurrence.timeZone : null,
    interval_seconds: recurrence.kind === 'interval' ? recurrence.intervalSeconds : null,
    interval_anchor: recurrence.kind === 'interval' ? recurrence.anchor : null,
    missed_run_policy: schedule.missedRunPolicy,
    paused: schedule.paused,
    paused_reason: schedule.pausedReason,
    consecutive_failures: schedule.consecutiveFailures,
    next_run_at: schedule.nextRunAt,
  };
}

export function createScheduleStore(db: Kysely<Database>): ScheduleStore {
  return {
    async insert(schedule, maxSchedules) {
      const row = await insertUnderTenantCap(
        db,
        schedule.tenantId,
        maxSchedules,
        (trx) =>
          trx
            .insertInto('schedules')
            .values({ id: schedule.id, tenant_id: schedule.tenantId, ...columns(schedule) })
            .returningAll()
            .executeTakeFirstOrThrow(),
        async (trx) => {
          const held = await trx
            .selectFrom('schedules')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('tenant_id', '=', schedule.tenantId)
            .executeTakeFirstOrThrow();
          return Number(held.n);
        },
      );
      return row === LIMIT_REACHED ? row : toScheduleRecord(row);
    },

    async list(tenantId, page) {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('schedules')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(page.limit)
          .offset((page.page - 1) * page.limit)
          .execute(),
        db
          .selectFrom('schedules')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow(),
      ]);
      return { schedules: rows.map(toScheduleRecord), total: Number(count.n) };
    },

    async get(tenantId, id) {
      const row = await db
        .selectFrom('schedules')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row === undefined ? null : toScheduleRecord(row);
    },

    async lastRuns(scheduleId, limit) {
      const rows = await db
        .selectFrom('schedule_runs')
        .selectAll()
        .where('schedule_id', '=', scheduleId)
        .orderBy('occurrence_at', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toScheduleRun);
    },

    async update(tenantId, id, schedule) {
      const row = await db
        .updateTable('schedules')
        .set({ ...columns(schedule), updated_at: new Date() })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? null : toScheduleRecord(row);
    },

    async delete(tenantId, id) {
      const result = await db
        .deleteFrom('schedules')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
