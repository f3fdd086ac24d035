/**
 * One webhook: its settings and health, the actions on it (send a test, enable or disable, edit,
 * delete) and its delivery log, one row per attempt, newest first (filtered on the service by
 * outcome, event or one delivery, kept in the address), with Redeliver on deliveries that are over
 * and a form that sends again every failed delivery since a time. The page polls
 * while the tab is visible, so new attempts (a redelivery appears only after its first attempt)
 * show up as they happen.
 */
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { DELIVERY_LOG_EVENTS } from '../../../src/domain/webhooks/webhook-events.js';
import { ConfirmButton } from '../components/confirm.js';
import { ErrorNotice, Loading, PageHeader, Pager, StatusBadge, Time } from '../components/ui.js';
import { WebhookForm } from '../components/webhook-form.js';
import { type RampartClient, unwrap, useApi } from '../lib/api.js';
import {
  type DeliveryAttempt,
  type DeliveryFilter,
  deliveryFilterFrom,
  OUTCOMES,
  readDeliveryLog,
  recoverWindow,
  shortDeliveryId,
  toLocalInput,
} from '../lib/deliveries.js';
import { isEmptyFilter, pageFrom } from '../lib/issue-filters.js';
import { useResource } from '../lib/use-resource.js';
import { useSearchParams } from '../lib/use-search-params.js';
import { patchWebhookBody, webhookFormOf } from '../lib/webhook-form.js';
import { WebhookHealth } from './webhooks.js';

const PAGE_SIZE = 25;
const POLL_MS = 2000;

