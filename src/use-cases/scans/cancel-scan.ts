/** POST /api/v1/scans/:scanId/cancel: queued or running → cancelled; the 409 codes otherwise. */
import { ApiError } from '../../domain/errors.js';
import type { ScanStore } from '../ports.js';
import { type ScanDetailView, toScanDetailView } from './scan-view.js';

export async function cancelScan(
  scans: ScanStore,
  tenantId: string,
  id: string,
): Promise<ScanDetailView> {
  const result = await scans.cancel(tenantId, id);
  if (result.ok) {
    return toScanDetailView(result.scan);
  }
  if (result.reason === 'not-found') {
    throw new ApiError('SCAN_NOT_FOUND');
  }
  throw new ApiError(result.code);
}
