import { expiryFromDays } from '../../domain/api-keys/key-status.js';
import {
  displayPrefix,
  generateRawKey,
  hashRawKey,
  type RandomBytes,
} from '../../domain/api-keys/raw-key.js';
import { SCOPES } from '../../domain/api-keys/scopes.js';
import { ApiError } from '../../domain/errors.js';
import { allowlistEntryError } from '../../domain/network/ip-allowlist.js';
import { ENGINE_NAMES } from '../../engines/engine.js';
import type { ApiKeyStore } from '../ports/api-keys.js';
import type { Clock, IdSource } from '../ports/common.js';
import { type ApiKeyView, toApiKeyView } from './api-key-view.js';

/** Body of POST /api/v1/api-keys after schema validation (types, ranges and enums checked). */
export interface CreateApiKeyInput {
  name: string;
  description?: string | null;
  scopes?: string[];
  allowedScanTypes?: string[];
  allowedIpAddresses?: string[];
  rateLimitPerMinute?: number;
  rateLimitPerHour?: number;
  rateLimitPerDay?: number;
  expiresInDays?: number | null;
}

export interface CreateApiKeyDeps {
  apiKeys: ApiKeyStore;
  clock: Clock;
  ids: IdSource;
  randomBytes: RandomBytes;
  apiKeyPrefix: string;
  /** TENANT_MAX_API_KEYS: keys that can still authenticate (revoked and expired ones do not count). */
  maxApiKeys: number;
}

export const RATE_LIMIT_DEFAULTS = { perMinute: 60, perHour: 1000, perDay: 10_000 } as const;

const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** Throws INVALID_FIELD_VALUE naming the first allowlist entry that is not canonical. */
export function assertValidAllowlist(entries: readonly string[]): void {
  entries.forEach((entry, index) => {
    const reason = allowlistEntryError(entry);
    if (reason !== null) {
      throw new ApiError('INVALID_FIELD_VALUE', { field: `allowedIpAddresses.${index}`, reason });
    }
  });
}

/** Creates a key; the raw key is returned here once and never stored. */
export async function createApiKey(
  deps: CreateApiKeyDeps,
  tenantId: string,
  createdBy: string | null,
  input: CreateApiKeyInput,
): Promise<{ apiKey: ApiKeyView; rawKey: string }> {
  const allowedIpAddresses = unique(input.allowedIpAddresses ?? []);
  assertValidAllowlist(allowedIpAddresses);
  const now = deps.clock.now();
  const rawKey = generateRawKey(deps.apiKeyPrefix, deps.randomBytes);
  const id = deps.ids.uuid();
  const record = await deps.apiKeys.insert(
    {
      id,
      tenantId,
      name: input.name,
      description: input.description ?? null,
      keyHash: hashRawKey(rawKey),
      keyPrefix: displayPrefix(rawKey, deps.apiKeyPrefix),
      scopes: unique(input.scopes ?? SCOPES),
      allowedScanTypes: unique(input.allowedScanTypes ?? ENGINE_NAMES),
      allowedIpAddresses,
      rateLimitPerMinute: input.rateLimitPerMinute ?? RATE_LIMIT_DEFAULTS.perMinute,
      rateLimitPerHour: input.rateLimitPerHour ?? RATE_LIMIT_DEFAULTS.perHour,
      rateLimitPerDay: input.rateLimitPerDay ?? RATE_LIMIT_DEFAULTS.perDay,
      rateLimitBucket: id,
      expiresAt: expiryFromDays(now, input.expiresInDays),
      createdAt: now,
      createdBy,
      rotatedFromKeyId: null,
    },
    deps.maxApiKeys,
  );
  if (record === 'limit-reached') {
    throw new ApiError('TENANT_LIMIT_REACHED', { limit: deps.maxApiKeys, resource: 'API keys' });
  }
  return { apiKey: toApiKeyView(record, now), rawKey };
}
