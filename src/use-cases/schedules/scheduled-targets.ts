/**
 * What one occurrence of a schedule scans (issue 24): its `targets`, or the assets it names
 * (`assetIds`), or every asset of the tenant carrying `assetTag` at that moment, so that assets
 * tagged after the schedule was written are included. An asset is scanned at its value and the
 * scan is linked to it (its `assetId`, checked by createScan like any scan's: it must cover the
 * target and, under REQUIRE_VERIFIED_TARGETS, be verified).
 *
 * Assets that cannot be scanned are answered as run errors rather than thrown: an id that names
 * no asset any more, a tag that no asset carries, and assets past the first MAX_SCHEDULE_TARGETS
 * of a tag (oldest first), so that one occurrence never creates more scans than a schedule of
 * targets may.
 */
import { ApiError } from '../../domain/errors.js';
import type { AssetStore } from '../ports/assets.js';
import type { ScheduleFields, ScheduleRunError } from '../ports/schedules.js';
import { MAX_SCHEDULE_TARGETS } from './schedule-schema.js';

/** One scan to create: its target, and the asset it is for (null: a schedule of targets). */
export interface ScheduledTarget {
  readonly target: string;
  readonly assetId: string | null;
}

export interface ScheduledTargets {
  readonly targets: readonly ScheduledTarget[];
  /** Assets named or selected that give no scan (recorded with the run). */
  readonly errors: readonly ScheduleRunError[];
}

type Selection = Pick<ScheduleFields, 'targets' | 'assetIds' | 'assetTag'>;

/** Whether the schedule scans registered assets (assetIds or assetTag) rather than targets. */
export const selectsAssets = (selection: Selection): boolean =>
  selection.assetIds !== null || selection.assetTag !== null;

export function noSuchAsset(id: string): ApiError {
  return new ApiError('INVALID_ASSET_ID', {
    reason: `no asset ${id.slice(0, 80)}; register it with POST /api/v1/assets`,
  });
}

export async function scheduledTargets(
  assets: AssetStore,
  tenantId: string,
  selection: Selection,
): Promise<ScheduledTargets> {
  if (!selectsAssets(selection)) {
    return { targets: selection.targets.map((target) => ({ target, assetId: null })), errors: [] };
  }
  // Oldest first: the order the covering asset is chosen in, and the one a tag is capped in.
  const owned = await assets.forTenant(tenantId);
  if (selection.assetIds !== null) {
    const byId = new Map(owned.map((asset) => [asset.id, asset]));
    const targets: ScheduledTarget[] = [];
    const errors: ScheduleRunError[] = [];
    for (const id of selection.assetIds) {
      const asset = byId.get(id.toLowerCase());
      if (asset === undefined) {
        const refusal = noSuchAsset(id);
        errors.push({ target: null, assetId: id, code: refusal.code, message: refusal.message });
      } else {
        targets.push({ target: asset.value, assetId: asset.id });
      }
    }
    return { targets, errors };
  }
  const tag = selection.assetTag ?? '';
  const tagged = owned.filter((asset) => asset.tags.includes(tag));
  if (tagged.length === 0) {
    const refusal = new ApiError('INVALID_FIELD_VALUE', {
      field: 'assetTag',
      reason: `no asset of the tenant carries the tag ${JSON.stringify(tag)}`,
    });
    return {
      targets: [],
      errors: [{ target: null, code: refusal.code, message: refusal.message }],
    };
  }
  const beyond = new ApiError('INVALID_FIELD_VALUE', {
    field: 'assetTag',
    reason: `the tag selects more than ${MAX_SCHEDULE_TARGETS} assets; the oldest ${MAX_SCHEDULE_TARGETS} are scanned`,
  });
  return {
    targets: tagged
      .slice(0, MAX_SCHEDULE_TARGETS)
      .map((asset) => ({ target: asset.value, assetId: asset.id })),
    errors: tagged.slice(MAX_SCHEDULE_TARGETS).map((asset) => ({
      target: asset.value,
      assetId: asset.id,
      code: beyond.code,
      message: beyond.message,
    })),
  };
}
