/**
 * One issue: what it is, where, when it was first and last seen and by which scans, how many scans
 * saw it, its triage in effect and the history of its status and triage moves; the triage form
 * changes it (PATCH /api/v1/issues/{issueId}).
 */
import { Link } from 'wouter-preact';
import { TriageForm } from '../components/triage-form.js';
import {
  DataTable,
  ErrorNotice,
  Loading,
  PageHeader,
  SeverityBadge,
  Time,
} from '../components/ui.js';
import { unwrap, useApi } from '../lib/api.js';
import {
  localDateTimeInput,
  TRIAGE_LABELS,
  type TriageBody,
  type TriageDraft,
} from '../lib/issue-filters.js';
import { useResource } from '../lib/use-resource.js';

export function IssueDetailPage(props: { params: { issueId: string } }) {
  const { client } = useApi();
  const issueId = props.params.issueId;
  const answer = useResource(
    () => unwrap(client.GET('/api/v1/issues/{issueId}', { params: { path: { issueId } } })),
    [issueId],
  );
  const issue = answer.data?.data.issue;

  const triage = async (body: TriageBody) => {
    const changed = await unwrap(
      client.PATCH('/api/v1/issues/{issueId}', { params: { path: { issueId } }, body }),
    );
    answer.reload();
    return `Triage saved: ${TRIAGE_LABELS[changed.data.issue.triage]}.`;
  };

  if (issue === undefined) {
    return (
      <section>
        <p>
          <Link href="/issues">← Issues</Link>
        </p>
        <ErrorNotice error={answer.error} />
        {answer.error === undefined ? <Loading /> : null}
      </section>
    );
  }
  const initial: TriageDraft = {
    triage: issue.triage,
    reason: issue.triageReason ?? '',
    expiresAt: localDateTimeInput(issue.triageExpiresAt),
  };
  const where =
    issue.location.url ??
    [issue.location.host, issue.location.port].filter((part) => part !== null).join(':');
  return (
    <section>
      <p>
        <Link href="/issues">← Issues</Link>
      </p>
      <PageHeader title={issue.title}>
        <SeverityBadge severity={issue.severity} />
      </PageHeader>
      <ErrorNotice error={answer.error} />
      <dl class="facts">
        <dt>Target</dt>
        <dd>{issue.target}</dd>
        <dt>Where</dt>
        <dd>
          {where || '—'}
          {issue.location.protocol === null ? '' : ` (${issue.location.protocol})`}
        </dd>
        <dt>Engine · rule</dt>
        <dd>
          {issue.engine} · <code>{issue.ruleId}</code> · {issue.category}
        </dd>
        <dt>Status</dt>
        <dd>
          <span class={`badge issue-${issue.status}`}>{issue.status}</span> since{' '}
          <Time at={issue.statusChangedAt} />
        </dd>
        <dt>First seen</dt>
        <dd>
          <Time at={issue.firstSeenAt} /> by scan{' '}
          <Link href={`/scans/${issue.firstScanId}`}>{issue.firstScanId.slice(0, 8)}</Link>
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time at={issue.lastSeenAt} /> by scan{' '}
          <Link href={`/scans/${issue.lastScanId}`}>{issue.lastScanId.slice(0, 8)}</Link>
        </dd>
        <dt>Seen by</dt>
        <dd>
          {issue.occurrences} scan{issue.occurrences === 1 ? '' : 's'}
        </dd>
        <dt>Triage</dt>
        <dd data-testid="triage-in-effect">
          {TRIAGE_LABELS[issue.triage]}
          {issue.triageReason === null ? '' : ` — ${issue.triageReason}`}
          {issue.triagedBy === null ? null : (
            <span class="muted small">
              {' '}
              by {issue.triagedBy}, <Time at={issue.triagedAt} />
            </span>
          )}
          {issue.triageExpiresAt === null ? null : (
            <span class="muted small">
              {' '}
              · expires <Time at={issue.triageExpiresAt} />
            </span>
          )}
        </dd>
        {issue.identifiers.cve.length + issue.identifiers.cwe.length > 0 ? (
          <>
            <dt>Identifiers</dt>
            <dd>{[...issue.identifiers.cve, ...issue.identifiers.cwe].join(', ')}</dd>
          </>
        ) : null}
      </dl>
      {issue.description === null ? null : <p class="prose">{issue.description}</p>}
      {issue.remediation === null ? null : (
        <>
          <h2>Remediation</h2>
          <p class="prose">{issue.remediation}</p>
        </>
      )}
      {issue.references.length === 0 ? null : (
        <ul class="small">
          {issue.references.map((reference) => (
            <li key={reference}>
              <a href={reference} rel="noreferrer noopener" target="_blank">
                {reference}
              </a>
            </li>
          ))}
        </ul>
      )}
      {/* Keyed by the issue only: a save reloads the issue, and the form (its "saved" status
          among it) stays while the new triage shows above. */}
      <TriageForm
        key={issue.id}
        id="issue-triage"
        legend="Change the triage"
        initial={initial}
        submitLabel="Save triage"
        onSubmit={triage}
      />
      <h2>History</h2>
      <DataTable
        caption="Status and triage moves, oldest first"
        columns={['When', 'What', 'Change', 'By', 'Reason']}
      >
        {issue.history.map((event, index) => (
          <tr key={index}>
            <td>
              <Time at={event.at} />
            </td>
            <td>{event.kind}</td>
            <td>
              {event.from ?? '—'} → {event.to}
            </td>
            <td class="small">
              {event.scanId !== null ? (
                <Link href={`/scans/${event.scanId}`}>scan {event.scanId.slice(0, 8)}</Link>
              ) : (
                (event.actor ?? '—')
              )}
            </td>
            <td class="small">{event.reason ?? ''}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
