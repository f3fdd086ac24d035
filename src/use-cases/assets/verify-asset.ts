/**
 * Checks an asset's proof of ownership (issue 24): the DNS TXT record at each of its names, then the
 * HTTPS file, stopping at the first proof; the outcome goes through afterCheck (grace period) and is
 * stored. Used on request (POST /api/v1/assets/:id/verify) and by the periodic re-verification.
 */
import { parseAssetValue } from '../../domain/assets/coverage.js';
import { fileProves, proofLocations, txtProves } from '../../domain/assets/proof.js';
import { afterCheck, type CheckResult } from '../../domain/assets/verification-state.js';
import { ApiError } from '../../domain/errors.js';
import type { AssetRecord, AssetStore, ProofReader } from '../ports/assets.js';
import type { Clock } from '../ports/common.js';
import { existingAsset } from './manage-assets.js';

export type ProofMethod = 'dns' | 'http';

export interface VerifyDeps {
  readonly assets: AssetStore;
  readonly proofs: ProofReader;
  readonly clock: Clock;
  /** VERIFICATION_GRACE_HOURS, in ms. */
  readonly graceMs: number;
}

/** Looks for the asset's proof; null locations (network, image): nothing to look at. */
export async function lookForProof(
  proofs: ProofReader,
  asset: AssetRecord,
  only: ProofMethod | null,
): Promise<CheckResult | null> {
  const parsed = parseAssetValue(asset.kind, asset.value);
  if (!parsed.ok) {
    return null;
  }
  const where = proofLocations(parsed.value);
  const dnsNames = only === 'http' ? [] : where.dnsNames;
  const fileUrl = only === 'dns' ? null : where.fileUrl;
  if (dnsNames.length === 0 && fileUrl === null) {
    return null;
  }
  const reasons: string[] = [];
  for (const name of dnsNames) {
    const answer = await proofs.txt(name);
    if (answer.ok && answer.records.some((record) => txtProves(record, asset.verificationToken))) {
      return { found: 'dns', error: null };
    }
    reasons.push(
      answer.ok ? `no TXT record rampart-verification=<token> at ${name}` : answer.reason,
    );
  }
  if (fileUrl !== null) {
    const answer = await proofs.file(fileUrl);
    if (answer.ok && fileProves(answer.body, asset.verificationToken)) {
      return { found: 'http', error: null };
    }
    reasons.push(answer.ok ? `${fileUrl} does not hold the token` : answer.reason);
  }
  return { found: null, error: reasons.join('; ').slice(0, 1000) };
}

/** Checks one asset now and stores the outcome. */
export async function checkAsset(
  deps: VerifyDeps,
  asset: AssetRecord,
  only: ProofMethod | null,
): Promise<AssetRecord | null> {
  const result = await lookForProof(deps.proofs, asset, only);
  if (result === null) {
    return asset;
  }
  const next = afterCheck(
    {
      status: asset.verificationStatus,
      method: asset.verificationMethod,
      verifiedAt: asset.verifiedAt,
      proofMissingSince: asset.proofMissingSince,
    },
    result,
    deps.clock.now(),
    deps.graceMs,
  );
  return deps.assets.recordVerification(asset.tenantId, asset.id, next);
}

/** POST /api/v1/assets/:assetId/verify. */
export async function verifyAsset(
  deps: VerifyDeps,
  tenantId: string,
  id: string,
  only: ProofMethod | null,
): Promise<AssetRecord> {
  const asset = await existingAsset(deps.assets, tenantId, id);
  const parsed = parseAssetValue(asset.kind, asset.value);
  const where = parsed.ok ? proofLocations(parsed.value) : { dnsNames: [], fileUrl: null };
  const possible =
    only === 'dns'
      ? where.dnsNames.length > 0
      : only === 'http'
        ? where.fileUrl !== null
        : where.dnsNames.length > 0 || where.fileUrl !== null;
  if (!possible) {
    throw new ApiError('VERIFICATION_NOT_AVAILABLE', {
      reason:
        only === null || where.dnsNames.length + (where.fileUrl === null ? 0 : 1) === 0
          ? `${asset.kind} assets are verified by an administrator`
          : `${asset.kind} assets cannot be verified by ${only === 'dns' ? 'a DNS record' : 'an HTTPS file'}`,
    });
  }
  const checked = await checkAsset(deps, asset, only);
  if (checked === null) {
    throw new ApiError('ASSET_NOT_FOUND');
  }
  return checked;
}

/** Admin: marks any tenant's asset verified (`method: admin`) or unverified. */
export async function setAssetVerifiedByAdmin(
  assets: AssetStore,
  clock: Clock,
  id: string,
  verified: boolean,
): Promise<AssetRecord> {
  const asset = await assets.getById(id);
  if (asset === null) {
    throw new ApiError('ASSET_NOT_FOUND');
  }
  const now = clock.now();
  const updated = await assets.recordVerification(asset.tenantId, asset.id, {
    status: verified ? 'verified' : 'unverified',
    method: verified ? 'admin' : null,
    verifiedAt: verified ? now : null,
    checkedAt: now,
    error: null,
    proofMissingSince: null,
  });
  if (updated === null) {
    throw new ApiError('ASSET_NOT_FOUND');
  }
  return updated;
}

/**
 * One round of the periodic re-verification: claims the verified assets due for a check and checks
 * each (grace period applied). Returns how many were checked.
 */
export async function reverifyDueAssets(
  deps: VerifyDeps & { readonly intervalMs: number },
  limit: number,
): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.assets.claimDueForCheck(
    now,
    new Date(now.getTime() - deps.intervalMs),
    limit,
  );
  for (const asset of due) {
    await checkAsset(deps, asset, null);
  }
  return due.length;
}
