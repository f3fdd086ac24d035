/**
 * The tenant's webhooks, newest first, and the form that registers one. The new webhook's signing
 * secret is shown once, in the page's memory only, until the person hides it.
 */
import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { SecretOnce } from '../components/secret.js';
import {
  DataTable,
  ErrorNotice,
  Loading,
  PageHeader,
  Pager,
  StatusBadge,
  Time,
} from '../components/ui.js';
import { WebhookForm } from '../components/webhook-form.js';
import { type Schema, unwrap, useApi } from '../lib/api.js';
import { useResource } from '../lib/use-resource.js';
import { useSearchParams } from '../lib/use-search-params.js';
import { createWebhookBody, EMPTY_WEBHOOK_FORM } from '../lib/webhook-form.js';

type Webhook = Schema<'Webhook'>;
const PAGE_SIZE = 20;

export function WebhooksPage() {
  const { client } = useApi();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ id: string; name: string; secret: string } | null>(null);

  const webhooks = useResource(
    () => unwrap(client.GET('/api/v1/webhooks', { params: { query: { page, limit: PAGE_SIZE } } })),
    [page],
  );
  const list = webhooks.data?.data;

  return (
    <section>
      <PageHeader title="Webhooks">
        {creating ? null : (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New webhook
          </button>
        )}
      </PageHeader>
      {created === null ? null : (
        <SecretOnce
          title={`Signing secret of ${created.name}`}
          value={created.secret}
          onDismiss={() => setCreated(null)}
        >
          <p>
            Your receiver checks each delivery with it: X-Webhook-Signature is <code>sha256=</code>{' '}
            and the HMAC-SHA256 of the raw body keyed with this whole secret.{' '}
            <Link href={`/webhooks/${created.id}`}>Open the webhook</Link>.
          </p>
        </SecretOnce>
      )}
      {creating ? (
        <section class="panel" aria-labelledby="new-webhook">
          <h2 id="new-webhook">New webhook</h2>
          <WebhookForm
            initial={EMPTY_WEBHOOK_FORM}
            submitLabel="Create webhook"
            onCancel={() => setCreating(false)}
            onSubmit={async (values) => {
              const answer = await unwrap(
                client.POST('/api/v1/webhooks', { body: createWebhookBody(values) }),
              );
              const { webhook } = answer.data;
              setCreated({ id: webhook.id, name: webhook.name, secret: webhook.secret });
              setCreating(false);
              webhooks.reload();
            }}
          />
        </section>
      ) : null}
      <ErrorNotice error={webhooks.error} />
      {list === undefined ? (
        webhooks.error === undefined ? (
          <Loading />
        ) : null
      ) : list.webhooks.length === 0 ? (
        <p class="empty">No webhooks yet.</p>
      ) : (
        <>
          <DataTable
            caption="Webhooks, newest first"
            columns={['Name', 'URL', 'Events', 'Status', 'Last delivery', 'Created']}
          >
            {list.webhooks.map((webhook) => (
              <WebhookRow key={webhook.id} webhook={webhook} />
            ))}
          </DataTable>
          <Pager
            pagination={list.pagination}
            noun="webhooks"
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      )}
    </section>
  );
}

function WebhookRow(props: { webhook: Webhook }) {
  const { webhook } = props;
  return (
    <tr data-webhook-id={webhook.id}>
      <td>
        <Link href={`/webhooks/${webhook.id}`}>{webhook.name}</Link>
      </td>
      <td class="wrap small">
        <code>{webhook.url}</code>
      </td>
      <td class="small">{webhook.events.join(', ')}</td>
      <td>
        <WebhookHealth webhook={webhook} />
      </td>
      <td class="small">
        {webhook.lastTriggeredAt === null ? (
          <span class="muted">never</span>
        ) : (
          <>
            <Time at={webhook.lastTriggeredAt} /> · {webhook.lastStatusCode ?? '—'}
          </>
        )}
      </td>
      <td>
        <Time at={webhook.createdAt} />
      </td>
    </tr>
  );
}

/** Active or disabled, and failing when its last deliveries failed. */
export function WebhookHealth(props: { webhook: Webhook }) {
  const { webhook } = props;
  if (!webhook.isActive) {
    return <StatusBadge status="disabled" />;
  }
  return webhook.isHealthy ? (
    <StatusBadge status="active" />
  ) : (
    <>
      <StatusBadge status="failing" />{' '}
      <span class="small">
        {webhook.consecutiveFailures} failure{webhook.consecutiveFailures === 1 ? '' : 's'}
      </span>
    </>
  );
}
