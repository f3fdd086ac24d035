/**
 * The tenant's scans, newest first, with live status and progress: the page polls while any
 * listed scan is queued or running. Filters and page live in the address (?status=&scanType=&page=)
 * so a view can be shared and survives a reload.
 */
import { Link } from 'wouter-preact';
import {
  DataTable,
  ErrorNotice,
  Loading,
  PageHeader,
  Pager,
  StatusBadge,
  Time,
} from '../components/ui.js';
import { type Schema, unwrap, useApi } from '../lib/api.js';
import { useResource } from '../lib/use-resource.js';
import { useSearchParams } from '../lib/use-search-params.js';

type Scan = Schema<'Scan'>;
type ScanStatus = Scan['status'];
type ListType = Scan['scanType'] | 'all';

const STATUSES: readonly ScanStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];
export const PAGE_SIZE = 50;
const LIVE: readonly ScanStatus[] = ['queued', 'running'];

export function ScansPage() {
  const { client } = useApi();
  const [params, setParams] = useSearchParams();
  const status = STATUSES.find((s) => s === params.get('status'));
  const scanType = (params.get('scanType') ?? 'all') as ListType;
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);

  const scans = useResource(
    () =>
      unwrap(
        client.GET('/api/v1/scans', {
          params: {
            query: {
              scanType,
              ...(status === undefined ? {} : { status }),
              page,
              limit: PAGE_SIZE,
            },
          },
        }),
      ),
    [scanType, status, page],
    { pollMs: 2000, while: (data) => data.data.scans.some((scan) => LIVE.includes(scan.status)) },
  );
  const list = scans.data?.data;

  return (
    <section>
      <PageHeader title="Scans">
        <Link href="/scans/new" className="button primary">
          New scan
        </Link>
      </PageHeader>
      <form class="filters" aria-label="Filter scans" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status{' '}
          <select
            value={status ?? ''}
            onChange={(e) => setParams({ status: e.currentTarget.value || null, page: null })}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorNotice error={scans.error} />
      {list === undefined ? (
        scans.error === undefined ? (
          <Loading />
        ) : null
      ) : list.scans.length === 0 ? (
        <p class="empty">
          No scans{status === undefined ? ' yet' : ` ${status}`}.{' '}
          <Link href="/scans/new">Start one</Link>.
        </p>
      ) : (
        <>
          <DataTable
            caption="Scans, newest first"
            columns={['Target', 'Engine', 'Status', 'Progress', 'Findings', 'Created']}
            class="scans"
          >
            {list.scans.map((scan) => (
              <ScanRow key={scan.id} scan={scan} />
            ))}
          </DataTable>
          <Pager
            pagination={list.pagination}
            noun="scans"
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      )}
    </section>
  );
}

function ScanRow(props: { scan: Scan }) {
  const { scan } = props;
  const summary = scan.findingsSummary;
  return (
    <tr data-scan-id={scan.id}>
      <td>
        <Link href={`/scans/${scan.id}`}>{scan.target}</Link>
        {scan.name !== '' && scan.name !== scan.target ? (
          <span class="muted small"> {scan.name}</span>
        ) : null}
      </td>
      <td>{scan.scanType}</td>
      <td>
        <StatusBadge status={scan.status} />
      </td>
      <td>
        <progress max={100} value={scan.progress} aria-label={`Progress of ${scan.target}`}>
          {scan.progress}%
        </progress>{' '}
        <span class="small">{scan.progress}%</span>
      </td>
      <td class="small">
        {scan.resultCount === 0
          ? '—'
          : `${summary.critical}C ${summary.high}H ${summary.medium}M ${summary.low}L ${summary.info}I`}
      </td>
      <td>
        <Time at={scan.createdAt} />
      </td>
    </tr>
  );
}
