import { keyStatusAt } from '../../domain/api-keys/key-status.js';
import type { ApiKeyRecord } from '../ports/api-keys.js';

/** The API key as clients see it: never the hash, never the raw key. */
export interface ApiKeyView {
  id: string;
  name: string;
  description: string | null;
  keyPrefix: string;
  scopes: string[];
  allowedScanTypes: string[];
  allowedIpAddresses: string[];
  rateLimitPerMinute: number;
  rateLimitPerHour: number;
  rateLimitPerDay: number;
  status: string;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedReason: string | null;
  rotatedToKeyId: string | null;
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

/** Renders a stored key with its status at `now`. */
export function toApiKeyView(key: ApiKeyRecord, now: Date): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    description: key.description,
    keyPrefix: key.keyPrefix,
    scopes: [...key.scopes],
    allowedScanTypes: [...key.allowedScanTypes],
    allowedIpAddresses: [...key.allowedIpAddresses],
    rateLimitPerMinute: key.rateLimitPerMinute,
    rateLimitPerHour: key.rateLimitPerHour,
    rateLimitPerDay: key.rateLimitPerDay,
    status: keyStatusAt(key, now).status,
    expiresAt: iso(key.expiresAt),
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
    revokedReason: key.revokedReason,
    rotatedToKeyId: key.rotatedToKeyId,
  };
}
