/**
 * The scheduler's claim: due schedules taken with FOR UPDATE SKIP LOCKED, and the work on them in
 * the same transaction. Their scans (counted against the quota, NOTIFY at commit), their run
 * records and their next run time commit together or not at all: a process that dies mid-claim
 * leaves the rows as they were, unlocked, and another process claims them. Rows another process
 * holds are skipped, not waited for, so processes share the due schedules without blocking.
 */
import { CompiledQuery, type Kysely, sql } from 'kysely';
import type {
  ScheduleClaim,
  ScheduleClaimer,
  ScheduleRun,
} from '../../use-cases/ports/schedules.js';
import { createAssetStore } from '../db/assets.repository.js';
import type { DatabaseHandle } from '../db/connect.js';
import type { Database, ScheduleRow } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import { createScanStore } from '../db/scans.repository.js';
import { toScheduleRecord } from '../db/schedules.repository.js';
import { createTemplateStore } from '../db/templates.repository.js';

/**
 * A handle whose every statement runs in `trx` (only what the scan store uses). Exported for
 * bench/schedules.ts, whose floor creates scans in transactions the size of a claim.
 */
export function transactionHandle(
  trx: Kysely<Database>,
  kind: DatabaseHandle['kind'],
): DatabaseHandle {
  const outside = () => {
    throw new Error('not available inside a schedule claim');
  };
  return {
    db: trx,
    kind,
    async prepared<R>(query: { text: string; values: readonly unknown[] }) {
      return (await trx.executeQuery<R>(CompiledQuery.raw(query.text, [...query.values]))).rows;
    },
    listen: outside,
    health: outside,
    holdsLock: outside,
    close: outside,
  };
}

function runColumns(run: ScheduleRun) {
  return {
    ran_at: run.ranAt,
    outcome: run.outcome,
    scan_ids: [...run.scanIds],
    errors: JSON.stringify(run.errors),
    missed: run.missed,
  };
}

export function createScheduleClaimer(database: DatabaseHandle): ScheduleClaimer {
  return {
    async claimDue(now, limit, work) {
      return database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<ScheduleRow>`
          select s.* from schedules s
          where not s.paused and s.next_run_at <= ${now}
            and exists (select 1 from tenants t where t.id = s.tenant_id and t.status = 'active')
          order by s.next_run_at
          limit ${limit}
          for update of s skip locked`.execute(trx);
        if (rows.length === 0) {
          return 0;
        }
        const claim: ScheduleClaim = {
          schedules: rows.map(toScheduleRecord),
          scans: createScanStore(transactionHandle(trx, database.kind)),
          templates: createTemplateStore(trx),
          assets: createAssetStore(trx),
          async reserve(occurrences) {
            if (occurrences.length === 0) {
              return new Set();
            }
            const taken = await trx
              .insertInto('schedule_runs')
              .values(
                occurrences.map((occurrence) => ({
                  schedule_id: occurrence.scheduleId,
                  occurrence_at: occurrence.occurrenceAt,
                  ran_at: now,
                  outcome: 'failed',
                })),
              )
              .onConflict((oc) => oc.columns(['schedule_id', 'occurrence_at']).doNothing())
              .returning('schedule_id')
              .execute();
            return new Set(taken.map((row) => row.schedule_id));
          },
          async record(runs) {
            if (runs.length === 0) {
              return;
            }
            await trx
              .insertInto('schedule_runs')
              .values(
                runs.map(({ scheduleId, run }) => ({
                  schedule_id: scheduleId,
                  occurrence_at: run.occurrenceAt,
                  ...runColumns(run),
                })),
              )
              .onConflict((oc) =>
                oc.columns(['schedule_id', 'occurrence_at']).doUpdateSet((eb) => ({
                  ran_at: eb.ref('excluded.ran_at'),
                  outcome: eb.ref('excluded.outcome'),
                  scan_ids: eb.ref('excluded.scan_ids'),
                  errors: eb.ref('excluded.errors'),
                  missed: eb.ref('excluded.missed'),
                })),
              )
              .execute();
          },
          async advance(states) {
            if (states.length === 0) {
              return;
            }
            const rows = states.map(({ scheduleId, state }) => ({
              id: scheduleId,
              next_run_at: state.nextRunAt?.toISOString() ?? null,
              paused: state.paused,
              paused_reason: state.pausedReason,
              consecutive_failures: state.consecutiveFailures,
            }));
            await sql`
              update schedules s set next_run_at = v.next_run_at, paused = v.paused,
                paused_reason = v.paused_reason, consecutive_failures = v.consecutive_failures
              from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(id uuid,
                next_run_at timestamptz, paused boolean, paused_reason text,
                consecutive_failures integer)
              where s.id = v.id`.execute(trx);
          },
          async isolate(isolated) {
            // One name is enough: savepoints are taken one after the other, never nested.
            await sql`savepoint schedule_work`.execute(trx);
            let value: Awaited<ReturnType<typeof isolated>>;
            try {
              value = await isolated();
            } catch (error) {
              await sql`rollback to savepoint schedule_work`.execute(trx);
              if (isDatabaseUnavailable(error)) {
                throw error;
              }
              return { ok: false, error };
            }
            await sql`release savepoint schedule_work`.execute(trx);
            return { ok: true, value };
          },
        };
        await work(claim);
        return rows.length;
      });
    },
  };
}
