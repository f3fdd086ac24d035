/**
 * The tenant's usage for the current UTC month (GET /api/v1/usage): the scan quota as a meter with
 * what is used and left, the month's scans by engine and by status, and the open issues by
 * severity, each as a chart with its numbers in a table, and the scans of the last 30 days per
 * day (GET /api/v1/usage/daily).
 */
import { BarChart } from '../components/bar-chart.js';
import { ColumnChart } from '../components/column-chart.js';
import { ErrorNotice, Loading, PageHeader, Time } from '../components/ui.js';
import { unwrap, useApi } from '../lib/api.js';
import { barsFrom, quotaShare } from '../lib/chart-scale.js';
import { ISSUE_SEVERITIES } from '../lib/issue-filters.js';
import { useResource } from '../lib/use-resource.js';

const monthFormat = new Intl.DateTimeFormat('en', {
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

const dayFormat = new Intl.DateTimeFormat('en', {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});

/** Days the scans-per-day chart covers. */
const CHART_DAYS = 30;

export function UsagePage() {
  const { client } = useApi();
  const usage = useResource(async () => {
    const [month, daily] = await Promise.all([
      unwrap(client.GET('/api/v1/usage')),
      unwrap(client.GET('/api/v1/usage/daily', { params: { query: { days: CHART_DAYS } } })),
    ]);
    return { ...month, daily: daily.data.days };
  }, []);
  const data = usage.data?.data;
  const daily = usage.data?.daily ?? [];
  if (data === undefined) {
    return (
      <section>
        <PageHeader title="Usage" />
        <ErrorNotice error={usage.error} />
        {usage.error === undefined ? <Loading /> : null}
      </section>
    );
  }
  const { quota, scans, issues } = data;
  const share = quotaShare(quota.used, quota.limit);
  const severityBars = ISSUE_SEVERITIES.map((severity) => ({
    label: severity,
    value: issues.openBySeverity[severity],
  })).filter((bar) => bar.value > 0);
  return (
    <section>
      <PageHeader title="Usage" />
      <ErrorNotice error={usage.error} />
      <p class="muted">
        {monthFormat.format(new Date(data.period.start))} (UTC). The quota resets{' '}
        <Time at={quota.resetsAt} />.
      </p>
      <section class="quota" aria-labelledby="quota-title">
        <h2 id="quota-title">Scan quota</h2>
        <meter
          id="quota-meter"
          min={0}
          max={Math.max(quota.limit, 1)}
          value={Math.min(quota.used, Math.max(quota.limit, 1))}
          low={Math.max(quota.limit, 1) * 0.75}
          high={Math.max(quota.limit, 1) * 0.9}
          optimum={0}
          aria-label="Scans used of the monthly quota"
        >
          {Math.round(share * 100)}%
        </meter>
        <dl class="facts quota-numbers">
          <dt>Used</dt>
          <dd data-testid="quota-used">{quota.used.toLocaleString('en')}</dd>
          <dt>Left</dt>
          <dd data-testid="quota-remaining">{quota.remaining.toLocaleString('en')}</dd>
          <dt>Monthly quota</dt>
          <dd data-testid="quota-limit">{quota.limit.toLocaleString('en')}</dd>
          <dt>Scans this month</dt>
          <dd>{scans.total.toLocaleString('en')}</dd>
          <dt>Open issues</dt>
          <dd>{issues.open.toLocaleString('en')}</dd>
        </dl>
      </section>
      <div class="charts">
        <ColumnChart
          id="per-day"
          title={`Scans per day, the last ${CHART_DAYS} days (UTC)`}
          category="Day"
          columns={daily.map((day) => ({
            label: dayFormat.format(new Date(`${day.date}T00:00:00Z`)),
            value: day.total,
          }))}
          labelEvery={7}
        />
        <BarChart
          id="by-engine"
          title="Scans this month by engine"
          category="Engine"
          bars={barsFrom(scans.byScanType)}
          empty="No scans this month."
        />
        <BarChart
          id="by-status"
          title="Scans this month by status"
          category="Status"
          bars={barsFrom(scans.byStatus)}
          barClass={(status) => `status-${status}`}
          empty="No scans this month."
        />
        <BarChart
          id="by-severity"
          title="Open issues by severity (untriaged, any month)"
          category="Severity"
          bars={severityBars}
          barClass={(severity) => `severity-${severity}`}
          empty="No open issues."
        />
      </div>
    </section>
  );
}
