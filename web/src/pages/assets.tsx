/**
 * The tenant's assets, newest first, with their verification state, and the form that registers
 * one (then opens it, to show how to prove ownership). The tag filter and the page live in the
 * address (?tag=&page=).
 */
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import {
  DataTable,
  ErrorNotice,
  Loading,
  PageHeader,
  Pager,
  StatusBadge,
  Time,
} from '../components/ui.js';
import { unwrap, useApi } from '../lib/api.js';
import { ASSET_KINDS, type AssetKind, KIND_EXAMPLES, tagsFrom } from '../lib/asset-form.js';
import { pageFrom } from '../lib/issue-filters.js';
import { useResource } from '../lib/use-resource.js';
import { useSearchParams } from '../lib/use-search-params.js';

export const ASSET_PAGE_SIZE = 50;

export function AssetsPage() {
  const { client } = useApi();
  const [params, setParams] = useSearchParams();
  const tag = params.get('tag')?.trim() || undefined;
  const page = pageFrom(params);
  const assets = useResource(
    () =>
      unwrap(
        client.GET('/api/v1/assets', {
          params: {
            query: { page, limit: ASSET_PAGE_SIZE, ...(tag === undefined ? {} : { tag }) },
          },
        }),
      ),
    [tag, page],
  );
  const list = assets.data?.data;

  return (
    <section>
      <PageHeader title="Assets" />
      <p class="muted small">
        Assets are what the tenant owns: once verified (a DNS TXT record or an HTTPS file), scans of
        what they cover are linked to them and schedules can scan them.
      </p>
      <NewAssetForm />
      <h2>Registered assets</h2>
      {tag === undefined ? null : (
        <p>
          Tagged <strong>{tag}</strong>.{' '}
          <button type="button" class="link" onClick={() => setParams({ tag: null, page: null })}>
            Show all
          </button>
        </p>
      )}
      <ErrorNotice error={assets.error} />
      {list === undefined ? (
        assets.error === undefined ? (
          <Loading />
        ) : null
      ) : list.assets.length === 0 ? (
        <p class="empty">No assets{tag === undefined ? ' yet' : ' with this tag'}.</p>
      ) : (
        <>
          <DataTable
            caption="Assets, newest first"
            columns={['Name', 'Kind', 'Value', 'Verification', 'Tags', 'Created']}
          >
            {list.assets.map((asset) => (
              <tr key={asset.id} data-asset-id={asset.id}>
                <td>
                  <Link href={`/assets/${asset.id}`}>{asset.name}</Link>
                </td>
                <td>{asset.kind}</td>
                <td class="small">{asset.value}</td>
                <td>
                  <StatusBadge status={asset.verification.status} />
                  {asset.verification.method === null ? null : (
                    <span class="small muted"> {asset.verification.method}</span>
                  )}
                </td>
                <td class="small">
                  {asset.tags.map((name) => (
                    <button
                      key={name}
                      type="button"
                      class="link tag"
                      aria-label={`Only assets tagged ${name}`}
                      onClick={() => setParams({ tag: name, page: null })}
                    >
                      {name}
                    </button>
                  ))}
                </td>
                <td>
                  <Time at={asset.createdAt} />
                </td>
              </tr>
            ))}
          </DataTable>
          <Pager
            pagination={list.pagination}
            noun="assets"
            onPage={(next) => setParams({ page: String(next) })}
          />
        </>
      )}
    </section>
  );
}

function NewAssetForm() {
  const { client } = useApi();
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<AssetKind>('domain');
  const [value, setValue] = useState('');
  const [tags, setTags] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await unwrap(
        client.POST('/api/v1/assets', {
          body: { name: name.trim(), kind, value: value.trim(), tags: tagsFrom(tags) },
        }),
      );
      navigate(`/assets/${created.data.asset.id}`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} aria-label="New asset">
      <fieldset>
        <legend>New asset</legend>
        <div class="field">
          <label for="asset-name">Name</label>
          <input
            id="asset-name"
            required
            maxLength={255}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="asset-kind">Kind</label>
          <select
            id="asset-kind"
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value as AssetKind)}
          >
            {ASSET_KINDS.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="asset-value">
            Value <span class="help">e.g. {KIND_EXAMPLES[kind]}</span>
          </label>
          <input
            id="asset-value"
            required
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="asset-tags">
            Tags <span class="help">(comma-separated, optional)</span>
          </label>
          <input id="asset-tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </div>
        <button type="submit" class="primary" disabled={busy}>
          Add asset
        </button>
      </fieldset>
      <ErrorNotice error={error} />
    </form>
  );
}
