/** sentinel_runs rows (and the parent's children) to the view the API shows. */
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { SentinelRunView } from '../../use-cases/ports/scans.js';
import type { SentinelRunRow } from './database.js';
import { json } from './scan-rows.js';

export function toSentinelRunView(
  run: SentinelRunRow,
  children: readonly ScanRecord[],
): SentinelRunView {
  return {
    depth: run.depth,
    correlate: run.correlate,
    riskScore: run.risk_score,
    skipped: json<SentinelRunView['skipped']>(run.skipped),
    children: children.map((child) => ({
      scanId: child.id,
      engine: child.scanType,
      status: child.status,
      progress: child.progress,
      resultCount: child.resultCount,
      findingsSummary: { ...child.findingsSummary },
      error: child.status === 'failed' ? child.error : null,
    })),
    riskFactors: json<SentinelRunView['riskFactors']>(run.risk_factors) ?? null,
  };
}