export function WebhookPage(props: { params: { webhookId: string } }) {
  const { webhookId } = props.params;
  const { client } = useApi();
  const [, navigate] = useLocation();
  const [params, setParams] = useSearchParams();
  const page = pageFrom(params);
  const filter = deliveryFilterFrom(params);
  const filterKey = JSON.stringify(filter);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const path = { webhookId };

  const loaded = useResource(
    async () => {
      const [webhook, log] = await Promise.all([
        unwrap(client.GET('/api/v1/webhooks/{webhookId}', { params: { path } })),
        unwrap(
          client.GET('/api/v1/webhooks/{webhookId}/deliveries', {
            params: { path, query: { ...filter, page, limit: PAGE_SIZE } },
          }),
        ),
      ]);
      return { webhook: webhook.data.webhook, log: log.data };
    },
    [webhookId, page, filterKey],
    { pollMs: POLL_MS },
  );

  /** Runs an action, then shows its outcome and reloads. */
  const act = async (action: () => Promise<string>) => {
    setError(undefined);
    setNotice(null);
    try {
      setNotice(await action());
    } catch (failure) {
      setError(failure);
    }
    loaded.reload();
  };

  const webhook = loaded.data?.webhook;
  if (webhook === undefined) {
    return (
      <section>
        <PageHeader title="Webhook" />
        <p>
          <Link href="/webhooks">All webhooks</Link>
        </p>
        <ErrorNotice error={loaded.error} />
        {loaded.error === undefined ? <Loading /> : null}
      </section>
    );
  }
  const log = loaded.data?.log;

  const sendTest = () =>
    act(async () => {
      const { data } = await unwrap(
        client.POST('/api/v1/webhooks/{webhookId}/test', { params: { path } }),
      );
      return data.delivered
        ? `Test delivered: the receiver answered ${data.statusCode} in ${data.responseTime} ms.`
        : data.statusCode === 0
          ? 'Test not delivered: no HTTP answer came (network, timeout or TLS; see the log).'
          : `Test not delivered: the receiver answered ${data.statusCode}.`;
    });
  const setActive = (isActive: boolean) =>
    act(async () => {
      await unwrap(
        client.PATCH('/api/v1/webhooks/{webhookId}', { params: { path }, body: { isActive } }),
      );
      return isActive
        ? 'Webhook enabled: its failure count starts again from 0.'
        : 'Webhook disabled: nothing is delivered until it is enabled again.';
    });

  return (
    <section>
      <p class="small">
        <Link href="/webhooks">All webhooks</Link>
      </p>
      <PageHeader title={webhook.name}>
        <button type="button" onClick={sendTest} disabled={!webhook.isActive}>
          Send test
        </button>
        <button type="button" onClick={() => setActive(!webhook.isActive)}>
          {webhook.isActive ? 'Disable' : 'Enable'}
        </button>
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit
        </button>
        <ConfirmButton
          label="Delete"
          title={`Delete ${webhook.name}?`}
          confirmLabel="Delete webhook"
          danger
          onConfirm={async () => {
            await unwrap(client.DELETE('/api/v1/webhooks/{webhookId}', { params: { path } }));
            navigate('/webhooks');
          }}
        >
          <p>
            It stops receiving events at once, its pending deliveries are dropped, and its delivery
            log goes with it. This cannot be undone.
          </p>
        </ConfirmButton>
      </PageHeader>
      <p class={notice === null ? 'visually-hidden' : 'notice ok'} role="status">
        {notice}
      </p>
      <ErrorNotice error={error ?? loaded.error} />
      {editing ? (
        <section class="panel" aria-labelledby="edit-webhook">
          <h2 id="edit-webhook">Edit webhook</h2>
          <WebhookForm
            initial={webhookFormOf(webhook)}
            submitLabel="Save changes"
            onCancel={() => setEditing(false)}
            onSubmit={async (values) => {
              await unwrap(
                client.PATCH('/api/v1/webhooks/{webhookId}', {
                  params: { path },
                  body: patchWebhookBody(values),
                }),
              );
              setEditing(false);
              setNotice('Changes saved.');
              loaded.reload();
            }}
          />
        </section>
      ) : null}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <WebhookHealth webhook={webhook} />
        </dd>
        <dt>URL</dt>
        <dd>
          <code>{webhook.url}</code>
        </dd>
        <dt>Events</dt>
        <dd>{webhook.events.join(', ')}</dd>
        <dt>Filters</dt>
        <dd>
          {webhook.filters === null
            ? 'none: every subscribed event is sent'
            : `scan.completed only with untriaged ${webhook.filters.onlyNew ? 'new or reopened ' : ''}issues at or above ${webhook.filters.minSeverity}`}
        </dd>
        <dt>Last delivery</dt>
        <dd>
          {webhook.lastTriggeredAt === null ? (
            'never'
          ) : (
            <>
              <Time at={webhook.lastTriggeredAt} />, response {webhook.lastStatusCode ?? '—'}
            </>
          )}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time at={webhook.createdAt} />
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{webhook.id}</code>
        </dd>
      </dl>

      <h2 id="deliveries">Deliveries</h2>
      <p class="muted small">
        One row per attempt, newest first. A failed delivery is tried up to 4 times; Redeliver sends
        a delivery that is over again, as a new delivery with the same body.
      </p>
      <DeliveryFilters
        params={params}
        filter={filter}
        onChange={(changes) => setParams({ ...changes, page: null })}
      />
      {log === undefined ? null : log.deliveries.length === 0 ? (
        <p class="empty">
          {isEmptyFilter(filter)
            ? 'No deliveries yet. Send a test, or wait for a subscribed event.'
            : 'No attempts match these filters.'}
        </p>
      ) : (
        <>
          <DeliveryTable
            attempts={log.deliveries}
            byOutcome={filter.success !== undefined}
            onFocus={(deliveryId) => setParams({ delivery: deliveryId, page: null })}
            onRedeliver={(attempt) =>
              act(async () => {
                const { data } = await unwrap(
                  client.POST('/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
                    params: { path: { webhookId, deliveryId: attempt.id } },
                  }),
                );
                return `Redelivery ${shortDeliveryId(data.delivery.id)} of ${attempt.event} queued: it appears in the log after its first attempt.`;
              })
            }
          />
          <Pager
            pagination={log.pagination}
            noun="attempts"
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      )}
      <RecoverForm
        client={client}
        webhookId={webhookId}
        disabled={!webhook.isActive}
        onRecovered={(message) => act(async () => message)}
      />
    </section>
  );
}

/** The log's filters: outcome and event selects, and the one delivery shown, if any. */
function DeliveryFilters(props: {
  params: URLSearchParams;
  filter: DeliveryFilter;
  onChange: (changes: Record<string, string | null>) => void;
}) {
  const { params, filter, onChange } = props;
  return (
    <form class="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
      <label>
        Outcome{' '}
        <select
          value={filter.success === undefined ? '' : (params.get('outcome') ?? '')}
          onChange={(e) => onChange({ outcome: e.currentTarget.value || null })}
        >
          <option value="">any</option>
          {Object.keys(OUTCOMES).map((outcome) => (
            <option key={outcome} value={outcome}>
              {outcome}
            </option>
          ))}
        </select>
      </label>
      <label>
        Event{' '}
        <select
          value={filter.event ?? ''}
          onChange={(e) => onChange({ event: e.currentTarget.value || null })}
        >
          <option value="">any</option>
          {DELIVERY_LOG_EVENTS.map((event) => (
            <option key={event} value={event}>
              {event}
            </option>
          ))}
        </select>
      </label>
      {filter.deliveryId === undefined ? null : (
        <span>
          Delivery <code title={filter.deliveryId}>{shortDeliveryId(filter.deliveryId)}</code>{' '}
          <button type="button" onClick={() => onChange({ delivery: null })}>
            Show every delivery
          </button>
        </span>
      )}
    </form>
  );
}

