/**
 * The tenant's API keys (dashboard token only): the list, the form that creates one, rotation and
 * revocation. A new key's raw value, at creation or rotation, is shown once, in the page's memory
 * only; the service keeps only its hash.
 */
import { useId, useState } from 'preact/hooks';
import { CheckboxGroup } from '../components/checkbox-group.js';
import { ConfirmButton } from '../components/confirm.js';
import { SecretOnce } from '../components/secret.js';
import { ErrorNotice, Loading, PageHeader, StatusBadge, Time } from '../components/ui.js';
import { type Schema, unwrap, useApi } from '../lib/api.js';
import {
  type ApiKeyFormValues,
  createApiKeyBody,
  EMPTY_API_KEY_FORM,
  ENGINE_NAMES,
  inGracePeriod,
  parseGraceHours,
  SCOPES,
} from '../lib/api-key-form.js';
import { useResource } from '../lib/use-resource.js';

type ApiKey = Schema<'ApiKey'>;
interface Shown {
  readonly title: string;
  readonly value: string;
  readonly note: string;
}

export function ApiKeysPage() {
  const { client } = useApi();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<Shown | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const keys = useResource(() => unwrap(client.GET('/api/v1/api-keys')), []);
  const list = keys.data?.data.apiKeys;

  const rotate = async (key: ApiKey, graceHours: number) => {
    const { data } = await unwrap(
      client.POST('/api/v1/api-keys/{keyId}/rotate', {
        params: { path: { keyId: key.id } },
        body: { gracePeriodHours: graceHours },
      }),
    );
    const until = data.previousKey.expiresAt;
    setShown({
      title: `New key for ${key.name}`,
      value: data.rawKey,
      note:
        data.previousKey.status === 'active' && until !== null
          ? `The old key (${key.keyPrefix}…) keeps working until ${new Date(until).toLocaleString()}, then expires: move your clients to the new key before then.`
          : `The old key (${key.keyPrefix}…) no longer works (${data.previousKey.status}).`,
    });
    setNotice(null);
    keys.reload();
  };
  const revoke = async (key: ApiKey, reason: string) => {
    await unwrap(
      client.DELETE('/api/v1/api-keys/{keyId}', {
        params: { path: { keyId: key.id } },
        body: reason.trim() === '' ? {} : { reason: reason.trim() },
      }),
    );
    setNotice(`Key ${key.name} revoked: it is refused from now on (KEY_REVOKED).`);
    keys.reload();
  };

  return (
    <section>
      <PageHeader title="API keys">
        {creating ? null : (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New API key
          </button>
        )}
      </PageHeader>
      <p class={notice === null ? 'visually-hidden' : 'notice ok'} role="status">
        {notice}
      </p>
      {shown === null ? null : (
        <SecretOnce title={shown.title} value={shown.value} onDismiss={() => setShown(null)}>
          <p>
            Send it as the <code>X-API-Key</code> header. The service keeps only its hash.{' '}
            {shown.note}
          </p>
        </SecretOnce>
      )}
      {creating ? (
        <section class="panel" aria-labelledby="new-key">
          <h2 id="new-key">New API key</h2>
          <ApiKeyForm
            onCancel={() => setCreating(false)}
            onCreated={(name, rawKey, expiresAt) => {
              setShown({
                title: `New key ${name}`,
                value: rawKey,
                note:
                  expiresAt === null
                    ? 'It never expires.'
                    : `It expires ${new Date(expiresAt).toLocaleString()}.`,
              });
              setCreating(false);
              setNotice(null);
              keys.reload();
            }}
          />
        </section>
      ) : null}
      <ErrorNotice error={keys.error} />
      {list === undefined ? (
        keys.error === undefined ? (
          <Loading />
        ) : null
      ) : list.length === 0 ? (
        <p class="empty">No API keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="api-keys">
            <caption class="visually-hidden">API keys, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((key) => (
                <ApiKeyRow key={key.id} apiKey={key} onRotate={rotate} onRevoke={revoke} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ApiKeyRow(props: {
  apiKey: ApiKey;
  onRotate: (key: ApiKey, graceHours: number) => Promise<void>;
  onRevoke: (key: ApiKey, reason: string) => Promise<void>;
}) {
  const key = props.apiKey;
  const id = useId();
  const [grace, setGrace] = useState('24');
  const [reason, setReason] = useState('');
  const rotated = inGracePeriod(key);
  const canRotate = key.status === 'active' && key.rotatedToKeyId === null;
  const allScopes = SCOPES.every((scope) => key.scopes.includes(scope));

  return (
    <tr data-key-id={key.id}>
      <td>
        {key.name}
        {key.description === null ? null : <div class="muted small">{key.description}</div>}
        {key.allowedIpAddresses.length === 0 ? null : (
          <div class="muted small">from {key.allowedIpAddresses.join(', ')}</div>
        )}
      </td>
      <td>
        <code>{key.keyPrefix}…</code>
      </td>
      <td class="small">
        {allScopes ? (
          <span title={key.scopes.join(', ')}>all ({key.scopes.length})</span>
        ) : (
          key.scopes.join(', ')
        )}
      </td>
      <td>
        <StatusBadge status={key.status} />
        {rotated ? <div class="small">rotated: grace period</div> : null}
        {key.revokedReason === null ? null : <div class="small muted">{key.revokedReason}</div>}
      </td>
      <td>
        <Time at={key.createdAt} />
      </td>
      <td>
        {key.lastUsedAt === null ? <span class="muted">never</span> : <Time at={key.lastUsedAt} />}
      </td>
      <td>
        {key.expiresAt === null ? <span class="muted">never</span> : <Time at={key.expiresAt} />}
      </td>
      <td class="row-actions">
        {canRotate ? (
          <ConfirmButton
            label="Rotate"
            ariaLabel={`Rotate ${key.name}`}
            title={`Rotate ${key.name}?`}
            confirmLabel="Rotate key"
            onConfirm={async () => {
              const hours = parseGraceHours(grace);
              if (!hours.ok) {
                throw new Error(hours.problem);
              }
              await props.onRotate(key, hours.value);
            }}
          >
            <p>
              A new key with the same name, scopes and limits replaces it; its raw value is shown
              once. The old key keeps working during the grace period, then expires (never later
              than its own expiry).
            </p>
            <div class="field">
              <label for={`${id}-grace`}>Grace period (hours)</label>
              <input
                id={`${id}-grace`}
                type="number"
                min={0}
                max={720}
                value={grace}
                aria-describedby={`${id}-grace-help`}
                onInput={(e) => setGrace(e.currentTarget.value)}
              />
              <span id={`${id}-grace-help`} class="help">
                0 to 720; 0 ends the old key at once.
              </span>
            </div>
          </ConfirmButton>
        ) : null}
        {key.status === 'revoked' ? null : (
          <ConfirmButton
            label="Revoke"
            ariaLabel={`Revoke ${key.name}`}
            title={`Revoke ${key.name}?`}
            confirmLabel="Revoke key"
            danger
            onConfirm={() => props.onRevoke(key, reason)}
          >
            <p>It is refused at once and for good (KEY_REVOKED). This cannot be undone.</p>
            <div class="field">
              <label for={`${id}-reason`}>Reason (optional)</label>
              <input
                id={`${id}-reason`}
                maxLength={500}
                value={reason}
                onInput={(e) => setReason(e.currentTarget.value)}
              />
            </div>
          </ConfirmButton>
        )}
      </td>
    </tr>
  );
}

function ApiKeyForm(props: {
  onCancel: () => void;
  onCreated: (name: string, rawKey: string, expiresAt: string | null) => void;
}) {
  const { client } = useApi();
  const id = useId();
  const [values, setValues] = useState<ApiKeyFormValues>(EMPTY_API_KEY_FORM);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const set = (changes: Partial<ApiKeyFormValues>) => setValues({ ...values, ...changes });

  const submit = async (event: Event) => {
    event.preventDefault();
    const body = createApiKeyBody(values);
    setProblem(body.ok ? null : body.problem);
    setError(undefined);
    if (!body.ok) {
      return;
    }
    setBusy(true);
    try {
      const { data } = await unwrap(client.POST('/api/v1/api-keys', { body: body.value }));
      props.onCreated(data.apiKey.name, data.rawKey, data.apiKey.expiresAt);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const text = (
    field: 'name' | 'description' | 'expiresInDays' | 'perMinute' | 'perHour' | 'perDay',
    label: string,
    help?: string,
    type = 'text',
  ) => (
    <div class="field">
      <label for={`${id}-${field}`}>{label}</label>
      <input
        id={`${id}-${field}`}
        type={type}
        value={values[field]}
        aria-describedby={help === undefined ? undefined : `${id}-${field}-help`}
        onInput={(e) => set({ [field]: e.currentTarget.value })}
      />
      {help === undefined ? null : (
        <span id={`${id}-${field}-help`} class="help">
          {help}
        </span>
      )}
    </div>
  );

  return (
    <form onSubmit={submit} noValidate>
      {text('name', 'Name')}
      {text('description', 'Description (optional)')}
      <fieldset>
        <legend>Scopes</legend>
        <div class="actions small">
          <button type="button" class="link" onClick={() => set({ scopes: SCOPES })}>
            All
          </button>
          <button type="button" class="link" onClick={() => set({ scopes: [] })}>
            None
          </button>
        </div>
        <CheckboxGroup
          options={SCOPES}
          checked={values.scopes}
          onChange={(scopes) => set({ scopes })}
        />
      </fieldset>
      <fieldset>
        <legend>Engines it may scan with (none checked: all)</legend>
        <CheckboxGroup
          options={ENGINE_NAMES}
          checked={values.scanTypes}
          onChange={(scanTypes) => set({ scanTypes })}
        />
      </fieldset>
      <div class="field">
        <label for={`${id}-ips`}>IP allow-list (optional)</label>
        <textarea
          id={`${id}-ips`}
          rows={2}
          value={values.allowedIps}
          aria-describedby={`${id}-ips-help`}
          onInput={(e) => set({ allowedIps: e.currentTarget.value })}
        />
        <span id={`${id}-ips-help`} class="help">
          Addresses or CIDR ranges (203.0.113.0/24, 2001:db8::/32), separated by commas or lines.
          Empty: any address.
        </span>
      </div>
      {text('expiresInDays', 'Expires in (days)', '0 or empty: never; at most 3650.', 'number')}
      <details>
        <summary>Rate limits (empty: the service defaults)</summary>
        {text('perMinute', 'Requests per minute', '1 to 1000; default 60.', 'number')}
        {text('perHour', 'Requests per hour', '1 to 50,000; default 1000.', 'number')}
        {text('perDay', 'Requests per day', '1 to 500,000; default 10,000.', 'number')}
      </details>
      {problem === null ? null : (
        <p class="notice error" role="alert">
          {problem}
        </p>
      )}
      <ErrorNotice error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Create key
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
