/**
 * Assets (issue 24): the records a tenant registers, with their proof of ownership, and their store.
 */
import type { AssetKind } from '../../domain/assets/coverage.js';
import type {
  VerificationMethod,
  VerificationStatus,
} from '../../domain/assets/verification-state.js';
import type { Page } from './common.js';

export type { VerificationMethod, VerificationStatus };

export interface AssetRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly kind: AssetKind;
  /** As given, following the scan target grammar of `kind`. */
  readonly value: string;
  readonly tags: readonly string[];
  /** What the DNS TXT record or the HTTPS file must hold (`rampart-verification=<token>`). */
  readonly verificationToken: string;
  readonly verificationStatus: VerificationStatus;
  readonly verificationMethod: VerificationMethod | null;
  readonly verifiedAt: Date | null;
  readonly lastCheckedAt: Date | null;
  /** Why the last check found no proof; null after a check that found it. */
  readonly lastCheckError: string | null;
  /** When a verified asset's proof was first found missing (the grace period counts from it). */
  readonly proofMissingSince: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface NewAsset {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly kind: AssetKind;
  readonly value: string;
  readonly tags: readonly string[];
  readonly verificationToken: string;
}

/** The outcome of a verification check, written onto the asset. */
export interface VerificationOutcome {
  readonly status: VerificationStatus;
  readonly method: VerificationMethod | null;
  readonly verifiedAt: Date | null;
  readonly checkedAt: Date;
  readonly error: string | null;
  readonly proofMissingSince: Date | null;
}

export interface AssetStore {
  /**
   * Stores the asset unless its tenant already has `maxAssets` (TENANT_MAX_ASSETS): then
   * 'limit-reached'. Concurrent inserts of one tenant are counted one after the other.
   */
  insert(asset: NewAsset, maxAssets: number): Promise<AssetRecord | 'limit-reached'>;
  list(
    tenantId: string,
    page: Page,
    filter: { readonly tag?: string },
  ): Promise<{ assets: AssetRecord[]; total: number }>;
  get(tenantId: string, id: string): Promise<AssetRecord | null>;
  /** Any tenant's asset (admin routes). */
  getById(id: string): Promise<AssetRecord | null>;
  /**
   * Claims up to `limit` verified assets (not verified by an administrator) last checked before
   * `dueBefore`, setting their last check to `now` in the same statement (`SKIP LOCKED`), so that
   * several processes never check one asset twice in an interval.
   */
  claimDueForCheck(now: Date, dueBefore: Date, limit: number): Promise<AssetRecord[]>;
  /** Every asset of the tenant, oldest first (the candidates of a scan's covering asset). */
  forTenant(tenantId: string): Promise<AssetRecord[]>;
  update(
    tenantId: string,
    id: string,
    fields: { readonly name: string; readonly tags: readonly string[] },
  ): Promise<AssetRecord | null>;
  delete(tenantId: string, id: string): Promise<boolean>;
  /** Writes a check's outcome; null when the asset is gone. */
  recordVerification(
    tenantId: string,
    id: string,
    outcome: VerificationOutcome,
  ): Promise<AssetRecord | null>;
}

/** Reads the places an ownership proof may be (DNS and HTTPS), through the SSRF guard. */
export interface ProofReader {
  /** The TXT records at `name`, each as its strings; a failure says why, briefly. */
  txt(name: string): Promise<{ ok: true; records: string[][] } | { ok: false; reason: string }>;
  /** The body of an HTTPS file (200 only, redirects not followed, capped in size). */
  file(url: string): Promise<{ ok: true; body: string } | { ok: false; reason: string }>;
}
