import { graceEnd, keyStatusAt } from '../../domain/api-keys/key-status.js';
import {
  displayPrefix,
  generateRawKey,
  hashRawKey,
  type RandomBytes,
} from '../../domain/api-keys/raw-key.js';
import { ApiError } from '../../domain/errors.js';
import type { ApiKeyStore } from '../ports/api-keys.js';
import type { IdSource } from '../ports/common.js';
import { type ApiKeyView, toApiKeyView } from './api-key-view.js';

/** Lists a tenant's keys, newest first. */
export async function listApiKeys(apiKeys: ApiKeyStore, tenantId: string): Promise<ApiKeyView[]> {
  const [keys, now] = await Promise.all([apiKeys.list(tenantId), apiKeys.now()]);
  return keys.map((key) => toApiKeyView(key, now));
}

/** One key of the tenant; another tenant's key is API_KEY_NOT_FOUND. */
export async function getApiKey(
  apiKeys: ApiKeyStore,
  tenantId: string,
  keyId: string,
): Promise<ApiKeyView> {
  const [key, now] = await Promise.all([apiKeys.findById(tenantId, keyId), apiKeys.now()]);
  if (!key) {
    throw new ApiError('API_KEY_NOT_FOUND');
  }
  return toApiKeyView(key, now);
}

/** Revokes at once and for good; repeating it answers the unchanged key. */
export async function revokeApiKey(
  apiKeys: ApiKeyStore,
  tenantId: string,
  keyId: string,
  reason: string | null,
): Promise<ApiKeyView> {
  const key = await apiKeys.revoke(tenantId, keyId, reason);
  if (!key) {
    throw new ApiError('API_KEY_NOT_FOUND');
  }
  return toApiKeyView(key, await apiKeys.now());
}

export interface RotateDeps {
  apiKeys: ApiKeyStore;
  ids: IdSource;
  randomBytes: RandomBytes;
  apiKeyPrefix: string;
}

export const DEFAULT_GRACE_PERIOD_HOURS = 24;

/**
 * Rotates a key: the successor copies everything but the secret, including the remaining lifetime
 * and the rate-limit counters; the old key works until the grace period (or its own expiry) ends.
 */
export async function rotateApiKey(
  deps: RotateDeps,
  tenantId: string,
  keyId: string,
  gracePeriodHours: number = DEFAULT_GRACE_PERIOD_HOURS,
): Promise<{
  apiKey: ApiKeyView;
  rawKey: string;
  previousKey: { id: string; status: string; expiresAt: string | null };
}> {
  const rawKey = generateRawKey(deps.apiKeyPrefix, deps.randomBytes);
  const result = await deps.apiKeys.rotate(tenantId, keyId, (current, now) => {
    const status = keyStatusAt(current, now).status;
    if (current.rotatedToKeyId !== null) {
      return { ok: false, reason: 'it was already rotated' };
    }
    if (status !== 'active') {
      return { ok: false, reason: `its status is ${status}` };
    }
    return {
      ok: true,
      oldKeyExpiresAt: graceEnd(now, gracePeriodHours, current.expiresAt),
      successor: {
        ...current,
        id: deps.ids.uuid(),
        keyHash: hashRawKey(rawKey),
        keyPrefix: displayPrefix(rawKey, deps.apiKeyPrefix),
        createdAt: now,
        createdBy: null,
        rotatedFromKeyId: current.id,
      },
    };
  });
  if (!result.ok) {
    if (result.reason === 'not-found') {
      throw new ApiError('API_KEY_NOT_FOUND');
    }
    throw new ApiError('API_KEY_NOT_ACTIVE', { reason: result.reason });
  }
  const previous = toApiKeyView(result.previous, result.now);
  return {
    apiKey: toApiKeyView(result.key, result.now),
    rawKey,
    previousKey: { id: previous.id, status: previous.status, expiresAt: previous.expiresAt },
  };
}

/**
 * Suspends or reinstates a key (admin). Repeating either is harmless; a revoked or expired key
 * cannot be suspended or reinstated (409 API_KEY_NOT_ACTIVE).
 */
export async function setApiKeySuspension(
  apiKeys: ApiKeyStore,
  keyId: string,
  suspended: boolean,
): Promise<ApiKeyView> {
  const [key, now] = await Promise.all([apiKeys.findById(null, keyId), apiKeys.now()]);
  if (!key) {
    throw new ApiError('API_KEY_NOT_FOUND');
  }
  const status = keyStatusAt({ ...key, suspendedAt: null }, now).status;
  if (status !== 'active') {
    throw new ApiError('API_KEY_NOT_ACTIVE', { reason: `its status is ${status}` });
  }
  const updated = await apiKeys.setSuspended(keyId, suspended);
  if (!updated) {
    throw new ApiError('API_KEY_NOT_FOUND');
  }
  return toApiKeyView(updated, now);
}
