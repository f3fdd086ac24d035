/**
 * One scan: its facts, live while queued or running (the page polls), Cancel, its findings
 * (filtered by severity, engine and triage and paged by the API), triage of a finding's issue,
 * exports (fetched with the token through the typed client, saved from a Blob), and for sentinel
 * scans the child scans and risk factors. Filters and the findings page live in the address.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { TriageForm } from '../components/triage-form.js';
import {
  DataTable,
  ErrorNotice,
  Loading,
  PageHeader,
  Pager,
  SeverityBadge,
  StatusBadge,
  Time,
} from '../components/ui.js';
import { type Schema, unwrap, useApi } from '../lib/api.js';
import {
  ISSUE_SEVERITIES,
  isEmptyFilter,
  pageFrom,
  sharedFilterFrom,
  TRIAGE_LABELS,
  TRIAGE_STATES,
  type TriageBody,
  type TriageState,
} from '../lib/issue-filters.js';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  exportFilename,
  formatDuration,
  isLive,
  locationText,
  scanEngines,
  sortedRiskFactors,
  summaryText,
} from '../lib/scan-view.js';
import { useResource } from '../lib/use-resource.js';
import { useSearchParams } from '../lib/use-search-params.js';

type Scan = Schema<'Scan'>;
type Finding = Schema<'Finding'>;

const FINDINGS_PER_PAGE = 50;
const EXPORT_LABELS: Readonly<Record<ExportFormat, string>> = {
  json: 'JSON',
  sarif: 'SARIF',
  csv: 'CSV',
  defectdojo: 'DefectDojo',
};

export function ScanDetailPage(props: { params: { scanId: string } }) {
  const { scanId } = props.params;
  const { client } = useApi();
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const scan = useResource(
    async () =>
      (await unwrap(client.GET('/api/v1/scans/{scanId}', { params: { path: { scanId } } }))).data
        .scan,
    [scanId],
    { pollMs: 1000, while: (data) => isLive(data.status) },
  );
  const data = scan.data;

  const cancel = async () => {
    setActionError(undefined);
    try {
      await unwrap(client.POST('/api/v1/scans/{scanId}/cancel', { params: { path: { scanId } } }));
      setNotice('Scan cancelled.');
      scan.reload();
    } catch (error) {
      setActionError(error);
    }
  };

  return (
    <section>
      <PageHeader title={data === undefined ? 'Scan' : `Scan of ${data.target}`}>
        {data !== undefined && isLive(data.status) ? (
          <button type="button" class="danger" onClick={() => void cancel()}>
            Cancel scan
          </button>
        ) : null}
        <Link href="/scans">Back to scans</Link>
      </PageHeader>
      {notice === null ? null : (
        <p class="notice ok" role="status">
          {notice}
        </p>
      )}
      <ErrorNotice error={actionError} />
      <ErrorNotice error={scan.error} />
      {data === undefined ? (
        scan.error === undefined ? (
          <Loading />
        ) : null
      ) : (
        <>
          <ScanFacts scan={data} />
          {data.sentinel === undefined ? null : <SentinelPart scan={data} />}
          <Exports scan={data} />
          <Findings scan={data} />
        </>
      )}
    </section>
  );
}

function ScanFacts(props: { scan: Scan }) {
  const { scan } = props;
  return (
    <>
      <p class="visually-hidden" role="status" aria-live="polite">
        Scan {scan.status}, {scan.progress}% done
      </p>
      <dl class="facts">
        <dt>Target</dt>
        <dd>
          {scan.target} <span class="muted small">({scan.targetType})</span>
        </dd>
        <dt>Engine</dt>
        <dd>{scan.scanType}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={scan.status} />
        </dd>
        <dt>Progress</dt>
        <dd>
          <progress max={100} value={scan.progress} aria-label="Scan progress">
            {scan.progress}%
          </progress>{' '}
          <span class="small" data-progress>
            {scan.progress}%
          </span>
        </dd>
        <dt>Priority</dt>
        <dd>{scan.priority}</dd>
        {scan.name === '' ? null : (
          <>
            <dt>Name</dt>
            <dd>{scan.name}</dd>
          </>
        )}
        {scan.tags.length === 0 ? null : (
          <>
            <dt>Tags</dt>
            <dd>{scan.tags.join(', ')}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <Time at={scan.createdAt} />
        </dd>
        <dt>Started</dt>
        <dd>
          <Time at={scan.startedAt} />
        </dd>
        <dt>Ended</dt>
        <dd>
          <Time at={scan.completedAt} />
        </dd>
        <dt>Duration</dt>
        <dd>{formatDuration(scan.durationMs)}</dd>
        <dt>Timeout</dt>
        <dd>{formatDuration(scan.timeout * 1000)}</dd>
        <dt>Findings</dt>
        <dd>{summaryText(scan.findingsSummary)}</dd>
        {scan.parentScanId === null ? null : (
          <>
            <dt>Part of</dt>
            <dd>
              <Link href={`/scans/${scan.parentScanId}`}>the sentinel scan</Link>
            </dd>
          </>
        )}
        {scan.error === undefined ? null : (
          <>
            <dt>Error</dt>
            <dd class="error-text">
              <code>{scan.error.code}</code>: {scan.error.message}
            </dd>
          </>
        )}
      </dl>
      <details class="options-used">
        <summary>Effective options</summary>
        <dl class="facts">
          {Object.entries(scan.options).map(([key, value]) => (
            <Fragment key={key}>
              <dt>
                <code>{key}</code>
              </dt>
              <dd>
                <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
              </dd>
            </Fragment>
          ))}
        </dl>
      </details>
    </>
  );
}

function SentinelPart(props: { scan: Scan }) {
  const { scan } = props;
  const sentinel = scan.sentinel;
  if (sentinel === undefined) {
    return null;
  }
  const factors = sortedRiskFactors(sentinel.riskFactors);
  return (
    <>
      <h2>Engines of this sentinel scan</h2>
      <p class="muted small">
        Depth {sentinel.depth}; correlation {sentinel.correlate ? 'on' : 'off'}; risk score{' '}
        {sentinel.riskScore ? `on: ${scan.riskScore}/100` : 'off'}.
      </p>
      <DataTable caption="Child scans" columns={['Engine', 'Status', 'Progress', 'Findings']}>
        {sentinel.children.map((child) => (
          <tr key={child.scanId}>
            <td>
              <Link href={`/scans/${child.scanId}`}>{child.engine}</Link>
            </td>
            <td>
              <StatusBadge status={child.status} />
              {child.error === null ? null : (
                <span class="small error-text">
                  {' '}
                  {child.error.code}: {child.error.message}
                </span>
              )}
            </td>
            <td>
              <progress
                max={100}
                value={child.progress}
                aria-label={`Progress of ${child.engine}`}
              />{' '}
              <span class="small">{child.progress}%</span>
            </td>
            <td class="small">{summaryText(child.findingsSummary)}</td>
          </tr>
        ))}
      </DataTable>
      {sentinel.skipped.length === 0 ? null : (
        <p class="muted small">
          Left out: {sentinel.skipped.map((skip) => `${skip.engine} (${skip.reason})`).join('; ')}.
        </p>
      )}
      {factors.length === 0 ? null : (
        <>
          <h2>Risk factors</h2>
          <DataTable caption="Risk factors, heaviest first" columns={['Factor', 'Points', 'Why']}>
            {factors.map((factor) => (
              <tr key={`${factor.factor}-${factor.detail}`}>
                <td>{factor.factor}</td>
                <td>{factor.points}</td>
                <td>{factor.detail}</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </>
  );
}

/** Saves a Blob as a file: the one way to download what needs the token. */
function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Exports(props: { scan: Scan }) {
  const { client } = useApi();
  const { scan } = props;
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState<string | null>(null);
  const ended = !isLive(scan.status);

  const download = async (format: ExportFormat) => {
    setError(undefined);
    setSaved(null);
    try {
      const { data, response } = await client.GET('/api/v1/scans/{scanId}/results', {
        params: {
          path: { scanId: scan.id },
          query: format === 'json' ? { format, limit: 100 } : { format },
        },
        parseAs: 'blob',
      });
      if (data === undefined) {
        throw new Error(`The ${EXPORT_LABELS[format]} export gave no file`);
      }
      const filename = exportFilename(response.headers.get('content-disposition'), scan.id, format);
      saveBlob(data, filename);
      setSaved(filename);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <fieldset class="exports">
      <legend class="muted">Export results</legend>
      {EXPORT_FORMATS.map((format) => (
        <button
          key={format}
          type="button"
          disabled={!ended}
          title={ended ? undefined : 'Results are ready when the scan has ended'}
          onClick={() => void download(format)}
        >
          {EXPORT_LABELS[format]}
          {format === 'json' && scan.resultCount > 100 ? ' (first 100)' : ''}
        </button>
      ))}
      {saved === null ? null : (
        <span class="small" role="status">
          Saved {saved}
        </span>
      )}
      <ErrorNotice error={error} />
    </fieldset>
  );
}

function Findings(props: { scan: Scan }) {
  const { client } = useApi();
  const { scan } = props;
  const [params, setParams] = useSearchParams();
  const filter = sharedFilterFrom(params);
  const { severity, engine, triage } = filter;
  const page = pageFrom(params);
  const key = JSON.stringify(filter);
  const ended = !isLive(scan.status);
  const [triaged, setTriaged] = useState<string | null>(null);

  const loaded = useResource(
    async () =>
      ended
        ? (
            await unwrap(
              client.GET('/api/v1/scans/{scanId}/findings', {
                params: {
                  path: { scanId: scan.id },
                  query: { ...filter, page, limit: FINDINGS_PER_PAGE },
                },
              }),
            )
          ).data
        : null,
    [scan.id, key, page, ended],
  );
  const list = loaded.data;

  return (
    <>
      <h2>Findings</h2>
      {!ended ? (
        <p class="muted">Findings are listed when the scan has ended.</p>
      ) : (
        <>
          <form class="filters" aria-label="Filter findings" onSubmit={(e) => e.preventDefault()}>
            <span>
              <label for="findings-severity">Severity</label>{' '}
              <select
                id="findings-severity"
                value={severity ?? ''}
                onChange={(e) => setParams({ severity: e.currentTarget.value || null, page: null })}
              >
                <option value="">any</option>
                {ISSUE_SEVERITIES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </span>
            <span>
              <label for="findings-engine">Engine</label>{' '}
              <select
                id="findings-engine"
                value={engine ?? ''}
                onChange={(e) => setParams({ engine: e.currentTarget.value || null, page: null })}
              >
                <option value="">any</option>
                {scanEngines(scan, engine).map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </span>
            <span>
              <label for="findings-triage">Triage</label>{' '}
              <select
                id="findings-triage"
                value={triage ?? ''}
                onChange={(e) => setParams({ triage: e.currentTarget.value || null, page: null })}
              >
                <option value="">any</option>
                {TRIAGE_STATES.map((state) => (
                  <option key={state} value={state}>
                    {TRIAGE_LABELS[state]}
                  </option>
                ))}
              </select>
            </span>
          </form>
          {triaged === null ? null : (
            <p class="notice ok" role="status">
              {triaged}
            </p>
          )}
          <ErrorNotice error={loaded.error} />
          {list === undefined || list === null ? (
            loaded.error === undefined ? (
              <Loading />
            ) : null
          ) : list.pagination.total === 0 ? (
            <p class="empty">No findings{isEmptyFilter(filter) ? '' : ' match these filters'}.</p>
          ) : (
            <>
              <DataTable
                caption="Findings, most severe first"
                columns={['Severity', 'Finding', 'Engine', 'Triage']}
                class="findings"
              >
                {list.findings.map((finding) => (
                  <FindingRow
                    key={finding.id}
                    finding={finding}
                    onTriaged={(state) => {
                      setTriaged(`${finding.title}: ${TRIAGE_LABELS[state]}, saved.`);
                      loaded.reload();
                    }}
                  />
                ))}
              </DataTable>
              <Pager
                pagination={list.pagination}
                noun="findings"
                onPage={(next) => setParams({ page: String(next) })}
              />
            </>
          )}
        </>
      )}
    </>
  );
}

function FindingRow(props: { finding: Finding; onTriaged: (state: TriageState) => void }) {
  const { finding } = props;
  const [open, setOpen] = useState(false);
  const current = finding.triage ?? 'none';
  return (
    <>
      <tr data-finding-id={finding.id}>
        <td>
          <SeverityBadge severity={finding.severity} />
        </td>
        <td>
          <span class="finding-title">{finding.title}</span>
          <span class="muted small">
            {' '}
            {finding.category} · {locationText(finding.location)}
          </span>
        </td>
        <td>{finding.engine}</td>
        <td>
          {finding.issueId === null ? (
            <span class="muted small">no issue</span>
          ) : (
            <>
              <span class={`triage triage-${current}`}>{TRIAGE_LABELS[current]}</span>{' '}
              <button
                type="button"
                class="link"
                aria-expanded={open}
                aria-label={`Triage ${finding.title}`}
                onClick={() => setOpen(!open)}
              >
                Triage
              </button>
            </>
          )}
        </td>
      </tr>
      {open && finding.issueId !== null ? (
        <tr class="triage-row">
          <td colSpan={4}>
            <FindingTriage
              finding={finding}
              issueId={finding.issueId}
              onDone={(state) => {
                setOpen(false);
                props.onTriaged(state);
              }}
            />
          </td>
        </tr>
      ) : null}
    </>
  );
}

/** A finding's triage is its issue's (PATCH /api/v1/issues/{issueId}), with the one triage form. */
function FindingTriage(props: {
  finding: Finding;
  issueId: string;
  onDone: (state: TriageState) => void;
}) {
  const { client } = useApi();
  const { finding } = props;
  const save = async (body: TriageBody) => {
    const changed = await unwrap(
      client.PATCH('/api/v1/issues/{issueId}', {
        params: { path: { issueId: props.issueId } },
        body,
      }),
    );
    props.onDone(changed.data.issue.triage);
    return `${TRIAGE_LABELS[changed.data.issue.triage]}, saved.`;
  };
  return (
    <TriageForm
      id={`triage-${finding.id}`}
      label={`Triage of ${finding.title}`}
      legend="Triage (applies to this issue in every later scan)"
      initial={{ triage: finding.triage ?? 'none', reason: '', expiresAt: '' }}
      submitLabel="Save triage"
      onSubmit={save}
    />
  );
}
