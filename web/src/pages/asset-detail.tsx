/**
 * One asset: its verification state and how to prove ownership (the token, the DNS TXT record and
 * the HTTPS file the API names), "Verify now" with its outcome, renaming and retagging, deleting.
 */

import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { ConfirmButton } from '../components/confirm.js';
import { ErrorNotice, Loading, PageHeader, StatusBadge, Time } from '../components/ui.js';
import { unwrap, useApi } from '../lib/api.js';
import { type Asset, tagsFrom, verificationOutcome } from '../lib/asset-form.js';
import { useResource } from '../lib/use-resource.js';

export function AssetDetailPage(props: { params: { assetId: string } }) {
  const { client } = useApi();
  const assetId = props.params.assetId;
  const answer = useResource(
    () => unwrap(client.GET('/api/v1/assets/{assetId}', { params: { path: { assetId } } })),
    [assetId],
  );
  // The asset as the last call gave it (a verification answers with the asset).
  const [latest, setLatest] = useState<Asset | null>(null);
  const asset = latest !== null && latest.id === assetId ? latest : answer.data?.data.asset;

  if (asset === undefined) {
    return (
      <section>
        <p>
          <Link href="/assets">← Assets</Link>
        </p>
        <ErrorNotice error={answer.error} />
        {answer.error === undefined ? <Loading /> : null}
      </section>
    );
  }
  return (
    <section>
      <p>
        <Link href="/assets">← Assets</Link>
      </p>
      <PageHeader title={asset.name}>
        <StatusBadge status={asset.verification.status} />
      </PageHeader>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{asset.kind}</dd>
        <dt>Value</dt>
        <dd>
          <code>{asset.value}</code>
        </dd>
        <dt>Tags</dt>
        <dd>{asset.tags.length === 0 ? '—' : asset.tags.join(', ')}</dd>
        <dt>Verified</dt>
        <dd>
          {asset.verification.verifiedAt === null ? (
            'not yet'
          ) : (
            <>
              <Time at={asset.verification.verifiedAt} /> ({asset.verification.method})
            </>
          )}
        </dd>
        <dt>Last checked</dt>
        <dd>
          <Time at={asset.verification.lastCheckedAt} />
        </dd>
      </dl>
      <Verification asset={asset} onVerified={setLatest} />
      <EditAsset asset={asset} onSaved={setLatest} />
      <DeleteAsset asset={asset} />
    </section>
  );
}

function Verification(props: { asset: Asset; onVerified: (asset: Asset) => void }) {
  const { client } = useApi();
  const { verification } = props.asset;
  const [outcome, setOutcome] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    setError(undefined);
    setOutcome(null);
    try {
      const answer = await unwrap(
        client.POST('/api/v1/assets/{assetId}/verify', {
          params: { path: { assetId: props.asset.id } },
          body: {},
        }),
      );
      props.onVerified(answer.data.asset);
      setOutcome(verificationOutcome(answer.data.asset.verification));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const canCheck = verification.dns !== null || verification.http !== null;
  return (
    <section aria-labelledby="prove">
      <h2 id="prove">Prove ownership</h2>
      {canCheck ? (
        <p>Publish the token in one of these ways, then ask for a check.</p>
      ) : (
        <p>An administrator verifies assets of this kind; there is nothing to publish.</p>
      )}
      <div class="field">
        <span class="label">Verification token</span>
        <code class="token" data-testid="verification-token">
          {verification.token}
        </code>
      </div>
      {verification.dns === null ? null : (
        <div class="instructions">
          <h3>DNS TXT record</h3>
          <p>
            Add a <code>{verification.dns.type}</code> record with the value{' '}
            <code class="token">{verification.dns.value}</code> at any one of these names:
          </p>
          <ul>
            {verification.dns.names.map((name) => (
              <li key={name}>
                <code>{name}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {verification.http === null ? null : (
        <div class="instructions">
          <h3>HTTPS file</h3>
          <p>
            Serve a file at <code>{verification.http.url}</code> (path{' '}
            <code>{verification.http.path}</code>) that holds exactly{' '}
            <code class="token">{verification.http.content}</code> (a final newline is fine).
            Redirects are not followed.
          </p>
        </div>
      )}
      {canCheck ? (
        <button type="button" class="primary" disabled={busy} onClick={verify}>
          Verify now
        </button>
      ) : null}
      <ErrorNotice error={error} />
      <p
        role="status"
        class={
          outcome === null
            ? 'visually-hidden'
            : `notice ${verification.status === 'verified' ? 'ok' : 'error'}`
        }
      >
        {outcome ?? ''}
      </p>
    </section>
  );
}

function EditAsset(props: { asset: Asset; onSaved: (asset: Asset) => void }) {
  const { client } = useApi();
  const [name, setName] = useState(props.asset.name);
  const [tags, setTags] = useState(props.asset.tags.join(', '));
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      const answer = await unwrap(
        client.PATCH('/api/v1/assets/{assetId}', {
          params: { path: { assetId: props.asset.id } },
          body: { name: name.trim(), tags: tagsFrom(tags) },
        }),
      );
      props.onSaved(answer.data.asset);
      setSaved(true);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Edit asset">
      <fieldset>
        <legend>Rename or retag</legend>
        <div class="field">
          <label for="edit-asset-name">Name</label>
          <input
            id="edit-asset-name"
            required
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="edit-asset-tags">
            Tags <span class="help">(comma-separated)</span>
          </label>
          <input
            id="edit-asset-tags"
            value={tags}
            onInput={(e) => setTags(e.currentTarget.value)}
          />
        </div>
        <p class="help small muted">The kind and value never change: register another asset.</p>
        <button type="submit">Save</button>
      </fieldset>
      <ErrorNotice error={error} />
      <p role="status" class={saved ? 'notice ok' : 'visually-hidden'}>
        {saved ? 'Saved.' : ''}
      </p>
    </form>
  );
}

function DeleteAsset(props: { asset: Asset }) {
  const { client } = useApi();
  const [, navigate] = useLocation();
  return (
    <section aria-label="Delete asset">
      <ConfirmButton
        label="Delete asset"
        title={`Delete ${props.asset.name}?`}
        confirmLabel="Delete asset"
        danger
        onConfirm={async () => {
          await unwrap(
            client.DELETE('/api/v1/assets/{assetId}', {
              params: { path: { assetId: props.asset.id } },
            }),
          );
          navigate('/assets');
        }}
      >
        <p>Its scans keep their history.</p>
      </ConfirmButton>
    </section>
  );
}
