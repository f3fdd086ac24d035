/**
 * API keys: their records, the store (authentication lookup, rotation, revocation) and the
 * recorder of their last use.
 */
import type { Tenant } from './tenants.js';

export interface ApiKeyRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  readonly keyHash: string;
  readonly keyPrefix: string;
  readonly scopes: readonly string[];
  readonly allowedScanTypes: readonly string[];
  readonly allowedIpAddresses: readonly string[];
  readonly rateLimitPerMinute: number;
  readonly rateLimitPerHour: number;
  readonly rateLimitPerDay: number;
  /** Counter set shared by a key and its rotation successors. */
  readonly rateLimitBucket: string;
  readonly expiresAt: Date | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly revokedReason: string | null;
  readonly suspendedAt: Date | null;
  readonly rotatedToKeyId: string | null;
  readonly rotatedFromKeyId: string | null;
}

export type NewApiKey = Omit<
  ApiKeyRecord,
  'createdAt' | 'lastUsedAt' | 'revokedAt' | 'revokedReason' | 'suspendedAt' | 'rotatedToKeyId'
> & { readonly createdBy: string | null; readonly createdAt: Date };

/** What one authentication lookup returns: key, tenant status and the database clock. */
export interface KeyForAuth {
  /** The fields the pipeline reads; description, keyHash and createdAt are not loaded here. */
  readonly key: ApiKeyRecord;
  readonly tenantStatus: Tenant['status'];
  readonly now: Date;
}

export type RotationPlan =
  | { readonly ok: true; readonly successor: NewApiKey; readonly oldKeyExpiresAt: Date }
  | { readonly ok: false; readonly reason: string };

export interface ApiKeyStore {
  /**
   * Inserts the key unless its tenant already holds `maxKeys` keys that can still authenticate
   * (not revoked, not expired at the database's clock): then 'limit-reached'. Concurrent inserts
   * of one tenant are counted one after the other.
   */
  insert(key: NewApiKey, maxKeys: number): Promise<ApiKeyRecord | 'limit-reached'>;
  /** One round trip: the key by hash, its tenant's status and `now()` of the database. */
  findForAuth(keyHash: string): Promise<KeyForAuth | null>;
  /** A key of this tenant (null for another tenant's key). `tenantId` null: any tenant (admin). */
  findById(tenantId: string | null, id: string): Promise<ApiKeyRecord | null>;
  list(tenantId: string): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt and reason unless already revoked; returns the key as it is afterwards. */
  revoke(tenantId: string, id: string, reason: string | null): Promise<ApiKeyRecord | null>;
  setSuspended(id: string, suspended: boolean): Promise<ApiKeyRecord | null>;
  /**
   * Locks the key, lets `plan` decide (with the database clock) and, when it agrees, inserts the
   * successor and ends the old key's life at `oldKeyExpiresAt`, all in one transaction.
   */
  rotate(
    tenantId: string,
    id: string,
    plan: (current: ApiKeyRecord, now: Date) => RotationPlan,
  ): Promise<
    | {
        readonly ok: true;
        readonly key: ApiKeyRecord;
        readonly previous: ApiKeyRecord;
        readonly now: Date;
      }
    | { readonly ok: false; readonly reason: 'not-found' | string }
  >;
  /** Writes lastUsedAt = now() on each key unless it was written less than a minute ago. */
  touchLastUsed(ids: readonly string[]): Promise<void>;
  /** The database clock. */
  now(): Promise<Date>;
}

/** Notes that a key was used; `lastUsedAt` is written soon after, off the request path. */
export interface LastUsedRecorder {
  record(id: string): void;
}
