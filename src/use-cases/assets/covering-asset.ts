/**
 * The asset a new scan is linked to (issue 24): the one its `assetId` names, which must be the
 * tenant's and cover the target (else 400 INVALID_ASSET_ID), or, without `assetId`, the narrowest
 * of the tenant's assets that covers the target (none: the scan has no asset, as before assets).
 */
import { assetCovers, narrowestCovering, parseAssetValue } from '../../domain/assets/coverage.js';
import { ApiError } from '../../domain/errors.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { AssetRecord, AssetStore } from '../ports/assets.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parsed(asset: AssetRecord) {
  const value = parseAssetValue(asset.kind, asset.value);
  return value.ok ? { asset, value: value.value } : null;
}

/**
 * `preferVerified` (REQUIRE_VERIFIED_TARGETS applies to the scan): without `assetId`, the narrowest
 * verified covering asset is linked when there is one, so that a verified parent domain counts
 * even when a narrower unverified asset covers the target too.
 */
export async function coveringAsset(
  assets: AssetStore,
  tenantId: string,
  assetId: string | null,
  target: ScanTarget,
  preferVerified = false,
): Promise<AssetRecord | null> {
  if (assetId === null) {
    const candidates = (await assets.forTenant(tenantId))
      .map(parsed)
      .filter((candidate) => candidate !== null);
    const verified = preferVerified
      ? narrowestCovering(
          candidates.filter((candidate) => candidate.asset.verificationStatus === 'verified'),
          target,
        )
      : null;
    return (verified ?? narrowestCovering(candidates, target))?.asset ?? null;
  }
  const asset = UUID.test(assetId) ? await assets.get(tenantId, assetId.toLowerCase()) : null;
  if (asset === null) {
    throw new ApiError('INVALID_ASSET_ID', {
      reason: `no asset ${assetId.slice(0, 80)}; register it with POST /api/v1/assets`,
    });
  }
  const candidate = parsed(asset);
  if (candidate === null || !assetCovers(candidate.value, target)) {
    throw new ApiError('INVALID_ASSET_ID', {
      reason: `asset ${asset.id} (${asset.kind} ${asset.value}) does not cover ${target.value.slice(0, 200)}`,
    });
  }
  return asset;
}
