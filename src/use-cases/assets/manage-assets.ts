/** Assets: create, list, get, patch, delete (each behind its scope, by the route). */

import type { RandomBytes } from '../../domain/api-keys/raw-key.js';
import { type AssetKind, parseAssetValue } from '../../domain/assets/coverage.js';
import { PROOF_FILE_PATH, proofLocations, TXT_PREFIX } from '../../domain/assets/proof.js';
import { ApiError } from '../../domain/errors.js';
import type { AssetRecord, AssetStore } from '../ports/assets.js';
import type { IdSource, Page } from '../ports/common.js';
import { pagination } from '../scans/scan-view.js';

/** The asset as the API shows it, with the steps that prove it. */
export function toAssetView(asset: AssetRecord) {
  const parsed = parseAssetValue(asset.kind, asset.value);
  const where = parsed.ok ? proofLocations(parsed.value) : { dnsNames: [], fileUrl: null };
  const record = `${TXT_PREFIX}${asset.verificationToken}`;
  return {
    id: asset.id,
    name: asset.name,
    kind: asset.kind,
    value: asset.value,
    tags: [...asset.tags],
    verification: {
      status: asset.verificationStatus,
      method: asset.verificationMethod,
      verifiedAt: asset.verifiedAt?.toISOString() ?? null,
      lastCheckedAt: asset.lastCheckedAt?.toISOString() ?? null,
      lastError: asset.lastCheckError,
      token: asset.verificationToken,
      dns:
        where.dnsNames.length === 0
          ? null
          : { type: 'TXT' as const, names: [...where.dnsNames], value: record },
      http:
        where.fileUrl === null
          ? null
          : { url: where.fileUrl, content: asset.verificationToken, path: PROOF_FILE_PATH },
    },
    createdAt: asset.createdAt.toISOString(),
    updatedAt: asset.updatedAt.toISOString(),
  };
}

export type AssetView = ReturnType<typeof toAssetView>;

function tokenFrom(randomBytes: RandomBytes): string {
  return Buffer.from(randomBytes(24)).toString('base64url');
}

export interface AssetBody {
  readonly name: string;
  readonly kind: AssetKind;
  readonly value: string;
  readonly tags?: readonly string[] | null;
}

export async function createAsset(
  deps: {
    readonly assets: AssetStore;
    readonly ids: IdSource;
    readonly randomBytes: RandomBytes;
    /** TENANT_MAX_ASSETS: assets one tenant may have. */
    readonly maxAssets: number;
  },
  tenantId: string,
  body: AssetBody,
) {
  const parsed = parseAssetValue(body.kind, body.value);
  if (!parsed.ok) {
    throw new ApiError('INVALID_FIELD_VALUE', { field: 'value', reason: parsed.reason });
  }
  const created = await deps.assets.insert(
    {
      id: deps.ids.uuid(),
      tenantId,
      name: body.name,
      kind: body.kind,
      value: body.value,
      tags: [...new Set(body.tags ?? [])],
      verificationToken: tokenFrom(deps.randomBytes),
    },
    deps.maxAssets,
  );
  if (created === 'limit-reached') {
    throw new ApiError('TENANT_LIMIT_REACHED', { limit: deps.maxAssets, resource: 'assets' });
  }
  return { asset: toAssetView(created) };
}

export async function listAssets(
  assets: AssetStore,
  tenantId: string,
  page: Page,
  filter: { readonly tag?: string },
) {
  const found = await assets.list(tenantId, page, filter);
  return {
    assets: found.assets.map(toAssetView),
    pagination: pagination(page.page, page.limit, found.total),
  };
}

export async function existingAsset(assets: AssetStore, tenantId: string, id: string) {
  const asset = await assets.get(tenantId, id);
  if (asset === null) {
    throw new ApiError('ASSET_NOT_FOUND');
  }
  return asset;
}

export async function getAsset(assets: AssetStore, tenantId: string, id: string) {
  return { asset: toAssetView(await existingAsset(assets, tenantId, id)) };
}

export async function patchAsset(
  assets: AssetStore,
  tenantId: string,
  id: string,
  body: { readonly name?: string; readonly tags?: readonly string[] | null },
) {
  // A different value is a different asset, with a proof of its own: never a silent no-op.
  for (const field of ['kind', 'value'] as const) {
    if (Object.hasOwn(body, field)) {
      throw new ApiError('INVALID_FIELD_VALUE', {
        field,
        reason: 'an asset keeps its kind and value; create a new asset instead',
      });
    }
  }
  const current = await existingAsset(assets, tenantId, id);
  const updated = await assets.update(tenantId, id, {
    name: body.name ?? current.name,
    tags: body.tags === undefined ? current.tags : [...new Set(body.tags ?? [])],
  });
  if (updated === null) {
    throw new ApiError('ASSET_NOT_FOUND');
  }
  return { asset: toAssetView(updated) };
}

export async function deleteAsset(assets: AssetStore, tenantId: string, id: string) {
  if (!(await assets.delete(tenantId, id))) {
    throw new ApiError('ASSET_NOT_FOUND');
  }
  return { id, deleted: true as const };
}
