/**
 * Scans: what create-scan inserts, the scan store the API reads and writes through, a sentinel run
 * as stored and shown, and the two checks made before a scan is queued (a live worker for its
 * engine, the target's addresses).
 */
import type { Finding, Severity } from '../../domain/findings/finding.js';
import type { SarifRuleSource } from '../../domain/findings/sarif.js';
import type { TriageState } from '../../domain/issues/triage.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { CancelConflict, ScanStatus } from '../../domain/scans/status-machine.js';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { Page } from './common.js';

/** What a scan's findings list keeps (each null: any). */
export interface ScanFindingFilter {
  readonly severity: Severity | null;
  /** The engine that produced the finding (on a sentinel scan, the child engine it names). */
  readonly engine: string | null;
  /**
   * The triage in effect of the finding's issue (an accepted risk past its expiry is `none`). A
   * finding without an issue (its triage reads null) matches no triage state.
   */
  readonly triage: TriageState | null;
}

/** A scan to insert, as create-scan has validated it: what a queued scan's record starts from. */
export type NewScan = Pick<
  ScanRecord,
  | 'id'
  | 'tenantId'
  | 'apiKeyId'
  | 'scanType'
  | 'name'
  | 'target'
  | 'targetType'
  | 'priority'
  | 'tags'
  | 'options'
  | 'config'
  | 'timeoutSeconds'
  | 'assetId'
  | 'callbackUrl'
  | 'templateId'
  | 'parentScanId'
  | 'traceContext'
> & { readonly callbackSecret: string | null };

/** What a sentinel scan stores besides its parent and child rows (the plan's outcome). */
export interface NewSentinelRun {
  readonly depth: string;
  readonly correlate: boolean;
  readonly riskScore: boolean;
  readonly skipped: ReadonlyArray<{ readonly engine: string; readonly reason: string }>;
}

/** A sentinel child scan as the API shows it in its parent's detail. */
export interface SentinelChildSummary {
  readonly scanId: string;
  readonly engine: string;
  readonly status: ScanStatus;
  readonly progress: number;
  readonly resultCount: number;
  readonly findingsSummary: Record<Severity, number>;
  readonly error: { readonly code: string; readonly message: string } | null;
}

/** The sentinel part of a parent scan. */
export interface SentinelRunView {
  readonly depth: string;
  readonly correlate: boolean;
  readonly riskScore: boolean;
  readonly skipped: ReadonlyArray<{ readonly engine: string; readonly reason: string }>;
  readonly children: readonly SentinelChildSummary[];
  /** The scan's risk factors once its findings were collected (riskScore on), else null. */
  readonly riskFactors: ReadonlyArray<{
    readonly factor: string;
    readonly points: number;
    readonly detail: string;
  }> | null;
}

export type CancelResult =
  | { readonly ok: true; readonly scan: ScanRecord }
  | { readonly ok: false; readonly reason: 'not-found' }
  | { readonly ok: false; readonly reason: 'conflict'; readonly code: CancelConflict };

/** Scans as the API reads and writes them. Every status write goes through the status machine. */
export interface ScanStore {
  /**
   * Counts the scan in the tenant's month (`YYYY-MM-01`) and inserts it queued, waking the
   * workers, atomically; null when the month's quota is used up (nothing is stored).
   */
  insert(scan: NewScan, quotaMonth: string): Promise<ScanRecord | null>;
  /**
   * Stores a sentinel scan: the parent (counted against the quota like `insert`), its children
   * (queued, not counted) and its run record, atomically; null when the quota is used up.
   */
  insertSentinel(
    parent: NewScan,
    children: readonly NewScan[],
    run: NewSentinelRun,
    quotaMonth: string,
  ): Promise<ScanRecord | null>;
  /** The sentinel part of a parent scan (null for any other scan). */
  sentinelRun(tenantId: string, scanId: string): Promise<SentinelRunView | null>;
  get(tenantId: string, id: string): Promise<ScanRecord | null>;
  list(
    tenantId: string,
    filter: {
      readonly scanType: string | null;
      readonly status: ScanStatus | null;
      /** null: top-level scans only (sentinel children are hidden); an id: that scan's children. */
      readonly parentScanId: string | null;
    },
    page: Page,
  ): Promise<{ readonly scans: ScanRecord[]; readonly total: number }>;
  /**
   * Cancels a queued or running scan and tells the worker running it, in one transaction (its
   * children, if any, are the cancel use case's to cancel).
   */
  cancel(tenantId: string, id: string): Promise<CancelResult>;
  /**
   * A scan's findings matching `filter`, most severe first, then as stored; `total` counts every
   * match. `now` decides which accepted risks have expired (the triage filter).
   */
  listFindings(
    tenantId: string,
    scanId: string,
    filter: ScanFindingFilter,
    page: Page | null,
    now: Date,
  ): Promise<{ readonly findings: Finding[]; readonly total: number }>;
  /**
   * All of a scan's findings, `pageSize` at a time, without `raw`, `evidence` and correlation
   * data (which the SARIF, CSV and DefectDojo files do not carry): 'severity' order is
   * `listFindings`', 'sarif' order is `compareSarifResults`'. Each page is read when the previous
   * one has been taken.
   */
  findingPages(
    tenantId: string,
    scanId: string,
    order: 'severity' | 'sarif',
    pageSize: number,
  ): AsyncIterable<Finding[]>;
  /**
   * What a scan's SARIF rules are made of, one `SarifRuleSource` a rule id: the title and
   * references of the rule's first finding in SARIF result order, and every distinct CWE and CVE
   * id of the rule's findings (what a `createSarifRuleCollector` keeps of all of them).
   */
  sarifRuleSources(tenantId: string, scanId: string): Promise<SarifRuleSource[]>;
}

/** Which engines some live worker can run now (the 503 check and GET /api/v1/engines). */
/** An engine a live worker runs. */
export interface RunnableEngine {
  /** Every live worker that runs it does so in the scanner sandbox. */
  readonly sandboxed: boolean;
}

export interface WorkerDirectory {
  /** The engines a live worker runs, by name. */
  runnableEngines(): Promise<ReadonlyMap<string, RunnableEngine>>;
}

export type TargetCheck =
  | {
      readonly ok: true;
      /** Every address judged: the resolved ones of a name, the literal of an address. */
      readonly addresses: readonly string[];
    }
  | {
      readonly ok: false;
      readonly code: 'TARGET_UNRESOLVABLE' | 'TARGET_NOT_ALLOWED';
      readonly message: string;
    };

/**
 * Resolves a target's name (if it has one; an image's registry too) and judges every address it
 * resolves to.
 */
export interface TargetResolver {
  check(target: ScanTarget, allowPrivate: PrivateTargetPolicy): Promise<TargetCheck>;
}
