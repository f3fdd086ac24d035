/**
 * The tenant's schedules, newest first: what each scans, its recurrence, the next run, whether it
 * is paused (and why the scheduler paused it), the last run's outcome; pause and resume in place;
 * the form that creates one. Editing, the last runs and deleting are on the schedule's page.
 */
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { ScheduleForm } from '../components/schedule-form.js';
import { DataTable, ErrorNotice, Loading, PageHeader, Pager, Time } from '../components/ui.js';
import { unwrap, useApi } from '../lib/api.js';
import { pageFrom } from '../lib/issue-filters.js';
import {
  describeRecurrence,
  describeSource,
  EMPTY_DRAFT,
  type Schedule,
  type ScheduleBody,
} from '../lib/schedule-form.js';
import { useResource } from '../lib/use-resource.js';
import { useSearchParams } from '../lib/use-search-params.js';

export const SCHEDULE_PAGE_SIZE = 50;

export function SchedulesPage() {
  const { client } = useApi();
  const [params, setParams] = useSearchParams();
  const page = pageFrom(params);
  const schedules = useResource(
    () =>
      unwrap(
        client.GET('/api/v1/schedules', {
          params: { query: { page, limit: SCHEDULE_PAGE_SIZE } },
        }),
      ),
    [page],
  );
  const list = schedules.data?.data;

  const create = async (body: ScheduleBody) => {
    const created = await unwrap(client.POST('/api/v1/schedules', { body }));
    schedules.reload();
    return `Schedule ${created.data.schedule.name} created.`;
  };

  return (
    <section>
      <PageHeader title="Schedules" />
      <ErrorNotice error={schedules.error} />
      {list === undefined ? (
        schedules.error === undefined ? (
          <Loading />
        ) : null
      ) : list.schedules.length === 0 ? (
        <p class="empty">No schedules yet.</p>
      ) : (
        <>
          <DataTable
            caption="Schedules, newest first"
            columns={['Name', 'Scans', 'When', 'Next run', 'Last run', 'State']}
          >
            {list.schedules.map((schedule) => (
              <ScheduleRow key={schedule.id} schedule={schedule} onChange={schedules.reload} />
            ))}
          </DataTable>
          <Pager
            pagination={list.pagination}
            noun="schedules"
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      )}
      <ScheduleForm
        id="new-schedule"
        legend="New schedule"
        initial={EMPTY_DRAFT}
        submitLabel="Create schedule"
        onSubmit={create}
      />
    </section>
  );
}

/** The newest run's outcome and when, or a dash. */
export function LastRun(props: { schedule: Schedule }) {
  const run = props.schedule.lastRuns[0];
  if (run === undefined) {
    return <span class="muted">never ran</span>;
  }
  return (
    <>
      <span class={`badge run-${run.outcome}`}>{run.outcome}</span> <Time at={run.ranAt} />
    </>
  );
}

/** Pause or resume (PATCH paused), announcing the new state. */
export function PauseButton(props: { schedule: Schedule; onChange: () => void }) {
  const { client } = useApi();
  const [error, setError] = useState<unknown>(undefined);
  const { schedule } = props;
  const toggle = async () => {
    setError(undefined);
    try {
      await unwrap(
        client.PATCH('/api/v1/schedules/{scheduleId}', {
          params: { path: { scheduleId: schedule.id } },
          body: { paused: !schedule.paused },
        }),
      );
      props.onChange();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <>
      <button
        type="button"
        aria-label={`${schedule.paused ? 'Resume' : 'Pause'} ${schedule.name}`}
        onClick={toggle}
      >
        {schedule.paused ? 'Resume' : 'Pause'}
      </button>
      <ErrorNotice error={error} />
    </>
  );
}

function ScheduleRow(props: { schedule: Schedule; onChange: () => void }) {
  const { schedule } = props;
  return (
    <tr data-schedule-id={schedule.id}>
      <td>
        <Link href={`/schedules/${schedule.id}`}>{schedule.name}</Link>
      </td>
      <td class="small">{describeSource(schedule)}</td>
      <td class="small">
        <code>{describeRecurrence(schedule)}</code>
      </td>
      <td>{schedule.paused ? <span class="muted">—</span> : <Time at={schedule.nextRunAt} />}</td>
      <td>
        <LastRun schedule={schedule} />
      </td>
      <td>
        <span class="state" role="status">
          {schedule.paused ? 'paused' : 'active'}
        </span>
        {schedule.pausedReason === null ? null : (
          <span class="small muted"> ({schedule.pausedReason})</span>
        )}{' '}
        <PauseButton schedule={schedule} onChange={props.onChange} />
      </td>
    </tr>
  );
}
