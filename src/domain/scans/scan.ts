/** A scan as the domain sees it (the row of the scans table, in camelCase). */
import type { FindingsSummary } from '../findings/finding.js';
import type { TargetType } from '../targets/target.js';
import type { Priority } from './priority.js';
import type { ScanStatus } from './status-machine.js';

export interface ScanError {
  readonly code: string;
  readonly message: string;
}

export interface ScanRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly apiKeyId: string | null;
  readonly scanType: string;
  readonly name: string;
  readonly target: string;
  readonly targetType: TargetType;
  readonly priority: Priority;
  readonly status: ScanStatus;
  readonly progress: number;
  readonly tags: readonly string[];
  /** The effective options: the request's, with every default filled in. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly config: Readonly<Record<string, unknown>>;
  readonly timeoutSeconds: number;
  readonly assetId: string | null;
  readonly callbackUrl: string | null;
  readonly templateId: string | null;
  readonly parentScanId: string | null;
  /** The W3C `traceparent` of the request that created it (null: not traced). Never shown. */
  readonly traceContext: string | null;
  readonly resultCount: number;
  readonly findingsSummary: FindingsSummary;
  readonly riskScore: number;
  readonly error: ScanError | null;
  /** How many times a worker has claimed it (a lost worker's scan is retried once). */
  readonly attempts: number;
  readonly createdAt: Date;
  readonly startedAt: Date | null;
  readonly completedAt: Date | null;
  /** When retention deleted its findings (RETENTION_FINDINGS_DAYS), else null. */
  readonly findingsPrunedAt: Date | null;
}

/** Milliseconds from start to completion; 0 when the scan never started or has not ended. */
export function durationMs(scan: Pick<ScanRecord, 'startedAt' | 'completedAt'>): number {
  if (scan.startedAt === null || scan.completedAt === null) {
    return 0;
  }
  return Math.max(0, scan.completedAt.getTime() - scan.startedAt.getTime());
}
