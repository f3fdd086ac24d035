/**
 * POST /api/v1/scans/:scanId/cancel: queued or running → cancelled; the 409 codes otherwise. A
 * scan with children (sentinel) cancels its unfinished children after it; a child's parent is
 * collected if that child was the last one it waited for.
 */
import { ApiError } from '../../domain/errors.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { ServiceMetrics } from '../ports/metrics.js';
import type { ScanStore } from '../ports/scans.js';
import { type ScanDetailView, toScanDetailView } from './scan-view.js';

/** What follows a cancel for a scan's parent or children (sentinel-lifecycle.ts). */
export interface CancelFollowUp {
  cancelled(scan: ScanRecord): Promise<void>;
}

export async function cancelScan(
  deps: {
    readonly scans: ScanStore;
    readonly childScans: CancelFollowUp;
    readonly metrics: Pick<ServiceMetrics, 'scanFinished'>;
  },
  tenantId: string,
  id: string,
): Promise<ScanDetailView> {
  const result = await deps.scans.cancel(tenantId, id);
  if (result.ok) {
    deps.metrics.scanFinished(result.scan.scanType, result.scan.priority, 'cancelled', null);
    await deps.childScans.cancelled(result.scan);
    return toScanDetailView(result.scan);
  }
  if (result.reason === 'not-found') {
    throw new ApiError('SCAN_NOT_FOUND');
  }
  throw new ApiError(result.code);
}
