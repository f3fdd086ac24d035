import { keyStatusAt, shouldRecordUse, statusErrorCode } from '../../domain/api-keys/key-status.js';
import { hashRawKey, isWellFormedRawKey } from '../../domain/api-keys/raw-key.js';
import type { ApiKeyRecord, ApiKeyStore, LastUsedRecorder } from '../ports/api-keys.js';

export type KeyAuthentication =
  | { readonly ok: true; readonly key: ApiKeyRecord; readonly tenantSuspended: boolean }
  | {
      readonly ok: false;
      readonly code: 'INVALID_API_KEY' | 'KEY_EXPIRED' | 'KEY_REVOKED' | 'KEY_SUSPENDED';
    };

/**
 * Step 1 of the key pipeline: format, then the hash lookup, then the key's status, judged by the
 * database clock. No cache sits in front of the lookup, so a revocation or suspension made through
 * any node applies to the very next request on every node.
 */
export async function authenticateApiKey(
  apiKeys: ApiKeyStore,
  rawKey: string,
  apiKeyPrefix: string,
  lastUsed: LastUsedRecorder,
): Promise<KeyAuthentication> {
  if (!isWellFormedRawKey(rawKey, apiKeyPrefix)) {
    return { ok: false, code: 'INVALID_API_KEY' };
  }
  const found = await apiKeys.findForAuth(hashRawKey(rawKey));
  if (!found) {
    return { ok: false, code: 'INVALID_API_KEY' };
  }
  const { status } = keyStatusAt(found.key, found.now);
  if (status !== 'active') {
    return { ok: false, code: statusErrorCode(status) };
  }
  if (shouldRecordUse(found.key.lastUsedAt, found.now)) {
    // Off the request path: the answer does not wait for this write.
    lastUsed.record(found.key.id);
  }
  return { ok: true, key: found.key, tenantSuspended: found.tenantStatus === 'suspended' };
}
