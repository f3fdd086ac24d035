/**
 * One schedule: its state and recurrence, pause/resume, the form that edits it (PATCH with the
 * whole form: fields the form clears are sent as null), its last runs with their scans and
 * errors, and deleting it (the scans it created are kept).
 */

import { Link, useLocation } from 'wouter-preact';
import { ConfirmButton } from '../components/confirm.js';
import { ScheduleForm } from '../components/schedule-form.js';
import { DataTable, ErrorNotice, Loading, PageHeader, Time } from '../components/ui.js';
import { unwrap, useApi } from '../lib/api.js';
import {
  describeRecurrence,
  describeSource,
  draftFromSchedule,
  type ScheduleBody,
} from '../lib/schedule-form.js';
import { useResource } from '../lib/use-resource.js';
import { LastRun, PauseButton } from './schedules.js';

export function ScheduleDetailPage(props: { params: { scheduleId: string } }) {
  const { client } = useApi();
  const [, navigate] = useLocation();
  const scheduleId = props.params.scheduleId;
  const answer = useResource(
    () =>
      unwrap(client.GET('/api/v1/schedules/{scheduleId}', { params: { path: { scheduleId } } })),
    [scheduleId],
  );
  const schedule = answer.data?.data.schedule;

  if (schedule === undefined) {
    return (
      <section>
        <p>
          <Link href="/schedules">← Schedules</Link>
        </p>
        <ErrorNotice error={answer.error} />
        {answer.error === undefined ? <Loading /> : null}
      </section>
    );
  }
  const save = async (body: ScheduleBody) => {
    await unwrap(
      client.PATCH('/api/v1/schedules/{scheduleId}', { params: { path: { scheduleId } }, body }),
    );
    answer.reload();
    return 'Schedule saved.';
  };
  const remove = async () => {
    await unwrap(
      client.DELETE('/api/v1/schedules/{scheduleId}', { params: { path: { scheduleId } } }),
    );
    navigate('/schedules');
  };
  return (
    <section>
      <p>
        <Link href="/schedules">← Schedules</Link>
      </p>
      <PageHeader title={schedule.name}>
        <PauseButton schedule={schedule} onChange={answer.reload} />
      </PageHeader>
      <dl class="facts">
        <dt>State</dt>
        <dd role="status">
          {schedule.paused ? 'paused' : 'active'}
          {schedule.pausedReason === null ? '' : ` (${schedule.pausedReason})`}
        </dd>
        <dt>Scans</dt>
        <dd>{describeSource(schedule)}</dd>
        <dt>When</dt>
        <dd>
          <code>{describeRecurrence(schedule)}</code>
        </dd>
        <dt>Next run</dt>
        <dd>{schedule.paused ? '—' : <Time at={schedule.nextRunAt} />}</dd>
        <dt>Last run</dt>
        <dd>
          <LastRun schedule={schedule} />
        </dd>
        <dt>Failures in a row</dt>
        <dd>{schedule.consecutiveFailures}</dd>
      </dl>
      <ScheduleForm
        key={schedule.updatedAt}
        id="edit-schedule"
        legend="Edit schedule"
        initial={draftFromSchedule(schedule)}
        submitLabel="Save schedule"
        onSubmit={save}
      />
      <h2>Last runs</h2>
      {schedule.lastRuns.length === 0 ? (
        <p class="muted">It has not run yet.</p>
      ) : (
        <DataTable
          caption="The newest runs, newest first"
          columns={['Ran', 'Outcome', 'Scans', 'Errors']}
        >
          {schedule.lastRuns.map((run) => (
            <tr key={run.occurrenceAt}>
              <td>
                <Time at={run.ranAt} />
                {run.missed > 0 ? <span class="small muted"> (+{run.missed} missed)</span> : null}
              </td>
              <td>
                <span class={`badge run-${run.outcome}`}>{run.outcome}</span>
              </td>
              <td class="small">
                {run.scanIds.map((id) => (
                  <Link key={id} href={`/scans/${id}`}>
                    {id.slice(0, 8)}{' '}
                  </Link>
                ))}
              </td>
              <td class="small">
                {run.errors
                  .map((e) => `${e.target ?? e.assetId ?? '—'}: ${e.code}: ${e.message}`)
                  .join('; ')}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2>Delete</h2>
      <ConfirmButton
        label="Delete schedule"
        title={`Delete ${schedule.name}?`}
        confirmLabel="Delete schedule"
        danger
        onConfirm={remove}
      >
        <p>The scans it created are kept.</p>
      </ConfirmButton>
    </section>
  );
}