function DeliveryTable(props: {
  attempts: readonly DeliveryAttempt[];
  byOutcome: boolean;
  onFocus: (deliveryId: string) => void;
  onRedeliver: (attempt: DeliveryAttempt) => void;
}) {
  return (
    <div class="table-wrap">
      <table class="deliveries" aria-describedby="deliveries">
        <caption class="visually-hidden">Delivery attempts, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Delivery</th>
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">Response</th>
            <th scope="col">Time</th>
            <th scope="col">At</th>
            <th scope="col">Error</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {readDeliveryLog(props.attempts, { byOutcome: props.byOutcome }).map(
            ({ attempt, state, nextAttemptAt, redeliverable }) => {
              return (
                <tr
                  key={`${attempt.id}-${attempt.attempt}`}
                  data-delivery-id={attempt.id}
                  data-attempt={attempt.attempt}
                  data-state={state}
                >
                  <td class="small">
                    <button
                      type="button"
                      class="link"
                      title={`Show every attempt of ${attempt.id}`}
                      aria-label={`Show every attempt of delivery ${shortDeliveryId(attempt.id)}`}
                      onClick={() => props.onFocus(attempt.id)}
                    >
                      <code>{shortDeliveryId(attempt.id)}</code>
                    </button>
                    {attempt.redeliveryOf === undefined ? null : (
                      <span class="muted" title={attempt.redeliveryOf}>
                        {' '}
                        redelivery of {shortDeliveryId(attempt.redeliveryOf)}
                      </span>
                    )}
                  </td>
                  <td>{attempt.event}</td>
                  <td>{attempt.attempt} of 4</td>
                  <td>
                    <StatusBadge status={state} />
                    {nextAttemptAt === null ? null : (
                      <span class="small">
                        {' '}
                        next <Time at={nextAttemptAt} />
                      </span>
                    )}
                  </td>
                  <td data-column="response">
                    {attempt.statusCode === 0 ? 'no answer' : attempt.statusCode}
                  </td>
                  <td class="small">{attempt.responseTime} ms</td>
                  <td class="small">
                    <Time at={attempt.deliveredAt} />
                  </td>
                  <td class="small wrap">{attempt.error ?? ''}</td>
                  <td>
                    {redeliverable ? (
                      <button
                        type="button"
                        aria-label={`Redeliver ${attempt.event} ${shortDeliveryId(attempt.id)}`}
                        onClick={() => props.onRedeliver(attempt)}
                      >
                        Redeliver
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            },
          )}
        </tbody>
      </table>
    </div>
  );
}

/** Sends again every failed delivery of a time window (the API's recover extension). */
function RecoverForm(props: {
  client: RampartClient;
  webhookId: string;
  disabled: boolean;
  onRecovered: (message: string) => void;
}) {
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - 86_400_000)));
  const [until, setUntil] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const range = recoverWindow(since, until);
    setProblem(range.ok ? null : range.problem);
    setError(undefined);
    if (!range.ok) {
      return;
    }
    setBusy(true);
    try {
      const { data } = await unwrap(
        props.client.POST('/api/v1/webhooks/{webhookId}/deliveries/recover', {
          params: { path: { webhookId: props.webhookId } },
          body: range.value,
        }),
      );
      props.onRecovered(
        data.recovered === 0
          ? 'No failed delivery in that window to send again.'
          : `${data.recovered} failed deliver${data.recovered === 1 ? 'y' : 'ies'} queued again${data.hasMore ? '; more remain: recover again' : ''}.`,
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel recover" aria-labelledby="recover-title" onSubmit={submit} noValidate>
      <h2 id="recover-title">Recover missed deliveries</h2>
      <p class="muted small">
        After an outage longer than the retries: sends again, as new deliveries, every event
        delivery whose last attempt failed (or that was cancelled when the webhook was disabled) in
        the window. An event already sent again is not sent twice.
      </p>
      <div class="filters">
        <label>
          Since{' '}
          <input
            type="datetime-local"
            value={since}
            required
            onInput={(e) => setSince(e.currentTarget.value)}
          />
        </label>
        <label>
          Until (empty: now){' '}
          <input
            type="datetime-local"
            value={until}
            onInput={(e) => setUntil(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy || props.disabled}>
          Recover failed deliveries
        </button>
      </div>
      {props.disabled ? <p class="small muted">Enable the webhook to recover deliveries.</p> : null}
      {problem === null ? null : (
        <p class="notice error" role="alert">
          {problem}
        </p>
      )}
      <ErrorNotice error={error} />
    </form>
  );
}
