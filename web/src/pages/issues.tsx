/**
 * The tenant's issues (findings across rescans), most severe first, with the API's filters and the
 * page in the address (?status=&triage=&severity=&engine=&target=&since=&page=). The selected
 * issues (by their ids), or every issue the filter matches, are triaged with one
 * POST /api/v1/issues/triage.
 */
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { TriageForm } from '../components/triage-form.js';
import { ErrorNotice, Loading, PageHeader, Pager, SeverityBadge, Time } from '../components/ui.js';
import { unwrap, useApi } from '../lib/api.js';
import {
  type BulkFilter,
  ISSUE_ENGINES,
  ISSUE_SEVERITIES,
  ISSUE_STATUSES,
  type Issue,
  type IssueFilter,
  isEmptyFilter,
  issueFilterFrom,
  pageFrom,
  TRIAGE_LABELS,
  TRIAGE_STATES,
  type TriageBody,
} from '../lib/issue-filters.js';
import { useResource } from '../lib/use-resource.js';
import { useSearchParams } from '../lib/use-search-params.js';

export const ISSUE_PAGE_SIZE = 50;
const NO_TRIAGE = { triage: 'false_positive', reason: '', expiresAt: '' } as const;

export function IssuesPage() {
  const { client } = useApi();
  const [params, setParams] = useSearchParams();
  const filter = issueFilterFrom(params);
  const page = pageFrom(params);
  const key = JSON.stringify(filter);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());

  const issues = useResource(
    () =>
      unwrap(
        client.GET('/api/v1/issues', {
          params: { query: { ...filter, page, limit: ISSUE_PAGE_SIZE } },
        }),
      ),
    [key, page],
  );
  const list = issues.data?.data;
  const shown = list?.issues ?? [];
  const chosen = shown.filter((issue) => selected.has(issue.id));

  const toggle = (id: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) {
        next.add(id);
      } else {
        next.delete(id);
      }
      return next;
    });
  const allChosen = shown.length > 0 && chosen.length === shown.length;

  /** One bulk triage of the issues `which` names: the selected ones' ids, or the filter. */
  const triage = async (which: BulkFilter, body: TriageBody) => {
    const answer = await unwrap(
      client.POST('/api/v1/issues/triage', { body: { filter: which, ...body } }),
    );
    issues.reload();
    const updated = answer.data.updated;
    return `${updated} issue${updated === 1 ? '' : 's'} changed to ${TRIAGE_LABELS[body.triage]}.`;
  };
  const triageSelected = async (body: TriageBody) => {
    const ids = chosen.map((issue) => issue.id);
    setSelected(new Set());
    return triage({ ids }, body);
  };
  const triageMatching = (body: TriageBody) => triage(filter, body);

  return (
    <section>
      <PageHeader title="Issues" />
      <p class="muted small">
        An issue is one finding followed across rescans of its target: fixed when a later scan no
        longer sees it, reopened when it comes back. Triage survives rescans.
      </p>
      <IssueFilters filter={filter} onChange={(changes) => setParams({ ...changes, page: null })} />
      <ErrorNotice error={issues.error} />
      {list === undefined ? (
        issues.error === undefined ? (
          <Loading />
        ) : null
      ) : list.issues.length === 0 ? (
        <p class="empty">
          {isEmptyFilter(filter)
            ? 'No issues yet: they appear when scans find something.'
            : 'No issues match these filters.'}
        </p>
      ) : (
        <>
          <div class="table-wrap">
            <table class="issues">
              <caption class="visually-hidden">Issues, most severe first</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select every issue on this page"
                      checked={allChosen}
                      onChange={(e) =>
                        setSelected(
                          e.currentTarget.checked
                            ? new Set(shown.map((issue) => issue.id))
                            : new Set(),
                        )
                      }
                    />
                  </th>
                  <th scope="col">Issue</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Target</th>
                  <th scope="col">Engine</th>
                  <th scope="col">Status</th>
                  <th scope="col">Triage</th>
                  <th scope="col">Seen</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {list.issues.map((issue) => (
                  <tr key={issue.id} data-issue-id={issue.id}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${issue.title} on ${issue.target}`}
                        checked={selected.has(issue.id)}
                        onChange={(e) => toggle(issue.id, e.currentTarget.checked)}
                      />
                    </td>
                    <td>
                      <Link href={`/issues/${issue.id}`}>{issue.title}</Link>
                    </td>
                    <td>
                      <SeverityBadge severity={issue.severity} />
                    </td>
                    <td class="small">{issue.target}</td>
                    <td>{issue.engine}</td>
                    <td>
                      <span class={`badge issue-${issue.status}`}>{issue.status}</span>
                    </td>
                    <td class="small" data-label="triage">
                      {TRIAGE_LABELS[issue.triage]}
                    </td>
                    <td class="small">
                      {issue.occurrences} scan{issue.occurrences === 1 ? '' : 's'}
                    </td>
                    <td>
                      <Time at={issue.lastSeenAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            pagination={list.pagination}
            noun="issues"
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      )}
      {list === undefined ? null : (
        <div class="bulk">
          <TriageForm
            id="bulk-selected"
            legend={`Triage the selected issues (${chosen.length})`}
            initial={NO_TRIAGE}
            submitLabel={`Triage ${chosen.length} selected`}
            disabled={chosen.length === 0}
            onSubmit={triageSelected}
          />
          <TriageForm
            id="bulk-filter"
            legend={`Triage every issue these filters match (${list.pagination.total})`}
            initial={NO_TRIAGE}
            submitLabel="Triage all matching"
            disabled={isEmptyFilter(filter)}
            onSubmit={triageMatching}
          />
          {isEmptyFilter(filter) ? (
            <p class="muted small">Choose a filter first to triage every issue it matches.</p>
          ) : null}
        </div>
      )}
    </section>
  );
}

function IssueFilters(props: {
  filter: IssueFilter;
  onChange: (changes: Record<string, string | null>) => void;
}) {
  const { filter, onChange } = props;
  const [target, setTarget] = useState(filter.target ?? '');
  const select = (
    name: string,
    label: string,
    value: string | undefined,
    options: readonly string[],
  ) => (
    <label>
      {label}{' '}
      <select
        value={value ?? ''}
        onChange={(e) => onChange({ [name]: e.currentTarget.value || null })}
      >
        <option value="">any</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {name === 'triage' ? TRIAGE_LABELS[option as Issue['triage']] : option}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form
      class="filters"
      aria-label="Filter issues"
      onSubmit={(e) => {
        e.preventDefault();
        onChange({ target: target.trim() || null });
      }}
    >
      {select('status', 'Status', filter.status, ISSUE_STATUSES)}
      {select('triage', 'Triage', filter.triage, TRIAGE_STATES)}
      {select('severity', 'Severity', filter.severity, ISSUE_SEVERITIES)}
      {select('engine', 'Engine', filter.engine, ISSUE_ENGINES)}
      <label>
        Seen since{' '}
        <input
          type="date"
          value={filter.since?.slice(0, 10) ?? ''}
          onChange={(e) => onChange({ since: e.currentTarget.value || null })}
        />
      </label>
      <label>
        Target{' '}
        <input
          type="search"
          value={target}
          placeholder="example.com"
          onInput={(e) => setTarget(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}
